"""Shapes of blind batch "held-out-24f" (our own code, no third-party code), each with a near miss.

The batch itself was found in full blind (13 of 13, nothing wrong); probing its shapes by hand
showed one gap, changed generally:

- a recency word followed by a calendar unit (``last_report_week``, ``latest_load_hour``,
  ``max_billing_quarter``) names a last-processed time, as ``last_data_date`` already did: the
  period words (week, month, year, quarter, season, hour) count like ``date`` and ``ts``; and a
  key naming such a period (``current_season``) is a point in time like ``current_date``;
- a count of things in a period (``last_week_total``, ``season_match_count``) is neither.

The other tests keep the batch's shapes that the reviewer already found, so that they stay found.
"""

from __future__ import annotations

from .sources import found

# -- the last period handled, read and moved on by one branch task -----------------------------

_WEEKLY = """
    from datetime import datetime
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import BranchPythonOperator

    def anything_new():
        last = datetime.fromisoformat(Variable.get("KEY"))
        newest = newest_published_week()
        if last < newest:
            Variable.set("KEY", newest.strftime("%Y-%m-%d"))
            return "load"
        return "end"

    with DAG("weekly_report") as dag:
        BranchPythonOperator(task_id="anything_new", python_callable=anything_new)
"""


def test_the_last_week_a_branch_task_moves_on_is_a_watermark():
    assert found(_WEEKLY.replace("KEY", "last_report_week"), "RJ001", "RJ004") == [(8, "RJ004"), (11, "RJ004")]


def test_the_last_hour_and_quarter_name_a_time_as_the_last_date_does():
    for key in ("latest_load_hour", "max_billing_quarter", "last_data_date"):
        assert found(_WEEKLY.replace("KEY", key), "RJ004") == [(8, "RJ004"), (11, "RJ004")], key


def test_near_miss_a_count_of_the_last_week_is_no_time():
    assert found(_WEEKLY.replace("KEY", "last_week_total"), "RJ001", "RJ004") == []


_READ_ONLY = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@daily")
    def fiscal_report():
        @task
        def report():
            build_report(year=int(Variable.get("last_fiscal_year")))

        report()

    fiscal_report()
"""


def test_near_miss_a_period_read_as_configuration_that_nothing_writes():
    assert found(_READ_ONLY, "RJ001", "RJ004") == []


# -- a period written by one task and read by the first task of the next run -------------------

_SEASONS = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator

    def pick_season(ti):
        ti.xcom_push(key="season", value=int(Variable.get("KEY", default_var=2000)) + 1)

    def load_season(ti):
        season = ti.xcom_pull(task_ids="pick", key="season")
        load(season)
        Variable.set("KEY", season)

    with DAG("seasons") as dag:
        pick = PythonOperator(task_id="pick", python_callable=pick_season)
        done = PythonOperator(task_id="load", python_callable=load_season)
        pick >> done
"""


def test_the_current_season_one_task_writes_and_another_reads_is_the_dags_position_in_time():
    assert found(_SEASONS.replace("KEY", "current_season"), "RJ001", "RJ004") == [(7, "RJ004"), (12, "RJ004")]


def test_near_miss_a_count_handed_between_the_same_tasks_is_run_state():
    source = _SEASONS.replace("KEY", "season_match_count")
    assert found(source, "RJ001", "RJ004") == [(7, "RJ001"), (12, "RJ001")]


# -- shapes of the batch the reviewer already found ---------------------------------------------

_OWN_PROGRESS = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@hourly")
    def matches():
        @task
        def ingest():
            since = int(Variable.get("last_game_id", default_var="0"))
            newest = copy_games_after(since)
            if newest is None:
                Variable.set("last_game_id", str(since))
                return
            Variable.set("last_game_id", str(newest))

        ingest()

    matches()
"""


def test_an_id_position_only_its_own_task_reads_is_that_tasks_progress():
    assert found(_OWN_PROGRESS, "RJ001", "RJ004") == [(9, "RJ001"), (12, "RJ001"), (14, "RJ001")]


def test_near_miss_the_same_task_reading_a_game_id_it_never_writes():
    source = _OWN_PROGRESS.replace('Variable.set("last_game_id", str(since))', "pass")
    source = source.replace('Variable.set("last_game_id", str(newest))', "publish(newest)")
    assert found(source, "RJ001", "RJ004") == []


_BOTO_STEP = """
    import time
    import boto3
    from airflow import DAG
    from airflow.operators.python import PythonOperator

    emr = boto3.client("emr")

    def add_step(cluster_id, script):
        return emr.add_job_flow_steps(JobFlowId=cluster_id, Steps=[step(script)])["StepIds"][0]

    def wait_step(cluster_id, step_id):
        while emr.describe_step(ClusterId=cluster_id, StepId=step_id)["Step"]["Status"]["State"] != "COMPLETED":
            time.sleep(30)

    with DAG("steps") as dag:
        submit = PythonOperator(task_id="submit", python_callable=add_step, op_args=["j-1", "etl.py"])
        poll = PythonOperator(
            task_id="poll",
            python_callable=wait_step,
            op_args=["j-1", "{{ ti.xcom_pull('submit') }}"],
        )
        submit >> poll
"""


def test_a_boto3_step_polled_by_a_task_that_pulls_its_id_in_op_args():
    assert found(_BOTO_STEP, "RJ005") == [(17, "RJ005")]


def test_near_miss_the_poll_task_waits_on_another_tasks_step():
    source = _BOTO_STEP.replace("xcom_pull('submit')", "xcom_pull('other_submit')")
    assert found(source, "RJ005") == []
