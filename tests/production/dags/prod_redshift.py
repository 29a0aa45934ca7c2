"""Production-suite DAGs on the Redshift Data API in moto_server (our model: statements held STARTED).

The real ``RedshiftDataHook`` and our ``RedshiftDataStatementTrigger`` reach moto_server through
AIRFLOW_CONN_AWS_DEFAULT. The drill's backend holds statements STARTED (moto's state manager,
see ``resumable_jobs.local.moto_models.redshift_data``) until it releases them.
"""

from __future__ import annotations

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.amazon import RedshiftDataOperator

STATEMENT = {
    "sql": "INSERT INTO sales SELECT * FROM staging.sales",
    "database": "dev",
    "cluster_identifier": "rj-prod-cluster",
    "aws_conn_id": "aws_default",
    "poll_interval": 1,
}

with DAG("prod_redshift_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    RedshiftDataOperator(task_id="job", **STATEMENT)

with DAG("prod_redshift_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    RedshiftDataOperator(task_id="job", deferrable=True, **STATEMENT)
