"""Shapes of blind batch "held-out-24q" (our own code, no third-party code), each with a near miss.

The batch's one expected finding was missed: a key whose words say nothing, written by the
``python_callable`` of a PythonOperator that an operator factory of another module builds and
returns (``def make_collect(): return PythonOperator(task_id="collect", python_callable=_collect)``),
and read by the DAG file that calls the factory when it is parsed (one task planned per batch).
The same shape was found when the operator is built in the DAG file, or when the callable is
imported into it; through the factory the callable ran in no task of the DAG file. Now the
callable a factory hands to the operator it returns (a function of the factory's module, not a
parameter the caller passes) runs in a task of each DAG file that calls the factory, as an
imported ``python_callable`` does.
"""

from __future__ import annotations

import pytest

from resumable_jobs.review import review_files

from .sources import relative, write

_HELPERS = """
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def _collect(ti):
        names = ti.xcom_pull(task_ids="list_files")
        Variable.set("ledger_batch_names", names, serialize_json=True)


    def make_collect():
        return PythonOperator(task_id="collect", python_callable=_collect)


    def make_report():
        return PythonOperator(task_id="report", python_callable=print)
"""

_DAG = """
    import pendulum
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.bash import BashOperator
    from helpers.batches import make_collect

    with DAG("ledger", start_date=pendulum.datetime(2024, 1, 1), schedule="@daily"):
        collect = make_collect()
        for name in Variable.get("ledger_batch_names", default_var=[], deserialize_json=True):
            collect >> BashOperator(task_id=f"load_{name}", bash_command=f"load {name}")
"""


def _review(tmp_path, helpers: str = _HELPERS, dag: str = _DAG):
    paths = write(tmp_path, {"dags/helpers/batches.py": helpers, "dags/ledger.py": dag})
    result = review_files(paths)
    return relative(tmp_path, result), [f.message for f in result.findings]


def test_a_factory_callable_writing_a_key_the_calling_dag_plans_from_is_a_marker(tmp_path):
    found, messages = _review(tmp_path)
    assert found == [("dags/helpers/batches.py", 8, "RJ001")]
    assert 'Variable.set("ledger_batch_names")' in messages[0]
    assert "a marker one task writes and another reads" in messages[0]


def test_an_operator_bound_to_a_name_and_returned_is_the_factory_s_operator(tmp_path):
    helpers = _HELPERS.replace(
        'return PythonOperator(task_id="collect", python_callable=_collect)',
        'task = PythonOperator(task_id="collect", python_callable=_collect)\n        return task',
    )
    found, _ = _review(tmp_path, helpers)
    assert found == [("dags/helpers/batches.py", 8, "RJ001")]


@pytest.mark.parametrize("operator", ["BranchPythonOperator", "ShortCircuitOperator"])
def test_another_operator_taking_a_python_callable_counts_alike(tmp_path, operator):
    helpers = _HELPERS.replace("PythonOperator", operator)
    found, _ = _review(tmp_path, helpers)
    assert found == [("dags/helpers/batches.py", 8, "RJ001")]


def test_the_helpers_the_factory_callable_runs_are_the_task_s(tmp_path):
    helpers = _HELPERS.replace(
        'Variable.set("ledger_batch_names", names, serialize_json=True)',
        "_publish(names)\n\n\n    def _publish(names):\n"
        '        Variable.set("ledger_batch_names", names, serialize_json=True)',
    )
    found, messages = _review(tmp_path, helpers)
    assert found == [("dags/helpers/batches.py", 12, "RJ001")]
    assert 'Variable.set("ledger_batch_names")' in messages[0]


def test_another_task_of_the_calling_dag_reading_the_key_is_a_hand_off(tmp_path):
    dag = """
        import pendulum
        from airflow import DAG
        from airflow.models import Variable
        from airflow.operators.python import PythonOperator
        from helpers.batches import make_collect

        def load():
            for name in Variable.get("ledger_batch_names", deserialize_json=True):
                print(name)

        with DAG("ledger", start_date=pendulum.datetime(2024, 1, 1), schedule="@daily"):
            make_collect() >> PythonOperator(task_id="load", python_callable=load)
    """
    found, _ = _review(tmp_path, dag=dag)
    assert found == [("dags/helpers/batches.py", 8, "RJ001"), ("dags/ledger.py", 9, "RJ001")]


def test_near_miss_the_factory_when_no_dag_file_reads_the_key(tmp_path):
    dag = _DAG.replace(
        'Variable.get("ledger_batch_names", default_var=[], deserialize_json=True)', '["eu", "us"]'
    ).replace("from airflow.models import Variable\n", "")
    found, _ = _review(tmp_path, dag=dag)
    assert found == []


def test_near_miss_the_dag_file_reads_the_key_but_calls_another_factory(tmp_path):
    dag = _DAG.replace("make_collect", "make_report")
    found, _ = _review(tmp_path, dag=dag)
    assert found == []


