"""RJ002 near misses: XCom used for what it is for."""

from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import dag, task


def submit_job():
    return "job-1"


@task
def submit(**context):
    # Handing the id to a downstream sensor: the valid submit -> XCom -> sensor layout.
    context["ti"].xcom_push(key="job_id", value=submit_job())


@task
def wait(**context):
    # Reads another task's XCom: not this task's retry state.
    return context["ti"].xcom_pull(task_ids="submit", key="job_id")


@task
def static_config(**context):
    ti = context["ti"]
    ti.xcom_push(key="target_table", value="orders")
    table = ti.xcom_pull(key="target_table")
    ti.xcom_push(key="s3_prefix", value=f"s3://bucket/{table}")


def push_path(ti):
    ti.xcom_push(key="output_path", value="/tmp/out")
    return ti.xcom_pull(key="output_path")


@dag(schedule=None)
def xcom_ok():
    submit() >> wait()
    static_config()
    PythonOperator(task_id="push_path", python_callable=push_path)


xcom_ok()
