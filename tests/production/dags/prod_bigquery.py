"""Production-suite DAGs on the BigQuery stand-in (a process of its own, held jobs).

The real ``BigQueryHook``, google-cloud-bigquery client and ``BigQueryInsertJobTrigger`` reach the
stand-in through AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT (a service-account key whose token endpoint is
the stand-in) and BIGQUERY_EMULATOR_HOST; a job stays RUNNING until the drill releases it.
"""

from __future__ import annotations

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.google import BigQueryInsertJobOperator

JOB = {
    "configuration": {"query": {"query": "SELECT 1", "useLegacySql": False}},
    "location": "EU",
    "poll_interval": 1,
}

with DAG("prod_bigquery_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    BigQueryInsertJobOperator(task_id="job", **JOB)

with DAG("prod_bigquery_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    BigQueryInsertJobOperator(task_id="job", deferrable=True, **JOB)
