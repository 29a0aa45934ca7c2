"""RJ005 positives: a submit that does not wait plus a sensor on the same job."""

import time

from airflow.providers.amazon.aws.operators.emr import EmrAddStepsOperator
from airflow.providers.amazon.aws.sensors.emr import EmrStepSensor
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.google.cloud.operators.dataproc import DataprocSubmitJobOperator
from airflow.providers.google.cloud.sensors.dataproc import DataprocJobSensor
from airflow.providers.standard.operators.python import PythonOperator
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG, dag, task

NOTEBOOK_PATH = "/Shared/etl"


def run_finished(ti):
    return ti.xcom_pull(task_ids="submit_run") is not None


with DAG(dag_id="databricks_split", schedule=None):
    submit = DatabricksSubmitRunOperator(
        task_id="submit_run",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        wait_for_termination=False,
    )
    wait = PythonSensor(task_id="wait_run", python_callable=run_finished, mode="reschedule")
    report = PythonOperator(task_id="report", python_callable=print)
    submit >> wait >> report


with DAG(dag_id="emr_split", schedule=None):
    add_steps = EmrAddStepsOperator(task_id="add_steps", job_flow_id="j-1", steps=[])
    watch = EmrStepSensor(
        task_id="watch_step",
        job_flow_id="j-1",
        step_id="{{ task_instance.xcom_pull(task_ids='add_steps', key='return_value')[0] }}",
    )
    publish = PythonOperator(task_id="publish", python_callable=print)
    # "publish" depends on the submit only: it can start before the step has finished.
    add_steps >> [watch, publish]


with DAG(dag_id="dataproc_split", schedule=None):
    job = DataprocSubmitJobOperator(task_id="submit_pyspark", job={}, region="eu", asynchronous=True)
    sense = DataprocJobSensor(task_id="sense_pyspark", dataproc_job_id=job.output, region="eu")
    job >> sense


@dag(schedule=None)
def taskflow_split():
    @task
    def submit_job():
        return "run-1"

    @task.sensor(poke_interval=60, mode="reschedule")
    def wait_for_job(run_id):
        return run_id is not None

    @task
    def publish(run_id):
        return run_id

    @task
    def poll_job(run_id):
        while run_id is None:
            time.sleep(30)
        return run_id

    run_id = submit_job()
    wait_for_job(run_id)
    publish(run_id)
    poll_job(run_id)


taskflow_split()
