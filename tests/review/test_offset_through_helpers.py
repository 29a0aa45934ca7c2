"""An offset a task reads through one helper and writes back through another is moved on from
run to run, as when both calls are in the task body. Nothing else reads it back, so it is that
task's own progress: per-run state (RJ001; issue 24 moved it there from RJ004, deciding by use
rather than by the key's words). The near misses keep the read and the write in different tasks.
"""

from __future__ import annotations

from resumable_jobs.review import RULES_BY_CODE, review_files

from .sources import found, relative, write

_HEADER = """
    from datetime import datetime

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def _current_offset():
        return int(Variable.get("invoice_offset", default_var=0))


    def _store_offset(value):
        Variable.set("invoice_offset", value)
"""


def test_a_task_reading_and_writing_an_offset_through_two_helpers_moves_its_own_progress():
    source = (
        _HEADER
        + """

    def page(**context):
        first = _current_offset()
        _store_offset(first + 500)


    with DAG("invoices", start_date=datetime(2026, 1, 1), schedule="@hourly"):
        PythonOperator(task_id="page", python_callable=page)
"""
    )
    assert found(source, "RJ001", "RJ004") == [(10, "RJ001"), (14, "RJ001")]


def test_near_miss_one_task_reads_the_offset_and_another_writes_it():
    source = (
        _HEADER
        + """

    def report(**context):
        print(_current_offset())


    def reset(**context):
        _store_offset(0)


    with DAG("invoices", start_date=datetime(2026, 1, 1), schedule="@hourly"):
        PythonOperator(task_id="report", python_callable=report) >> PythonOperator(
            task_id="reset", python_callable=reset
        )
"""
    )
    assert [code for _, code in found(source, "RJ001", "RJ004")] == ["RJ001", "RJ001"]


_STATE_MODULE = """
    from airflow.models import Variable


    def next_offset():
        return int(Variable.get("feed_offset", default_var=0))


    def save_offset(value):
        Variable.set("feed_offset", value)
"""


def _feed_dag(body: str) -> str:
    return (
        """
        from datetime import datetime

        from airflow import DAG
        from airflow.operators.python import PythonOperator

        from common.offsets import next_offset, save_offset

        """
        + body
    )


def _review(tmp_path, dag: str):
    paths = write(
        tmp_path, {"dags/common/__init__.py": "", "dags/common/offsets.py": _STATE_MODULE, "dags/feed.py": dag}
    )
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE["RJ001"], RULES_BY_CODE["RJ004"]]))


def test_helpers_of_another_module_read_and_write_the_offset_of_one_task(tmp_path):
    dag = _feed_dag(
        """
        def pull(**context):
            save_offset(next_offset() + 100)

        with DAG("feed", start_date=datetime(2026, 1, 1), schedule="@daily"):
            PythonOperator(task_id="pull", python_callable=pull)
        """
    )
    assert _review(tmp_path, dag) == [("dags/common/offsets.py", 6, "RJ001"), ("dags/common/offsets.py", 10, "RJ001")]


def test_near_miss_helpers_of_another_module_called_by_two_tasks(tmp_path):
    dag = _feed_dag(
        """
        def show(**context):
            print(next_offset())

        def rewind(**context):
            save_offset(0)

        with DAG("feed", start_date=datetime(2026, 1, 1), schedule="@daily"):
            PythonOperator(task_id="show", python_callable=show) >> PythonOperator(
                task_id="rewind", python_callable=rewind
            )
        """
    )
    assert [code for _, _, code in _review(tmp_path, dag)] == ["RJ001", "RJ001"]
