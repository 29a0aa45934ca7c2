"""AWS Glue: run a Glue job, crash-safe, including the window between StartJobRun and the checkpoint.

Use when: your Spark ETL runs as an AWS Glue job. Every run carries the mixin's submission token
in its arguments (``--resumable-jobs-token``); a retry reconnects to the stored run, finds an
unstored one by that token, and answers Glue's ConcurrentRunsExceeded by following its own run.
The triggerer waits for the run (``deferrable=True``), the worker is free meanwhile.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.amazon import GlueJobOperator

with DAG(
    dag_id="example_glue_job_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "aws-glue"],
):
    GlueJobOperator(
        task_id="load_orders",
        job_name="load-orders",
        script_location="s3://etl-scripts/load_orders.py",
        iam_role_name="glue-etl",
        script_args={"--day": "{{ ds }}"},
        create_job_kwargs={"GlueVersion": "4.0", "WorkerType": "G.1X", "NumberOfWorkers": 4},
        deferrable=True,
        aws_conn_id="aws_default",
        region_name="eu-west-1",
        retries=3,
    )
