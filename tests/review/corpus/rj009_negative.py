"""RJ009 near misses: run-scoped values, non-durable operators, durable=False."""

import uuid

from airflow.providers.amazon.aws.operators.batch import BatchOperator as UpstreamBatch
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG

with DAG(dag_id="run_scoped", schedule=None):
    # The same on every try of a run: exactly what reconnecting needs.
    DatabricksSubmitRunOperator(task_id="daily", run_name="daily-{{ ds }}-{{ run_id }}", tasks=[])
    # Upstream's Batch operator is not durable: nothing to reconnect to.
    UpstreamBatch(task_id="export", job_name=f"export-{uuid.uuid4()}", job_queue="q", job_definition="d")
    # Durability switched off on purpose.
    DatabricksSubmitRunOperator(task_id="adhoc", durable=False, run_name="adhoc-{{ ti.try_number }}", tasks=[])
    # try_number in a field that is not part of the request.
    DatabricksSubmitRunOperator(task_id="doc", doc_md="try {{ ti.try_number }}", tasks=[])
