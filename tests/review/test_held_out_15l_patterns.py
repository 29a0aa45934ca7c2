"""Patterns the held-out batch "held-out-15l" (state kept in Airflow Variables) showed, as positives
and near misses of our own writing.

Missed: a run-id lock whose Variable key is built from configuration the reviewer cannot resolve
(``settings.lock_key``, ``lock_name(settings.pipeline)``), written by one task and read by another
of the same DAG file. Such a key now counts when both calls write the same expression in two
functions of one file; a bare name (a parameter, a loop variable) still says nothing.

Reported wrongly: a file that defines two DAGs, one whose task sets a constant under a neutral key
and one whose task reads it. That value is published from one DAG to another, as between DAG
files, not a marker passed between the tasks of one DAG: a neutral key now needs its writer and
its reader to be tasks of the same DAG when the file defines several.
"""

from __future__ import annotations

from resumable_jobs.review import review_files

from .sources import found, relative, write

# ---------------------------------------------------------------- keys built from configuration

_LOCK = """
    import json

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator, ShortCircuitOperator

    from pipeline.settings import load_settings


    def free_to_run(**context):
        settings = load_settings(context["dag_run"].conf)
        holder = Variable.get({read_key}, None)
        return holder is None or json.loads(holder)["run_id"] == context["run_id"]


    def take_lock(**context):
        settings = load_settings(context["dag_run"].conf)
        Variable.set({write_key}, json.dumps({{"run_id": context["run_id"]}}))


    with DAG("ingest", schedule=None) as dag:
        check = ShortCircuitOperator(task_id="check", python_callable=free_to_run)
        lock = PythonOperator(task_id="lock", python_callable=take_lock)
        check >> lock
"""


def _lock(read_key: str, write_key: str | None = None) -> str:
    return _LOCK.format(read_key=read_key, write_key=write_key or read_key)


def test_lock_key_from_a_config_attribute_written_and_read_by_two_tasks():
    assert found(_lock("settings.lock_key"), "RJ001") == [(13, "RJ001"), (19, "RJ001")]


def test_lock_key_built_by_a_call_on_both_sides():
    assert found(_lock("lock_name(settings.pipeline)"), "RJ001") == [(13, "RJ001"), (19, "RJ001")]


def test_different_expressions_are_different_keys():
    assert found(_lock("settings.lock_key", "settings.audit_key"), "RJ001") == []


def test_bare_names_say_nothing_about_which_key():
    source = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator


        def remember(name, value):
            Variable.set(name, value)


        def recall(name):
            return Variable.get(name)


        with DAG("names", schedule=None) as dag:
            PythonOperator(task_id="remember", python_callable=remember, op_args=["table", "orders"])
            PythonOperator(task_id="recall", python_callable=recall, op_args=["table"])
    """
    assert found(source, "RJ001") == []


def test_an_expression_key_only_read_is_configuration():
    source = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator


        def bucket_of(**context):
            return Variable.get(context["params"].bucket_key)


        def region_of(**context):
            return Variable.get(context["params"].bucket_key)


        with DAG("config", schedule=None) as dag:
            PythonOperator(task_id="bucket", python_callable=bucket_of)
            PythonOperator(task_id="region", python_callable=region_of)
    """
    assert found(source, "RJ001") == []


def test_the_same_expression_in_two_files_is_not_one_key(tmp_path):
    writer = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator


        def take_lock(**context):
            Variable.set(context["params"].lock_key, context["run_id"])


        with DAG("writer", schedule=None) as dag:
            PythonOperator(task_id="lock", python_callable=take_lock)
    """
    reader = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator


        def look(**context):
            return Variable.get(context["params"].lock_key)


        with DAG("reader", schedule=None) as dag:
            PythonOperator(task_id="look", python_callable=look)
    """
    paths = write(tmp_path, {"dags/writer.py": writer, "dags/reader.py": reader})
    assert relative(tmp_path, review_files(paths)) == []


# ---------------------------------------------------------------- several DAGs in one file

_TWO_DAGS = """
    from datetime import datetime

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def announce(**context):
        Variable.set("release_note", "catalogue rebuilt")


    def show(**context):
        print(Variable.get("release_note"))


    with DAG("announcer", start_date=datetime(2026, 1, 1), schedule=None):
        PythonOperator(task_id="announce", python_callable=announce)
        {extra}

    with DAG("display", start_date=datetime(2026, 1, 1), schedule=None):
        PythonOperator(task_id="show", python_callable=show)
"""


def test_a_value_one_dag_of_the_file_publishes_for_another_is_a_near_miss():
    assert found(_TWO_DAGS.format(extra=""), "RJ001") == []


def test_writer_and_reader_in_the_same_dag_of_a_two_dag_file_are_still_reported():
    source = _TWO_DAGS.format(extra='PythonOperator(task_id="show_here", python_callable=show)')
    # ``show`` runs in both DAGs, so its DAG is not one: the pair counts as before
    assert found(source, "RJ001") == [(10, "RJ001"), (14, "RJ001")]


def test_dags_told_apart_by_the_dag_keyword():
    source = """
        from datetime import datetime

        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator

        nightly = DAG("nightly", start_date=datetime(2026, 1, 1), schedule="@daily")
        report = DAG("report", start_date=datetime(2026, 1, 1), schedule=None)


        def mark(**context):
            Variable.set("nightly_status", "done")


        def read_mark(**context):
            return Variable.get("nightly_status")


        PythonOperator(task_id="mark", python_callable=mark, dag=nightly)
        PythonOperator(task_id="read", python_callable=read_mark, dag={reader_dag})
    """
    assert found(source.format(reader_dag="report"), "RJ001") == []
    assert found(source.format(reader_dag="nightly"), "RJ001") == [(13, "RJ001"), (17, "RJ001")]


def test_a_single_dag_file_keeps_reporting_a_marker_between_its_tasks():
    source = """
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator


        def pick(**context):
            Variable.set("chosen_partition", "p7")


        def use(**context):
            return Variable.get("chosen_partition")


        with DAG("one", schedule=None) as dag:
            PythonOperator(task_id="pick", python_callable=pick) >> PythonOperator(task_id="use", python_callable=use)
    """
    assert found(source, "RJ001") == [(8, "RJ001"), (12, "RJ001")]


_TEMPLATE_READER = """
    from datetime import datetime

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.bash import BashOperator
    from airflow.operators.python import PythonOperator


    def announce(**context):
        Variable.set("release_note", "catalogue rebuilt")


    with DAG("announcer", start_date=datetime(2026, 1, 1), schedule=None):
        PythonOperator(task_id="announce", python_callable=announce)
        {here}

    with DAG("display", start_date=datetime(2026, 1, 1), schedule=None):
        {there}
"""

_ECHO = 'BashOperator(task_id="show", bash_command="echo {{{{ var.value.release_note }}}}")'


def test_a_template_read_in_another_dag_of_the_file_is_a_near_miss():
    assert found(_TEMPLATE_READER.format(here="", there=_ECHO), "RJ001") == []


def test_a_template_read_in_the_writers_dag_is_reported():
    source = _TEMPLATE_READER.format(here=_ECHO, there='BashOperator(task_id="idle", bash_command="true")')
    assert found(source, "RJ001") == [(11, "RJ001"), (16, "RJ001")]
