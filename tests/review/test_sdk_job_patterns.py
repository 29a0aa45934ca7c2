"""Jobs started from task code through a client or hook method (issue 15d): a task that starts
a job and returns, with a sensor or a poll task on that job, is RJ005's submit-then-sensor split.
Positives and near misses of our own writing."""

from __future__ import annotations

import os
import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source
from tests.review.sources import found


_TASKFLOW = """
    import boto3
    from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
    from airflow.sdk import DAG, task

    with DAG("nightly"):
        @task
        def load_orders():
            glue = boto3.client("glue")
            {body}

        run = load_orders()
        GlueJobSensor(task_id="wait", job_name="orders", run_id=run)
"""


def test_taskflow_task_starting_a_glue_job_then_a_sensor():
    body = 'return glue.start_job_run(JobName="orders")["JobRunId"]'
    findings = review_source(textwrap.dedent(_TASKFLOW.format(body=body)), "dag.py", [RULES_BY_CODE["RJ005"]])
    assert [(f.line, f.code) for f in findings] == [(12, "RJ005")]
    assert "start_job_run()" in findings[0].message


def test_task_that_waits_for_its_own_job_is_a_near_miss():
    for body in (
        # a poll loop in the same task
        (
            'rid = glue.start_job_run(JobName="orders")["JobRunId"]\n'
            "            while glue.get_job_run(JobName='orders', RunId=rid)['JobRun']['JobRunState'] == 'RUNNING':\n"
            "                time.sleep(30)\n"
            "            return rid"
        ),
        # a bounded poll loop
        (
            'rid = glue.start_job_run(JobName="orders")["JobRunId"]\n'
            "            for _ in range(100):\n"
            "                time.sleep(30)\n"
            "            return rid"
        ),
        # a boto3 waiter
        (
            'rid = glue.start_job_run(JobName="orders")["JobRunId"]\n'
            '            glue.get_waiter("job_run_succeeded").wait(JobName="orders", RunId=rid)\n'
            "            return rid"
        ),
        # no job started at all: reading a job run is not starting one
        'return glue.get_job_run(JobName="orders", RunId="x")["JobRun"]["Id"]',
    ):
        assert found(_TASKFLOW.format(body=body), "RJ005") == [], body


_PYTHON_OPERATOR = """
    import time

    import boto3
    from airflow import DAG
    from airflow.operators.python import PythonOperator

    def add_step(**context):
        emr = boto3.client("emr")
        return emr.add_job_flow_steps(JobFlowId="j-1", Steps=[{{"Name": "etl"}}])["StepIds"][0]

    def wait_for_step(ti, **context):
        step_id = ti.xcom_pull(task_ids="{pulled}")
        emr = boto3.client("emr")
        while emr.describe_step(ClusterId="j-1", StepId=step_id)["Step"]["Status"]["State"] != "COMPLETED":
            time.sleep(60)

    with DAG("steps") as dag:
        add = PythonOperator(task_id="add_step", python_callable=add_step)
        wait = PythonOperator(task_id="wait_for_step", python_callable=wait_for_step)
        add >> wait
"""


def test_python_operator_starting_a_step_then_a_python_operator_polling_it():
    assert found(_PYTHON_OPERATOR.format(pulled="add_step"), "RJ005") == [(19, "RJ005")]


def test_poll_task_on_another_task_is_a_near_miss():
    assert found(_PYTHON_OPERATOR.format(pulled="other_task"), "RJ005") == []


def test_helper_of_the_callable_starts_the_job_and_a_sensor_pulls_its_id():
    source = """
        import boto3
        from airflow import DAG
        from airflow.operators.python import PythonOperator
        from airflow.providers.amazon.aws.sensors.batch import BatchSensor

        def _submit(name):
            return boto3.client("batch").submit_job(jobName=name, jobQueue="q", jobDefinition="d")["jobId"]

        def run_export(**context):
            return _submit("export")

        with DAG("export") as dag:
            export = PythonOperator(task_id="export", python_callable=run_export)
            BatchSensor(task_id="wait", job_id="{{ ti.xcom_pull(task_ids='export') }}")
    """
    assert found(source, "RJ005") == [(14, "RJ005")]


