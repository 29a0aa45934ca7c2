"""Databricks: a one-time run (runs/submit), crash-safe on the synchronous path.

Use when: you submit notebook or jar runs from Airflow. The run id is checkpointed before
polling; a crash between submission and checkpoint is recovered through the run's
``idempotency_token`` (the mixin's submission token), so a retry never starts a second run.
Only the import line differs from the upstream operator.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_databricks_submit_run_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "databricks"],
):
    DatabricksSubmitRunOperator(
        task_id="nightly_notebook",
        databricks_conn_id="databricks_default",
        tasks=[
            {
                "task_key": "nightly",
                "notebook_task": {"notebook_path": "/Shared/nightly", "base_parameters": {"date": "{{ ds }}"}},
                "new_cluster": {"spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge", "num_workers": 2},
            }
        ],
        retries=3,
    )
