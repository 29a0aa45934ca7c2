"""Patterns that public DAG files added to the evaluation list (issue 15b) showed the reviewer
missing or getting wrong, each with a positive and near misses of our own writing."""

from __future__ import annotations

import os
import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files
from tests.review.sources import found


# -- RJ005: job operators no table lists, told not to wait by the common flags -------------------

_FLAGGED = """
    from airflow.providers.acme.operators.jobs import {operator}
    from airflow.providers.acme.sensors.jobs import AcmeJobSensor
    from airflow.sdk import DAG

    with DAG("d"):
        run = {operator}(task_id="run", script="etl.sh", {flag}={value})
        AcmeJobSensor(task_id="wait", job_id=run.output)
"""


def test_provider_job_operator_outside_the_table_told_not_to_wait():
    for flag in ("wait_for_completion", "wait_for_termination"):
        source = _FLAGGED.format(operator="AcmeRunJobOperator", flag=flag, value="False")
        assert found(source, "RJ005") == [(7, "RJ005")], flag


def test_provisioning_waiting_or_a_flag_decided_at_run_time_is_a_near_miss():
    for operator, value in (
        ("AcmeCreateClusterOperator", "False"),  # a resource, not a job
        ("AcmeTerminateJobFlowOperator", "False"),
        ("AcmeRunJobOperator", "True"),  # it waits
        ("AcmeRunJobOperator", "WAIT"),  # not a literal: cannot tell
    ):
        source = _FLAGGED.format(operator=operator, flag="wait_for_completion", value=value)
        assert found(source, "RJ005") == [], (operator, value)


def test_operator_outside_known_packages_or_a_dag_trigger_is_a_near_miss():
    elsewhere = """
        from mycompany.jobs import RunJobOperator
        from airflow.providers.acme.sensors.jobs import AcmeJobSensor
        from airflow.sdk import DAG

        with DAG("d"):
            run = RunJobOperator(task_id="run", wait_for_completion=False)
            AcmeJobSensor(task_id="wait", job_id=run.output)
    """
    trigger = """
        from airflow.providers.acme.operators.dags import AcmeTriggerDagRunOperator
        from airflow.providers.acme.sensors.dags import AcmeDagRunSensor
        from airflow.sdk import DAG

        with DAG("d"):
            run = AcmeTriggerDagRunOperator(task_id="run", wait_for_completion=False)
            AcmeDagRunSensor(task_id="wait", run_id=run.output)
    """
    assert found(elsewhere, "RJ005") == []
    assert found(trigger, "RJ005") == []


# -- RJ001/RJ004: a function that takes the task context is a task body ---------------------------


def test_function_taking_the_task_context_runs_in_a_task():
    # the PythonOperator that calls it lives in another DAG file, not reviewed with this one
    for signature in ("ds, **kwargs", "ti", "**context", "source, *, logical_date"):
        source = f"""
            from airflow.models import Variable

            def harvest({signature}):
                since = Variable.get("oai_last_harvest_date")
                fetch(since)
                Variable.set("oai_last_harvest_date", now())
        """
        assert found(source, "RJ004") == [(5, "RJ004"), (7, "RJ004")], signature


def test_function_without_the_task_context_is_a_near_miss():
    for signature in ("source, **kwargs", "ds_path"):
        source = f"""
            from airflow.models import Variable

            def harvest({signature}):
                since = Variable.get("oai_last_harvest_date")
                Variable.set("oai_last_harvest_date", now())
        """
        assert found(source, "RJ004") == [], signature
    method = """
        from airflow.models import Variable

        class Harvester:
            def harvest(self, ds):  # a method: whatever calls it decides where it runs
                since = Variable.get("oai_last_harvest_date")
                Variable.set("oai_last_harvest_date", now())
    """
    assert found(method, "RJ004") == []


# -- keys: a count of what the last run did is a statistic, not a position -----------------------


def test_count_of_the_last_run_is_not_a_watermark_but_its_time_is():
    source = """
        from airflow.sdk import Variable, task

        @task
        def harvest():
            Variable.set("last_num_updated_records", 10)
            Variable.set("last_harvest_total", 12)
            Variable.set("last_updated_at", now())
    """
    assert found(source, "RJ001", "RJ004") == [(8, "RJ004")]


# -- RJ002: a job id kept in the task's own XCom under a key that says nothing ---------------------

