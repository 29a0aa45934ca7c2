"""AWS Batch: submit a job, crash-safe, including the submit-to-checkpoint window.

Use when: you run containers on AWS Batch. Every job is tagged with the mixin's submission token;
a retry that finds no checkpointed id looks the job up by that tag in the queue and reconnects to
it, so a crash right after SubmitJob never leaves a duplicate.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.amazon import BatchOperator

with DAG(
    dag_id="example_batch_job_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "aws-batch"],
):
    BatchOperator(
        task_id="score_customers",
        job_name="score-customers",
        job_queue="analytics-queue",
        job_definition="score-customers:3",
        container_overrides={"command": ["python", "score.py", "--date", "{{ ds }}"]},
        aws_conn_id="aws_default",
        region_name="eu-west-1",
        retries=3,
    )
