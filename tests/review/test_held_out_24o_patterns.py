"""Shapes of blind batch "held-out-24o" (our own code, no third-party code), each with a near miss.

- a key naming a time (``quota_reset_time``) that one task writes and that only tasks downstream of
  it in the same DAG read was reported as the DAG's position in time (RJ004); read by tasks the DAG
  runs after the writer, it is this run's value handed on (RJ001), as the rule already said of
  offsets. It stays RJ004 when the writer also reads it, when a reader is not downstream of the
  writer (upstream, unordered, another DAG file), when the DAG reads it when parsed, and when the
  reviewer cannot place the tasks in the DAG's order;
- a "done" marker two tasks build from one f-string around a parameter of each
  (``f"pull_done_{region}"`` written by ``pull(region)``, read and compared by ``check(region)``)
  was not matched: a key with a part computed at run time is not read in full. When every call of
  each task function in the DAG passes the same parameter of the DAG's function, or the same
  literal, the two are one key, handed between the tasks (RJ001). Another name, another literal,
  a value computed elsewhere, a part from the run's context, or one task alone: as before.
"""

from __future__ import annotations

import textwrap

import pytest

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source

from .sources import found, relative, write

# -- a time handed from one task to a task downstream of it ----------------------------------------

_QUOTA = """
    import time

    from airflow.sdk import chain

    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@daily")
    def quota_sync():
        @task
        def call_api():
            reset_at = fetch_pages()
            Variable.set("quota_reset_time", str(reset_at))

        @task
        def wait_for_quota():
            reset_at = Variable.get("quota_reset_time", 0)
            time.sleep(max(0, int(reset_at) - int(time.time())))

        @task
        def report():
            pass

        WIRING

    quota_sync()
"""


@pytest.mark.parametrize(
    "wiring",
    [
        "call_api() >> wait_for_quota()",
        "wait_for_quota() << call_api()",
        "first = call_api()\n        first.set_downstream(wait_for_quota())",
        "first = call_api()\n        middle = report()\n        first >> middle\n        middle >> wait_for_quota()",
        "chain(call_api(), report(), wait_for_quota())",
    ],
)
def test_a_time_read_only_by_tasks_downstream_of_its_writer_is_a_hand_off(wiring):
    source = _QUOTA.replace("WIRING", wiring)
    findings = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]])
    assert [(f.line, f.code) for f in findings] == [(14, "RJ001"), (18, "RJ001")]
    assert all('("quota_reset_time")' in f.message and "per-run state" in f.message for f in findings)


def test_near_miss_a_time_read_by_a_task_that_is_not_downstream_of_the_writer_stays_a_watermark():
    unordered = _QUOTA.replace("WIRING", "call_api()\n        wait_for_quota()")
    upstream = _QUOTA.replace("WIRING", "wait_for_quota() >> call_api()")
    for source in (unordered, upstream):
        assert found(source, "RJ001", "RJ004") == [(14, "RJ004"), (18, "RJ004")]


def test_near_miss_a_date_the_first_task_reads_and_the_last_moves_on_stays_a_watermark():
    source = """
        import pendulum
        from airflow.decorators import dag, task
        from airflow.models import Variable

        @dag(schedule="@daily")
        def daily_export():
            @task
            def start():
                return Variable.get("processing_day")

            @task
            def load(day):
                export(day)

            @task
            def finish():
                Variable.set("processing_day", pendulum.today().add(days=1).to_date_string())

            day = start()
            load(day) >> finish()

        daily_export()
    """
    assert found(source, "RJ001", "RJ004") == [(10, "RJ004"), (18, "RJ004")]


def test_near_miss_a_time_the_dag_also_reads_when_parsed_stays_a_watermark():
    source = _QUOTA.replace("WIRING", "call_api() >> wait_for_quota()").replace(
        "    quota_sync()", '    NEXT = Variable.get("quota_reset_time", 0)\n    quota_sync()'
    )
    assert found(source, "RJ001", "RJ004") == [(14, "RJ004"), (18, "RJ004")]


def test_near_miss_a_time_the_writer_also_reads_stays_a_watermark():
    source = _QUOTA.replace("WIRING", "call_api() >> wait_for_quota()").replace(
        "reset_at = fetch_pages()", 'reset_at = fetch_pages(since=Variable.get("quota_reset_time"))'
    )
    assert [code for _, code in found(source, "RJ001", "RJ004")] == ["RJ004"] * 3


def test_near_miss_a_time_another_dag_file_also_reads_stays_a_watermark(tmp_path):
    other = """
        from airflow.decorators import dag, task
        from airflow.models import Variable

        @dag(schedule="@daily")
        def follower():
            @task
            def wait():
                return Variable.get("quota_reset_time")

            wait()

        follower()
    """
    files = {"dags/quota.py": _QUOTA.replace("WIRING", "call_api() >> wait_for_quota()"), "dags/follower.py": other}
    paths = write(tmp_path, files)
    result = review_files(paths, [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]])
    assert relative(tmp_path, result) == [
        ("dags/follower.py", 9, "RJ004"),
        ("dags/quota.py", 14, "RJ004"),
        ("dags/quota.py", 18, "RJ004"),
    ]


