"""EMR Serverless: start a Spark job run, crash-safe, including the submit-to-checkpoint window.

Use when: you run Spark or Hive on an EMR Serverless application. StartJobRun's clientToken is the
mixin's submission token, so a retry after a worker crash either reconnects to the stored run or,
if the crash came before the run id was stored, repeats StartJobRun and gets the same run back.
A failed run is followed by a new one with a new token.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.amazon import EmrServerlessStartJobOperator

with DAG(
    dag_id="example_emr_serverless_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "emr-serverless"],
):
    EmrServerlessStartJobOperator(
        task_id="daily_aggregates",
        application_id="00fabc123def4567",
        execution_role_arn="arn:aws:iam::123456789012:role/emr-serverless-job",
        job_driver={
            "sparkSubmit": {
                "entryPoint": "s3://analytics/jobs/daily_aggregates.py",
                "entryPointArguments": ["--date", "{{ ds }}"],
            }
        },
        configuration_overrides={
            "monitoringConfiguration": {"s3MonitoringConfiguration": {"logUri": "s3://analytics/emr-logs/"}}
        },
        deferrable=True,  # waits in the triggerer (EmrServerlessJobRunTrigger); a retry defers again to the same run
        aws_conn_id="aws_default",
        region_name="eu-west-1",
        retries=3,
    )
