"""Databricks: trigger an existing job (jobs/run-now), crash-safe.

Use when: the job is defined in Databricks and Airflow only triggers it. A reconnecting retry
never cancels the run it reconnects to, even with ``cancel_previous_runs=True``.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.databricks import DatabricksRunNowOperator

with DAG(
    dag_id="example_databricks_run_now_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "databricks"],
):
    DatabricksRunNowOperator(
        task_id="refresh_gold_tables",
        databricks_conn_id="databricks_default",
        job_id=1234,
        job_parameters={"run_date": "{{ ds }}"},
        retries=3,
    )