def test_near_miss_a_callable_the_caller_passes_is_the_caller_s_function(tmp_path):
    # the factory's parameter shadows the module's own ``_collect``: the task runs what the caller
    # hands over (here a function that writes nothing), not the module function of that name
    helpers = _HELPERS.replace(
        'def make_collect():\n        return PythonOperator(task_id="collect", python_callable=_collect)',
        'def make_collect(_collect):\n        return PythonOperator(task_id="collect", python_callable=_collect)',
    )
    dag = _DAG.replace("make_collect()", "make_collect(print)")
    found, _ = _review(tmp_path, helpers, dag)
    assert found == []


def test_a_callable_the_caller_passes_and_that_writes_the_key_is_reported_in_the_caller(tmp_path):
    # as before this change: the caller's own function is the task's callable
    helpers = _HELPERS.replace(
        'def make_collect():\n        return PythonOperator(task_id="collect", python_callable=_collect)',
        'def make_collect(_collect):\n        return PythonOperator(task_id="collect", python_callable=_collect)',
    )
    dag = _DAG.replace(
        "with DAG(",
        'def publish(ti):\n        Variable.set("ledger_batch_names", ti.xcom_pull(task_ids="list_files"))\n\n'
        "    with DAG(",
    ).replace("make_collect()", "make_collect(publish)")
    found, _ = _review(tmp_path, helpers, dag)
    assert found == [("dags/ledger.py", 9, "RJ001")]


def test_a_factory_called_in_a_dag_function_runs_its_callable_in_that_dag_s_task(tmp_path):
    dag = """
        import pendulum
        from airflow.decorators import dag
        from airflow.models import Variable
        from airflow.operators.bash import BashOperator
        from helpers.batches import make_collect

        @dag(start_date=pendulum.datetime(2024, 1, 1), schedule="@daily")
        def ledger():
            collect = make_collect()
            for name in Variable.get("ledger_batch_names", default_var=[], deserialize_json=True):
                collect >> BashOperator(task_id=f"load_{name}", bash_command=f"load {name}")

        ledger()
    """
    found, _ = _review(tmp_path, dag=dag)
    assert found == [("dags/helpers/batches.py", 8, "RJ001")]


_FEED = """
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator


    def _plan(ti):
        ti.xcom_push(key="start", value=Variable.get("feed_offset", default_var=0))


    def _advance(ti):
        Variable.set("feed_offset", ti.xcom_pull(task_ids="fetch"))


    def make_plan():
        return PythonOperator(task_id="plan", python_callable=_plan)


    def make_advance():
        return PythonOperator(task_id="advance", python_callable=_advance)
"""


@pytest.mark.parametrize("where", ["module", "dag function"])
def test_near_miss_two_factory_tasks_of_one_dag_are_two_tasks_not_one(tmp_path, where):
    # the offset is read by one task and written by another: not one task moving its own
    # position on (which the two factory calls on one line, or in one DAG function, would
    # look like if they were taken for one task)
    dag = """
        import pendulum
        from airflow.decorators import dag
        from helpers.feed import make_advance, make_plan

        @dag(start_date=pendulum.datetime(2024, 1, 1), schedule="@daily")
        def feed():
            make_plan() >> make_advance()

        feed()
    """
    if where == "module":
        dag = dag.replace("@dag(", "with DAG('feed', ").replace(
            'schedule="@daily")\n        def feed():', 'schedule="@daily"):'
        )
        dag = dag.replace("from airflow.decorators import dag", "from airflow import DAG").replace("feed()\n", "")
    paths = write(tmp_path, {"dags/helpers/feed.py": _FEED, "dags/feed.py": dag})
    result = review_files(paths)
    assert relative(tmp_path, result) == [("dags/helpers/feed.py", 7, "RJ001"), ("dags/helpers/feed.py", 11, "RJ001")]
    assert all("(cursor)" in f.message for f in result.findings)


def test_a_factory_called_through_its_module_s_name_counts_alike(tmp_path):
    dag = _DAG.replace("from helpers.batches import make_collect", "import helpers.batches as batches").replace(
        "make_collect()", "batches.make_collect()"
    )
    found, _ = _review(tmp_path, dag=dag)
    assert found == [("dags/helpers/batches.py", 8, "RJ001")]


def test_a_callable_the_factory_s_module_imports_runs_in_the_calling_dag_s_task(tmp_path):
    paths = write(
        tmp_path,
        {
            "dags/helpers/collecting.py": """
                from airflow.models import Variable

                def collect(ti):
                    Variable.set("ledger_batch_names", ti.xcom_pull(task_ids="list_files"))
            """,
            "dags/helpers/batches.py": """
                from airflow.operators.python import PythonOperator
                from helpers.collecting import collect

                def make_collect():
                    return PythonOperator(task_id="collect", python_callable=collect)
            """,
            "dags/ledger.py": _DAG,
        },
    )
    assert relative(tmp_path, review_files(paths)) == [("dags/helpers/collecting.py", 5, "RJ001")]
