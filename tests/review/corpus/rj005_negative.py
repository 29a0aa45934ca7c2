"""RJ005 near misses: operators that wait, DAG triggers, and submits with no sensor."""

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.providers.standard.operators.trigger_dagrun import TriggerDagRunOperator
from airflow.providers.standard.sensors.external_task import ExternalTaskSensor
from airflow.providers.standard.sensors.python import PythonSensor
from airflow.sdk import DAG, task


def run_finished(ti):
    return ti.xcom_pull(task_ids="run_job") is not None


def always_done():
    return True


with DAG(dag_id="waits_already", schedule=None):
    # Waits by default; the sensor after it is redundant, not a crash-safety problem.
    run_job = DatabricksSubmitRunOperator(task_id="run_job", tasks=[], deferrable=True)
    redundant = PythonSensor(task_id="redundant_wait", python_callable=run_finished)
    run_job >> redundant


with DAG(dag_id="trigger_other", schedule=None):
    trigger = TriggerDagRunOperator(task_id="trigger", trigger_dag_id="downstream", wait_for_completion=False)
    sense = ExternalTaskSensor(task_id="sense", external_dag_id="downstream", external_task_id=None)
    trigger >> sense


with DAG(dag_id="fire_and_forget", schedule=None):
    # No sensor on this job at all: nothing to weigh.
    kick = DatabricksSubmitRunOperator(task_id="kick_off", tasks=[], wait_for_termination=False)
    other = PythonSensor(task_id="file_ready", python_callable=always_done)
    kick >> other


with DAG(dag_id="runtime_flag", schedule=None):
    flag = DatabricksSubmitRunOperator(task_id="flag_run", tasks=[], wait_for_termination=bool(0))
    flag_wait = PythonSensor(task_id="flag_wait", python_callable=run_finished)
    flag >> flag_wait


@task
def start_marker():
    return None


@task.sensor(poke_interval=5)
def wait_for_file():
    return True


with DAG(dag_id="marker", schedule=None):
    start_marker() >> wait_for_file()
