"""Production-suite DAGs on the Snowflake SQL API stand-in (a process of its own, held statements).

The real ``SnowflakeSqlApiHook`` and ``SnowflakeSqlApiTrigger`` reach the stand-in through
AIRFLOW_CONN_SNOWFLAKE_DEFAULT (key-pair JWT auth with a key the stand-in registered) and the
``sitecustomize`` on PYTHONPATH that routes ``*.snowflakecomputing.com`` to it; the statements stay
running until the drill releases them. Two statements per request: the job id is the list of handles.
"""

from __future__ import annotations

from airflow.sdk import DAG
from prod_support import RETRY_ARGS, START

from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator

JOB = {"sql": "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)", "statement_count": 2, "poll_interval": 1}

with DAG("prod_snowflake_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    SnowflakeSqlApiOperator(task_id="job", **JOB)

with DAG("prod_snowflake_deferrable", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    SnowflakeSqlApiOperator(task_id="job", deferrable=True, **JOB)
