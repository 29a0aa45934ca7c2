"""Production-suite DAGs on the dbt Cloud stand-in (a process of its own, over TLS, held runs).

The real ``DbtCloudHook`` and ``DbtCloudRunJobTrigger`` reach the stand-in through
AIRFLOW_CONN_DBT_CLOUD_DEFAULT (tenant 127.0.0.1:<port>) and trust its certificate through
REQUESTS_CA_BUNDLE / SSL_CERT_FILE; a run stays RUNNING until the drill releases it.
"""

from __future__ import annotations

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.dbt import DbtCloudRunJobOperator

RUN = {"job_id": 101, "check_interval": 1, "hook_params": {"retry_limit": 3, "retry_delay": 1}}

with DAG("prod_dbt_cloud_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    DbtCloudRunJobOperator(task_id="job", **RUN)

with DAG("prod_dbt_cloud_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    DbtCloudRunJobOperator(task_id="job", deferrable=True, **RUN)
