"""BigQuery: run a query job, crash-safe with deterministic job ids.

Use when: a long query or load job must not run twice. The job id is derived from the mixin's
submission token, so a resubmission after a lost id is refused by BigQuery as a duplicate
(409) and the retry reconnects to the job that is already running.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.google import BigQueryInsertJobOperator

with DAG(
    dag_id="example_bigquery_insert_job_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "bigquery"],
):
    BigQueryInsertJobOperator(
        task_id="rebuild_daily_revenue",
        configuration={
            "query": {
                "query": "SELECT order_date, SUM(amount) AS revenue FROM shop.orders GROUP BY order_date",
                "useLegacySql": False,
                "destinationTable": {"projectId": "my-project", "datasetId": "reporting", "tableId": "daily_revenue"},
                "writeDisposition": "WRITE_TRUNCATE",
            }
        },
        location="EU",
        gcp_conn_id="google_cloud_default",
        retries=3,
    )
