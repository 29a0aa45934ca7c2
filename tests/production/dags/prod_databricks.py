"""Production-suite DAGs on the Databricks stand-in (a process of its own, held runs).

The real ``DatabricksHook`` and ``DatabricksExecutionTrigger`` reach the stand-in through
AIRFLOW_CONN_DATABRICKS_DEFAULT; a run stays RUNNING until the drill releases it.
"""

from __future__ import annotations

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.databricks import DatabricksSubmitRunOperator

RUN = {
    "tasks": [{"task_key": "etl", "notebook_task": {"notebook_path": "/Shared/etl"}, "existing_cluster_id": "0101-x"}],
    "run_name": "rj-prod",
    "polling_period_seconds": 1,
    "databricks_retry_limit": 3,
    "databricks_retry_delay": 1,
}

with DAG("prod_databricks_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    DatabricksSubmitRunOperator(task_id="job", **RUN)

with DAG("prod_databricks_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    DatabricksSubmitRunOperator(task_id="job", deferrable=True, **RUN)
