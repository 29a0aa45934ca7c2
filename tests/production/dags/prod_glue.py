"""Production-suite DAGs on AWS Glue in moto_server (runs held RUNNING until the drill releases them).

The real ``GlueJobHook`` and ``GlueJobCompleteTrigger`` reach moto_server through
AIRFLOW_CONN_AWS_DEFAULT; ``resumable_jobs.local.moto_models.glue`` (installed in the server
process) holds each run RUNNING until the drill releases it (see tests/production/backends.py).
"""

from __future__ import annotations

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.amazon import GlueJobOperator

RUN = {
    "job_name": "rj-prod-glue",
    "script_location": "s3://rj-prod/etl.py",
    "iam_role_arn": "arn:aws:iam::123456789012:role/rj-prod-glue",
    "aws_conn_id": "aws_default",
    "concurrent_run_limit": 4,  # a drill that fails leaves no slot problem for the next one
    "job_poll_interval": 1,
    "waiter_delay": 1,
    "waiter_max_attempts": 900,
}

with DAG("prod_glue_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    GlueJobOperator(task_id="job", **RUN)

with DAG("prod_glue_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    GlueJobOperator(task_id="job", deferrable=True, **RUN)
