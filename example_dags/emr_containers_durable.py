"""EMR on EKS: run a Spark job on a virtual cluster, crash-safe.

Use when: your Spark jobs run on EKS through EMR on EKS. StartJobRun's clientToken is the mixin's
submission token - the same on every try of one generation, so a lost submission is answered with
its run, and a new one after a failed run, so a retry is never handed the failed run back.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.amazon import EmrContainerOperator

with DAG(
    dag_id="example_emr_containers_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "emr-on-eks"],
):
    EmrContainerOperator(
        task_id="daily_sessions",
        name="daily-sessions-{{ ds_nodash }}",
        virtual_cluster_id="abcdefghijklmnopqrstuvwxy",
        execution_role_arn="arn:aws:iam::123456789012:role/emr-eks-job",
        release_label="emr-7.1.0-latest",
        job_driver={
            "sparkSubmitJobDriver": {
                "entryPoint": "s3://analytics/jobs/daily_sessions.py",
                "entryPointArguments": ["--date", "{{ ds }}"],
            }
        },
        poll_interval=60,
        aws_conn_id="aws_default",
        region_name="eu-west-1",
        retries=3,
    )
