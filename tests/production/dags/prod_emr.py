"""Production-suite DAGs on EMR Serverless and EMR on EKS in moto_server (our moto models).

The real ``EmrServerlessHook`` / ``EmrContainerHook`` and our ``EmrServerlessJobRunTrigger``
/ ``EmrContainerJobRunTrigger`` reach moto_server through AIRFLOW_CONN_AWS_DEFAULT. The application and
virtual cluster come from RJ_PROD_EMR_APPLICATION and RJ_PROD_EMR_VIRTUAL_CLUSTER; job runs stay
RUNNING until the drill releases them (moto's state manager, progression ``hold``).
"""

from __future__ import annotations

import os

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.amazon import EmrContainerOperator, EmrServerlessStartJobOperator

ROLE = "arn:aws:iam::123456789012:role/rj-prod-emr"
SERVERLESS = {
    "application_id": os.environ.get("RJ_PROD_EMR_APPLICATION", "unset"),
    "execution_role_arn": ROLE,
    "job_driver": {"sparkSubmit": {"entryPoint": "s3://rj-prod/etl.py"}},
    "aws_conn_id": "aws_default",
    "waiter_delay": 1,
    "waiter_max_attempts": 600,
}
CONTAINERS = {
    "name": "rj-prod",
    "virtual_cluster_id": os.environ.get("RJ_PROD_EMR_VIRTUAL_CLUSTER", "unset"),
    "execution_role_arn": ROLE,
    "release_label": "emr-6.15.0-latest",
    "job_driver": {"sparkSubmitJobDriver": {"entryPoint": "s3://rj-prod/etl.py"}},
    "aws_conn_id": "aws_default",
    "poll_interval": 1,
}

with DAG("prod_emr_serverless_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    EmrServerlessStartJobOperator(task_id="job", **SERVERLESS)

with DAG("prod_emr_serverless_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    EmrServerlessStartJobOperator(task_id="job", deferrable=True, **SERVERLESS)

with DAG("prod_emr_containers_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    EmrContainerOperator(task_id="job", **CONTAINERS)

with DAG("prod_emr_containers_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    EmrContainerOperator(task_id="job", deferrable=True, **CONTAINERS)
