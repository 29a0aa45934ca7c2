"""Shapes of blind batch "held-out-24g" (our own code, no third-party code), each with a near miss.

Two general changes followed the batch (see docs/review.md, "a second blind batch"):

- a key naming the last thing a run handled with the verb after the thing
  (``last_file_loaded``, ``last_s3_key_processed``) is the same position in a sequence of things
  as ``last_loaded_file``: no watermark by its name, decided by its use; the same words with a
  time (``last_date_loaded``) still name a watermark;
- a key that a helper function of the file builds and returns (``var = _var_name(table, "id")``
  with ``return f"watermark_{table}_{kind}"``) is read through the helper: its words count as if
  the f-string were written at the call; a helper whose key has no words (``f"{env}_{table}"``) or
  names configuration says nothing.
"""

from __future__ import annotations

from .sources import found

# -- the last thing loaded, written by the DAG's load task and read by its first task -----------

_LAST_FILE = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    LAST = "KEY"

    @dag(schedule="@daily")
    def files_to_warehouse():
        @task
        def list_new_files():
            last = Variable.get(LAST, default_var=None)
            return [f for f in list_files() if last is None or f > last]

        @task
        def load(files):
            copy_into_warehouse(files)
            if files:
                Variable.set(LAST, sorted(files)[-1])

        load(list_new_files())

    files_to_warehouse()
"""


def test_the_last_file_loaded_handed_between_the_dags_tasks_is_run_state():
    for key in ("pipeline.last_file_loaded", "last_s3_key_processed", "latest_batch_ingested"):
        assert found(_LAST_FILE.replace("KEY", key), "RJ001", "RJ004") == [(11, "RJ001"), (18, "RJ001")], key


def test_the_verb_before_the_thing_is_decided_the_same_way():
    assert found(_LAST_FILE.replace("KEY", "last_loaded_file"), "RJ001", "RJ004") == [(11, "RJ001"), (18, "RJ001")]


def test_near_miss_the_last_date_loaded_is_a_time_and_stays_a_watermark():
    assert found(_LAST_FILE.replace("KEY", "last_date_loaded"), "RJ001", "RJ004") == [(11, "RJ004"), (18, "RJ004")]


# -- keys a helper of the file builds and returns ----------------------------------------------

_BUILT_KEY = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator

    TABLES = [{"name": "orders", "column": "id"}]

    def _var_name(table, kind):
        return TEMPLATE

    def scan(**context):
        for table in TABLES:
            var = _var_name(table["name"], "id")
            last = Variable.get(var, default_var=None)
            newest = max_id_of(table)
            if last is None or newest > int(last):
                Variable.set(var, newest)

    with DAG("table_scanner") as dag:
        PythonOperator(task_id="scan", python_callable=scan)
"""


def test_a_watermark_key_built_by_a_helper_of_the_file_is_a_watermark():
    source = _BUILT_KEY.replace("TEMPLATE", 'f"watermark_{table}_{kind}"')
    assert found(source, "RJ001", "RJ004") == [(14, "RJ004"), (17, "RJ004")]


def test_the_helper_called_for_the_key_itself_counts_too():
    source = _BUILT_KEY.replace("TEMPLATE", 'f"hwm_{table}_{kind}"').replace(
        "Variable.get(var,", 'Variable.get(_var_name(table["name"], "id"),'
    )
    assert found(source, "RJ004") == [(14, "RJ004"), (17, "RJ004")]


def test_near_miss_a_helper_key_with_no_words_says_nothing():
    assert found(_BUILT_KEY.replace("TEMPLATE", 'f"{table}_{kind}"'), "RJ001", "RJ004") == []


_CONFIG_KEY = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    def _bucket_key(env):
        return f"{env}_export_bucket"

    @dag(schedule="@daily")
    def export():
        @task
        def upload(env="prod"):
            push_files(Variable.get(_bucket_key(env)))

        upload()

    export()
"""


def test_near_miss_a_helper_building_a_configuration_key_read_in_a_task():
    assert found(_CONFIG_KEY, "RJ001", "RJ004") == []
