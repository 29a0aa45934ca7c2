"""Patterns the held-out batch "held-out-15m" (whole DAG folders of five teams) showed, as positives
and near misses of our own writing.

Found blind, kept here so they stay found: a ``@task`` with retries that pushes its resume cursor
to XCom after each batch and reads its own key back to resume (RJ002, twice in one task), and a
task that resets a rebuild flag the same DAG file reads when it is parsed (RJ001).

Probed by hand after the blind run (not a blind finding): the same resume cursor saved and loaded
through two helpers of the file that the task calls (``save_progress(ti, n)``,
``load_progress(ti)``) was not seen, because the push and the pull sat in different functions.
They now count as one task when one task of the file runs both, or an operator's method calls
the helper; two tasks that each call one of the helpers still say nothing. And the message for a
cursor says the retry starts over, not that it submits again.
"""

from __future__ import annotations

import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_source

from .sources import found

# ---------------------------------------------------------------- a resume cursor in the task's own XCom

_RESUME = """
    from datetime import datetime

    from airflow import DAG
    from airflow.decorators import task


    with DAG("reindex", start_date=datetime(2025, 1, 1), schedule=None) as dag:

        @task(retries=2)
        def reindex(**kwargs):
            ti = kwargs.get("ti")
            start = int(ti.xcom_pull({pull_args}) or 0)
            items = list_items()
            while start < len(items):
                if not items[start]:
                    start += 1
                    ti.xcom_push(key="resume_position", value=start)
                    continue
                index_one(items[start])
                start += 1
                ti.xcom_push(key="resume_position", value=start)

        reindex()
"""


def test_a_resume_position_pushed_twice_and_read_back_by_the_same_task():
    source = _RESUME.format(pull_args='key="resume_position"')
    assert found(source, "RJ002") == [(18, "RJ002"), (22, "RJ002")]


def test_a_resume_position_read_from_another_task_is_a_near_miss():
    source = _RESUME.format(pull_args='task_ids="plan", key="resume_position"')
    assert found(source, "RJ002") == []


def test_the_message_for_a_cursor_says_the_retry_starts_over():
    source = textwrap.dedent(_RESUME.format(pull_args='key="resume_position"'))
    messages = {f.message for f in review_source(source, "dag.py", [RULES_BY_CODE["RJ002"]])}
    assert len(messages) == 1
    message = messages.pop()
    assert "starts over" in message and "submits again" not in message


def test_the_message_for_a_job_id_still_says_it_submits_again():
    source = textwrap.dedent(
        """
        from airflow.decorators import task


        @task
        def launch(ti=None):
            batch_run_id = ti.xcom_pull(key="batch_run_id")
            if batch_run_id is None:
                batch_run_id = start_batch()
                ti.xcom_push(key="batch_run_id", value=batch_run_id)
            return batch_run_id
        """
    )
    (finding,) = review_source(source, "dag.py", [RULES_BY_CODE["RJ002"]])
    assert "submits again" in finding.message


# ---------------------------------------------------------------- the push and the pull in helpers of the file

_HELPERS = """
    from datetime import datetime

    from airflow import DAG
    from airflow.decorators import task


    def load_progress(ti):
        return ti.xcom_pull(key="copy_checkpoint") or 0


    def save_progress(ti, done):
        ti.xcom_push(key="copy_checkpoint", value=done)


    with DAG("copy_rows", start_date=datetime(2025, 1, 1), schedule=None) as dag:
{tasks}
"""

_ONE_TASK = """
        @task(retries=3)
        def copy_rows(ti=None):
            done = load_progress(ti)
            for chunk in chunks_from(done):
                write_chunk(chunk)
                done += 1
                save_progress(ti, done)

        copy_rows()
"""

_TWO_TASKS = """
        @task
        def plan(ti=None):
            save_progress(ti, 0)

        @task
        def copy_rows(ti=None):
            done = load_progress(ti)
            for chunk in chunks_from(done):
                write_chunk(chunk)

        plan() >> copy_rows()
"""


def test_a_checkpoint_saved_and_loaded_through_two_helpers_one_task_calls():
    assert found(_HELPERS.format(tasks=_ONE_TASK), "RJ002") == [(13, "RJ002")]


def test_two_tasks_each_calling_one_of_the_helpers_are_a_near_miss():
    assert found(_HELPERS.format(tasks=_TWO_TASKS), "RJ002") == []


def test_a_helper_that_saves_the_cursor_called_from_the_task_that_reads_it():
    source = """
        from airflow.decorators import task


        def remember(ti, cursor):
            ti.xcom_push(key="scan_cursor", value=cursor)


        @task(retries=1)
        def scan(ti=None):
            cursor = ti.xcom_pull(key="scan_cursor")
            while True:
                rows, cursor = fetch_page(cursor)
                remember(ti, cursor)
                if not rows:
                    break
    """
    assert found(source, "RJ002") == [(6, "RJ002")]


def test_an_operator_method_and_a_module_helper_are_one_task():
    source = """
        from airflow.models import BaseOperator


        def saved_offset(context):
            return context["ti"].xcom_pull(key="export_offset")


        class ExportOperator(BaseOperator):
            def execute(self, context):
                offset = saved_offset(context) or 0
                for page in pages_after(offset):
                    upload(page)
                    offset += len(page)
                    context["ti"].xcom_push(key="export_offset", value=offset)
    """
    assert found(source, "RJ002") == [(15, "RJ002")]


def test_a_helper_pushing_for_a_downstream_task_is_a_near_miss():
    source = """
        from airflow.decorators import task


        def publish(ti, cursor):
            ti.xcom_push(key="scan_cursor", value=cursor)


        @task
        def scan(ti=None):
            publish(ti, next_cursor())


        @task
        def report(ti=None):
            print(ti.xcom_pull(task_ids="scan", key="scan_cursor"))
    """
    assert found(source, "RJ002") == []


# ---------------------------------------------------------------- a flag the DAG resets and reads at parse time

_REBUILD = """
    from datetime import datetime

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator

    full_reload = Variable.get("{read_key}", "no") == "yes"


    def clear_reload_flag():
        Variable.set("FULL_RELOAD", "no")


    with DAG("mirror", start_date=datetime(2025, 1, 1), schedule="@daily") as dag:
        PythonOperator(task_id="clear_flag", python_callable=clear_reload_flag)
"""


def test_a_flag_a_task_resets_and_the_file_reads_when_parsed():
    assert found(_REBUILD.format(read_key="FULL_RELOAD"), "RJ001") == [(12, "RJ001")]


def test_a_flag_a_task_sets_that_the_file_never_reads_is_a_near_miss():
    assert found(_REBUILD.format(read_key="MIRROR_TABLES"), "RJ001") == []