_OWN_XCOM = """
    from airflow.models import BaseOperator

    class QueueJobOperator(BaseOperator):
        def execute(self, context):
            ti = context["ti"]
            found = ti.xcom_pull(task_ids=ti.task_id, key={pull_key})
            if found is not None:
                return found
            job_id = self.client.submit(self.request)
            ti.xcom_push(key={push_key}, value={value})
            return job_id
"""


def test_job_id_value_in_own_xcom_under_a_key_built_at_run_time():
    for key, value in (('f"{ti.try_number}"', '{"queue_job_id": job_id}'), ('"attempt"', "job_id")):
        source = _OWN_XCOM.format(pull_key=key, push_key=key, value=value)
        assert found(source, "RJ002") == [(11, "RJ002")], (key, value)


def test_other_values_other_keys_or_another_task_is_a_near_miss():
    for pull_key, push_key, value in (
        ('f"{ti.try_number}"', 'f"{ti.try_number}"', "len(rows)"),  # not a job id
        ('"attempt"', '"attempt"', '{"rows": job_id}'),
        ('f"{ti.try_number}"', 'f"{ti.map_index}"', "job_id"),  # not the key it reads
    ):
        source = _OWN_XCOM.format(pull_key=pull_key, push_key=push_key, value=value)
        assert found(source, "RJ002") == [], (pull_key, push_key, value)
    upstream = _OWN_XCOM.format(pull_key='"attempt"', push_key='"attempt"', value="job_id")
    assert found(upstream.replace("task_ids=ti.task_id", 'task_ids="prepare"'), "RJ002") == []


# -- RJ001: a key a task writes and the DAG definition reads when the file is parsed --------------

_PARSE_TIME_READ = """
    import json

    from airflow.providers.http.operators.http import HttpOperator
    from airflow.sdk import DAG, Variable, task

    @task
    def build_payload(source_id):
        Variable.set("sync_payload", json.dumps({{"sourceId": source_id}}))

    with DAG("sync"):
        payload = build_payload("abc")
        update = HttpOperator(task_id="update", endpoint="/sources/update", data=Variable.get({read}))
        payload >> update
"""


def test_key_a_task_writes_and_the_dag_definition_reads():
    assert found(_PARSE_TIME_READ.format(read='"sync_payload"'), "RJ001") == [(9, "RJ001")]


def test_parse_time_read_of_another_key_or_of_configuration_is_a_near_miss():
    assert found(_PARSE_TIME_READ.format(read='"sync_endpoint"'), "RJ001") == []
    configuration = """
        from airflow.providers.http.operators.http import HttpOperator
        from airflow.sdk import DAG, Variable

        with DAG("sync"):
            HttpOperator(task_id="update", endpoint="/x", data=Variable.get("sync_payload"))
    """
    assert found(configuration, "RJ001") == []


# -- issue 15c: an in-house operator imported through Airflow 1's plugin namespace ----------------

_PLUGIN_OPERATORS = """
    from airflow.contrib.operators.emr_add_steps_operator import EmrAddStepsOperator
    from airflow.models import BaseOperator

    class TemplatedStepsOperator(EmrAddStepsOperator):
        template_fields = ["job_flow_id", "steps"]

    class StepsAndWaitOperator(BaseOperator):
        def execute(self, context):
            return self.run_and_wait()
"""

_PLUGIN_DAG = """
    from airflow import DAG
    from airflow.contrib.sensors.emr_step_sensor import EmrStepSensor
    from {module} import {operator}

    dag = DAG("steps")
    add = {operator}(task_id="add", job_flow_id="j-1", steps=[], dag=dag)
    {sensor}
"""

_STEP_SENSOR = (
    "EmrStepSensor(task_id='watch', job_flow_id='j-1', "
    "step_id=\"{{ ti.xcom_pull('add', key='return_value')[0] }}\", dag=dag)"
)


def _review_plugin_tree(tmp_path, module: str, operator: str, sensor: str = _STEP_SENSOR):
    (tmp_path / ".git").mkdir(parents=True)
    (tmp_path / "plugins" / "team").mkdir(parents=True)
    (tmp_path / "plugins" / "team" / "steps.py").write_text(textwrap.dedent(_PLUGIN_OPERATORS))
    (tmp_path / "dags").mkdir()
    dag = tmp_path / "dags" / "steps.py"
    dag.write_text(textwrap.dedent(_PLUGIN_DAG.format(module=module, operator=operator, sensor=sensor)))
    return [(f.line, f.code) for f in review_files([str(dag)], [RULES_BY_CODE["RJ005"]]).findings]


