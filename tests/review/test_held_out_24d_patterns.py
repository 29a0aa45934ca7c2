"""Shapes of blind batch "held-out-24d" (our own code, written after the kinds of error the batch
showed; no third-party code), each with a near miss:

- a feature switch that a task turns off and another DAG turns back on is configuration, read
  or written; a counter beside it is still run state;
- an offset a task writes and the DAG definition reads when it is parsed, to plan the next run,
  is the position others plan from (RJ004), even when the task does not read it first; handed to
  another task of the same DAG it stays per-run state (RJ001);
- a "last successful run" key whose value is a folder is where that run's output is, published
  for another DAG; the same key holding a time is a watermark.
"""

from __future__ import annotations

from .sources import found

# -- a switch a task turns, and a counter beside it --------------------------------------------

_GATE = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import BranchPythonOperator

    def may_export():
        if Variable.get("allow_nightly_export", default_var="yes") == "yes":
            return "export"
        return "skip"

    def count_exports():
        done = int(Variable.get("STATE_KEY", default_var="0")) + 1
        Variable.set("STATE_KEY", str(done))
        if done >= 7:
            Variable.set("allow_nightly_export", "no")
            return "archive"
        return "finish"

    with DAG("nightly_export") as dag:
        BranchPythonOperator(task_id="gate", python_callable=may_export)
        BranchPythonOperator(task_id="count", python_callable=count_exports)
"""


def test_a_switch_a_task_turns_off_is_configuration_the_counter_beside_it_is_run_state():
    source = _GATE.replace("STATE_KEY", "exports_done")
    assert found(source, "RJ001", "RJ004") == [(12, "RJ001"), (13, "RJ001")]


def test_near_miss_the_same_marker_under_a_key_naming_no_switch_is_reported_where_written():
    # a key naming nothing, which one task of the DAG writes and another reads, is a marker
    # passed between tasks: its write, and since held-out-24h also its read compared with a
    # yes/no literal (the read that makes it a marker; a switch set by hand is not written by a task)
    source = _GATE.replace("STATE_KEY", "exports_done").replace("allow_nightly_export", "nightly_export_state")
    assert found(source, "RJ001", "RJ004") == [(7, "RJ001"), (12, "RJ001"), (13, "RJ001"), (15, "RJ001")]


# -- an offset the DAG plans from when it is parsed --------------------------------------------

_PLANNER = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator

    def record_progress(**context):
        total = fetch_total_rows()
        Variable.set("orders_loaded_offset", total)

    def load_page(page, **context):
        load_rows(page)
    READER

    with DAG("orders_pages") as dag:
        done = PythonOperator(task_id="record", python_callable=record_progress)
        PLAN
"""

_PARSE_TIME_PLAN = """
        loaded = int(Variable.get("orders_loaded_offset", default_var=0))
        for page in range(loaded // 100, 50):
            PythonOperator(task_id=f"page_{page}", python_callable=load_page, op_args=[page]) >> done
"""


def test_an_offset_the_dag_reads_when_parsed_to_plan_its_pages_is_a_watermark():
    source = _PLANNER.replace("READER", "").replace("PLAN", _PARSE_TIME_PLAN.strip())
    assert found(source, "RJ001", "RJ004") == [(8, "RJ004")]


def test_near_miss_the_same_offset_handed_to_another_task_of_the_run_is_run_state():
    reader = """
    def report(**context):
        print("loaded up to", Variable.get("orders_loaded_offset"))
    """
    source = _PLANNER.replace("READER", reader).replace(
        "PLAN", 'done >> PythonOperator(task_id="report", python_callable=report)'
    )
    assert found(source, "RJ001", "RJ004") == [(8, "RJ001"), (14, "RJ001")]


# -- where the last successful run put its output ----------------------------------------------

_PUBLISH = """
    from airflow.models import Variable
    from airflow.sdk import task

    @task
    def publish(run_dir: str):
        Variable.set("catalog_last_successful_build_run", VALUE)
"""


def test_the_folder_of_the_last_successful_run_published_for_another_dag_is_no_watermark():
    assert found(_PUBLISH.replace("VALUE", "run_dir"), "RJ001", "RJ004") == []


def test_near_miss_the_same_key_holding_the_time_of_that_run_is_a_watermark():
    source = _PUBLISH.replace("VALUE", "pendulum.now('UTC').isoformat()")
    assert found(source, "RJ001", "RJ004") == [(7, "RJ004")]