def test_databricks_hook_submit_run_then_an_in_house_sensor():
    source = """
        from airflow.providers.databricks.hooks.databricks import DatabricksHook
        from airflow.sdk import DAG, task
        from airflow.sensors.base import BaseSensorOperator

        class RunFinishedSensor(BaseSensorOperator):
            def __init__(self, run_id, **kwargs):
                super().__init__(**kwargs)
                self.run_id = run_id

            def poke(self, context):
                return DatabricksHook().get_run_state(self.run_id).is_terminal

        with DAG("nb"):
            @task
            def notebook():
                return DatabricksHook().submit_run({"notebook_task": {"notebook_path": "/etl"}})

            RunFinishedSensor(task_id="wait", run_id=notebook())
    """
    assert found(source, "RJ005") == [(19, "RJ005")]


def test_calls_that_wait_or_are_not_job_starts_are_near_misses():
    source = """
        from concurrent.futures import ThreadPoolExecutor

        from airflow.providers.amazon.aws.hooks.emr import EmrHook
        from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
        from airflow.sdk import DAG, task
        from databricks.sdk import WorkspaceClient

        with DAG("d"):
            @task
            def steps():
                return EmrHook().add_job_flow_steps("j-1", steps=[], wait_for_completion=True)

            @task
            def notebook():
                return WorkspaceClient().jobs.run_now(job_id=7).result().run_id

            @task
            def fan_out():
                with ThreadPoolExecutor() as pool:
                    return pool.submit(print, "x").result()

            EmrStepSensor(task_id="a", job_flow_id="j-1", step_id=steps())
            EmrStepSensor(task_id="b", job_flow_id="j-1", step_id=notebook())
            EmrStepSensor(task_id="c", job_flow_id="j-1", step_id=fan_out())
    """
    assert found(source) == []


def test_job_started_with_no_sensor_on_it_is_a_near_miss():
    source = """
        import boto3
        from airflow.providers.amazon.aws.sensors.s3 import S3KeySensor
        from airflow.sdk import DAG, task

        with DAG("d"):
            @task
            def athena():
                return boto3.client("athena").start_query_execution(QueryString="select 1")["QueryExecutionId"]

            landed = S3KeySensor(task_id="landed", bucket_key="s3://b/k")
            landed >> athena()
    """
    assert found(source, "RJ005") == []


def _review_tree(tmp_path, helper_body: str) -> list[tuple[str, int, str]]:
    dags = tmp_path / "dags"
    (dags / "jobs").mkdir(parents=True)
    (dags / "jobs" / "__init__.py").write_text("")
    (dags / "jobs" / "glue.py").write_text(textwrap.dedent(helper_body))
    (dags / "orders.py").write_text(
        textwrap.dedent(
            """
            from airflow import DAG
            from airflow.operators.python import PythonOperator
            from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
            from jobs.glue import start_orders_job

            with DAG("orders") as dag:
                start = PythonOperator(task_id="start", python_callable=start_orders_job)
                GlueJobSensor(task_id="wait", job_name="orders", run_id=start.output)
            """
        )
    )
    result = review_files([str(p) for p in sorted(dags.rglob("*.py"))])
    return [(os.path.relpath(f.path, dags), f.line, f.code) for f in result.findings]


def test_callable_imported_from_another_module_starts_the_job(tmp_path):
    helper = """
        import boto3

        def start_orders_job():
            return boto3.client("glue").start_job_run(JobName="orders")["JobRunId"]
    """
    assert _review_tree(tmp_path, helper) == [("orders.py", 8, "RJ005")]


def test_imported_callable_that_waits_is_a_near_miss(tmp_path):
    helper = """
        import boto3

        def start_orders_job():
            glue = boto3.client("glue")
            run_id = glue.start_job_run(JobName="orders")["JobRunId"]
            glue.get_waiter("job_run_succeeded").wait(RunId=run_id)
            return run_id
    """
    assert _review_tree(tmp_path, helper) == []