def test_subclass_of_a_submit_operator_imported_through_the_plugin_namespace(tmp_path):
    for module in ("airflow.operators.team_plugin", "airflow.operators"):
        assert _review_plugin_tree(tmp_path / module, module, "TemplatedStepsOperator") == [(7, "RJ005")], module


def test_plugin_operator_that_waits_or_has_no_sensor_or_is_not_found_is_a_near_miss(tmp_path):
    assert _review_plugin_tree(tmp_path / "a", "airflow.operators.team_plugin", "StepsAndWaitOperator") == []
    assert _review_plugin_tree(tmp_path / "b", "airflow.operators.team_plugin", "TemplatedStepsOperator", "") == []
    assert _review_plugin_tree(tmp_path / "c", "airflow.operators.team_plugin", "MissingOperator") == []
    # a class of Airflow's own modules is never looked up in plugins/
    assert _review_plugin_tree(tmp_path / "d", "airflow.operators.python_operator", "TemplatedStepsOperator") == []


# -- issue 15c: a date the DAG moves on from run to run, read back when the DAG is parsed ---------

_DATE_CONFIG = """
    from airflow.models import Variable

    START = "2024-01-01"
    CURRENT_DAY = Variable.get("{key}", default_var=START)
"""

_DATE_TASKS = """
    from datetime import date, timedelta

    from airflow.decorators import task
    from airflow.models import Variable

    from weekly.config import CURRENT_DAY

    @task
    def reset(**context):
        if context["dag_run"].run_type == "manual":
            Variable.set("{key}", "2024-01-01")

    @task
    def move_on():
        following = date.fromisoformat(CURRENT_DAY) + timedelta(weeks=1)
        Variable.set("{key}", following.isoformat())
"""


def _review_date_tree(tmp_path, key: str, config_key: str | None = None, codes=("RJ001", "RJ004")):
    (tmp_path / "dags" / "weekly").mkdir(parents=True)
    (tmp_path / "dags" / "weekly" / "config.py").write_text(textwrap.dedent(_DATE_CONFIG.format(key=config_key or key)))
    tasks = tmp_path / "dags" / "weekly" / "tasks.py"
    tasks.write_text(textwrap.dedent(_DATE_TASKS.format(key=key)))
    paths = [str(tmp_path / "dags" / "weekly" / "config.py"), str(tasks)]
    result = review_files(paths, [RULES_BY_CODE[c] for c in codes])
    return [(os.path.basename(f.path), f.line, f.code) for f in result.findings]


def test_date_a_task_moves_on_and_a_config_module_reads_back_is_a_watermark(tmp_path):
    for key in ("current_date", "processing_day", "window_start_ts"):
        assert _review_date_tree(tmp_path / key, key) == [
            ("tasks.py", 12, "RJ004"),
            ("tasks.py", 17, "RJ004"),
        ], key


def test_date_read_in_another_task_is_a_watermark_not_a_run_marker():
    source = """
        from airflow.models import Variable
        from airflow.sdk import DAG, task

        @task
        def extract():
            since = Variable.get("export_date", default_var="2024-01-01")
            return since

        @task
        def finish(ds=None):
            Variable.set("export_date", ds)

        with DAG("d"):
            extract() >> finish()
    """
    assert found(source, "RJ001", "RJ004") == [(7, "RJ004"), (12, "RJ004")]


def test_date_nobody_reads_back_or_read_only_or_a_count_is_a_near_miss(tmp_path):
    # written, but the config module reads another key: nothing in the tree reads it back
    assert _review_date_tree(tmp_path / "a", "published_date", config_key="start_date") == []
    # a count of days is no point in time (one task writes, another reads: RJ001's marker rule)
    source = """
        from airflow.models import Variable
        from airflow.sdk import DAG, task

        @task
        def count():
            Variable.set("days_count", 3)

        @task
        def show():
            print(Variable.get("days_count"))

        @task
        def publish(ds=None):
            Variable.set("report_date", ds)
            print(Variable.get("report_date"))

        @task
        def configured():
            return Variable.get("backfill_start_date")

        with DAG("d"):
            count() >> show() >> publish() >> configured()
    """
    assert found(source, "RJ004") == []
