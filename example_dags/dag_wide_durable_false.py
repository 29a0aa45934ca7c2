"""Turn crash recovery off for a whole DAG with ``default_args={"durable": False}``.

Use when: the DAG runs in a test environment, or the external system already deduplicates
submissions on its own and you want no ``task_state_store`` traffic. Every task then submits a
new job on every try - make that a deliberate choice (spec section 8).
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.spark import SparkSubmitOperator

with DAG(
    dag_id="example_dag_wide_durable_false",
    schedule=None,
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    default_args={"durable": False, "retries": 1},
    tags=["resumable-jobs"],
):
    SparkSubmitOperator(task_id="smoke_test", application="/opt/jobs/smoke_test.py", conn_id="spark_default")
