"""Patterns the held-out batch "held-out-15j" showed the reviewer had missed, as positives and
near misses of our own writing: a DAG file that takes its task callables (or its operator
factories) from a module of the DAG folder with a star import (``from day_helpers import *``),
so the name handed to ``python_callable=`` is bound by no import statement of its own.
"""

from __future__ import annotations

from resumable_jobs.review import RULES_BY_CODE, review_files

from .sources import relative, write

_HELPERS = """
    from airflow.models import Variable


    def _remember_day(day):
        Variable.set("report_day", day)


    def roll_report_day(day):
        _remember_day(day)
        return day


    def unused_writer(day):
        Variable.set("other_day", day)
"""

# a second DAG that reads the day back when it is parsed: the value moves between DAG runs
_READER = """
    from datetime import datetime

    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.bash import BashOperator

    with DAG("publish", start_date=datetime(2026, 1, 1), schedule=None):
        BashOperator(task_id="publish", bash_command="publish " + Variable.get("report_day"))
        BashOperator(task_id="other", bash_command="publish " + Variable.get("other_day"))
"""


def _roller(body: str) -> str:
    return (
        """
        from datetime import datetime

        from airflow import DAG
        from airflow.decorators import task
        from airflow.operators.python import PythonOperator

        from day_helpers import *

        with DAG("roll", start_date=datetime(2026, 1, 1), schedule="@daily"):
        """
        + body
    )


def _review(tmp_path, roller: str, codes=("RJ001", "RJ004")):
    paths = write(
        tmp_path,
        {"dags/day_helpers.py": _HELPERS, "dags/publish.py": _READER, "dags/roll.py": roller},
    )
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE[c] for c in codes]))


_SET_LINE = ("dags/day_helpers.py", 6, "RJ004")


def test_python_callable_from_a_star_import_runs_the_helpers_variable_write(tmp_path):
    roller = _roller(
        """
            PythonOperator(task_id="roll", python_callable=roll_report_day, op_kwargs={"day": "{{ ds }}"})
        """
    )
    assert _review(tmp_path, roller) == [_SET_LINE]


def test_a_task_body_calling_a_star_imported_helper_runs_its_write(tmp_path):
    roller = _roller(
        """
            @task
            def roll(ds=None):
                return roll_report_day(ds)

            roll()
        """
    )
    assert _review(tmp_path, roller) == [_SET_LINE]


def test_near_miss_a_function_of_the_dag_file_shadows_the_star_imported_one(tmp_path):
    roller = _roller(
        """
            def roll_report_day(day):
                return day

            PythonOperator(task_id="roll", python_callable=roll_report_day, op_kwargs={"day": "{{ ds }}"})
        """
    )
    assert _review(tmp_path, roller) == []


def test_near_miss_a_star_imported_helper_no_task_runs(tmp_path):
    roller = _roller(
        """
            PythonOperator(task_id="noop", python_callable=print)
        """
    )
    assert _review(tmp_path, roller) == []


def test_near_miss_a_star_import_of_an_installed_package_is_not_followed(tmp_path):
    roller = """
        from datetime import datetime

        from airflow import DAG
        from airflow.operators.python import *

        with DAG("roll", start_date=datetime(2026, 1, 1), schedule="@daily"):
            PythonOperator(task_id="roll", python_callable=roll_report_day)
    """
    assert _review(tmp_path, roller) == []


_FACTORIES = """
    def transform_step(wait=False):
        from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator

        return EmrAddStepsOperator(
            task_id="transform_step",
            job_flow_id="j-NIGHTLY",
            steps=[{"Name": "transform", "HadoopJarStep": {"Jar": "command-runner.jar"}}],
            wait_for_completion=WAIT,
        )
"""

_NIGHTLY = """
    from datetime import datetime

    from airflow import DAG
    from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor

    from emr_factories import *

    with DAG("nightly", start_date=datetime(2026, 1, 1), schedule="@daily"):
        step = transform_step()
        watch = EmrStepSensor(
            task_id="watch_transform",
            job_flow_id="j-NIGHTLY",
            step_id="{{ ti.xcom_pull(task_ids='transform_step')[0] }}",
        )
        step >> watch
"""


def _review_factory(tmp_path, wait: str):
    paths = write(
        tmp_path,
        {"dags/emr_factories.py": _FACTORIES.replace("WAIT", wait), "dags/nightly.py": _NIGHTLY},
    )
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE["RJ005"]]))


def test_operator_factory_taken_from_a_star_import_is_a_submit_task(tmp_path):
    assert _review_factory(tmp_path, "False") == [("dags/nightly.py", 10, "RJ005")]


def test_near_miss_star_imported_factory_whose_operator_waits(tmp_path):
    assert _review_factory(tmp_path, "True") == []


_LEDGER_DAG = """
    from airflow import DAG
    from airflow.operators.python import PythonOperator
    from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor

    from glue_calls import *

    with DAG("ledger") as dag:
        begin = PythonOperator(task_id="begin", python_callable=begin_ledger_run)
        GlueJobSensor(task_id="ledger_done", job_name="ledger", run_id=begin.output)
"""


def _review_callable(tmp_path, calls: str):
    paths = write(tmp_path, {"dags/glue_calls.py": calls, "dags/ledger.py": _LEDGER_DAG})
    return relative(tmp_path, review_files(paths, [RULES_BY_CODE["RJ005"]]))


def test_star_imported_callable_that_starts_a_job_sensed_downstream(tmp_path):
    calls = """
        import boto3

        def begin_ledger_run():
            return boto3.client("glue").start_job_run(JobName="ledger")["JobRunId"]
    """
    assert _review_callable(tmp_path, calls) == [("dags/ledger.py", 9, "RJ005")]


def test_near_miss_star_imported_callable_that_waits_for_its_job(tmp_path):
    calls = """
        import boto3

        def begin_ledger_run():
            glue = boto3.client("glue")
            run = glue.start_job_run(JobName="ledger")["JobRunId"]
            glue.get_waiter("job_run_succeeded").wait(RunId=run)
            return run
    """
    assert _review_callable(tmp_path, calls) == []
