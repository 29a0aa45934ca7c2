"""RJ006 positives: deferrable=True with the wait switched off."""

from airflow.providers.amazon.aws.operators.batch import BatchOperator
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG

with DAG(dag_id="deferred_nothing", schedule=None):
    DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[],
        deferrable=True,
        wait_for_termination=False,
    )
    BatchOperator(task_id="batch", job_name="j", job_queue="q", job_definition="d",
                  wait_for_completion=False, deferrable=True)