# -- a "done" marker under one f-string template, filled alike by the DAG's calls --------------------

_MARKER = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@daily")
    def sync(region="eu", other_region="us"):
        @task
        def pull(region):
            copy_files(region)
            Variable.set(f"pull_done_{region}", "yes")

        @task.branch
        def check(region):
            if Variable.get(f"pull_done_{region}", "no") == "yes":
                return "publish"
            return "retry"

        pull(PULLED) >> check(CHECKED)

    sync()
"""


@pytest.mark.parametrize(
    "pulled,checked",
    [
        ("region", "region"),
        ("region=region", "region"),
        ('"eu"', '"eu"'),
        ('"{{ params.region }}"', 'region="{{ params.region }}"'),
    ],
)
def test_a_marker_two_tasks_build_from_one_template_filled_alike_is_handed_between_them(pulled, checked):
    source = _MARKER.replace("PULLED", pulled).replace("CHECKED", checked)
    findings = review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]])
    assert [(f.line, f.code) for f in findings] == [(10, "RJ001"), (14, "RJ001")]
    assert all(
        "pull_done_{region}" in f.message and "a marker one task writes and another reads" in f.message
        for f in findings
    )


@pytest.mark.parametrize(
    "pulled,checked",
    [
        ("region", "other_region"),  # another name of the DAG: another key
        ('"eu"', '"us"'),  # other literals
        ("region", "compute_region()"),  # a value computed when the DAG is parsed
    ],
)
def test_near_miss_a_template_filled_differently_is_not_one_key(pulled, checked):
    source = _MARKER.replace("PULLED", pulled).replace("CHECKED", checked)
    assert found(source, "RJ001", "RJ004") == []


def test_near_miss_a_placeholder_from_the_run_context_is_not_filled():
    source = (
        _MARKER.replace("def pull(region):", "def pull(ds=None):")
        .replace('f"pull_done_{region}", "yes"', 'f"pull_done_{ds}", "yes"')
        .replace("def check(region):", "def check(ds=None):")
        .replace('f"pull_done_{region}", "no"', 'f"pull_done_{ds}", "no"')
        .replace("copy_files(region)", "copy_files(ds)")
        .replace("pull(PULLED) >> check(CHECKED)", "pull() >> check()")
    )
    assert found(source, "RJ001", "RJ004") == []


def test_near_miss_a_template_only_one_task_uses_keeps_todays_answer():
    source = (
        _MARKER.replace('Variable.get(f"pull_done_{region}", "no")', 'Variable.get("pull_mode", "no")')
        .replace("PULLED", "region")
        .replace("CHECKED", "region")
    )
    assert found(source, "RJ001", "RJ004") == []


def test_a_time_handed_between_python_operators_wired_in_order_is_a_hand_off():
    source = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator

        def call_api():
            Variable.set("quota_reset_time", fetch_pages())

        def wait_for_quota():
            sleep_until(Variable.get("quota_reset_time"))

        with DAG("quota", schedule="@daily") as dag:
            calling = PythonOperator(task_id="call_api", python_callable=call_api)
            waiting = PythonOperator(task_id="wait_for_quota", python_callable=wait_for_quota)
            calling >> waiting
    """
    assert found(source, "RJ001", "RJ004") == [(7, "RJ001"), (10, "RJ001")]
    assert found(source.replace("calling >> waiting", "waiting >> calling"), "RJ001", "RJ004") == [
        (7, "RJ004"),
        (10, "RJ004"),
    ]


def test_near_miss_a_time_function_run_by_two_tasks_has_no_one_place_and_stays_a_watermark():
    source = _QUOTA.replace("WIRING", "call_api() >> wait_for_quota()\n        wait_for_quota() >> report()")
    assert found(source, "RJ001", "RJ004") == [(14, "RJ004"), (18, "RJ004")]


def test_near_miss_two_dags_of_one_file_each_with_a_parameter_of_that_name_are_not_one_key():
    source = """
        from airflow.decorators import dag, task
        from airflow.models import Variable

        @dag(schedule="@daily")
        def producer(region="eu"):
            @task
            def pull(region):
                Variable.set(f"pull_done_{region}", "yes")

            pull(region)

        @dag(schedule="@daily")
        def consumer(region="us"):
            @task
            def check(region):
                return Variable.get(f"pull_done_{region}", "no") == "yes"

            check(region)

        producer()
        consumer()
    """
    assert found(source, "RJ001", "RJ004") == []
