"""RJ009 positives: a durable operator whose request changes on every try."""

import uuid

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG, BaseOperator, ResumableJobMixin

from resumable_jobs.providers.amazon import BatchOperator


class WarehouseLoadOperator(BaseOperator, ResumableJobMixin):
    external_id_key = "load_job_id"

    def execute(self, context):
        return self.execute_resumable(context)


with DAG(dag_id="per_try_requests", schedule=None):
    DatabricksSubmitRunOperator(task_id="nightly", run_name="nightly-{{ ti.try_number }}", tasks=[])
    BatchOperator(
        task_id="export",
        job_name=f"export-{uuid.uuid4()}",
        job_queue="q",
        job_definition="d",
    )
    WarehouseLoadOperator(task_id="load", params={"started": "{{ macros.datetime.now() }}"})
