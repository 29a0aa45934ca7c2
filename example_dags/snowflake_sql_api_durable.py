"""Snowflake: several SQL statements through the SQL API, crash-safe on every path.

Use when: a long statement (a MERGE, a CTAS, a backfill INSERT) must not run twice because a
worker died. The statement handles are checkpointed before polling; a crash between Snowflake
accepting the request and the checkpoint is recovered through the request's ``requestId`` (derived
from the mixin's submission token): the retry resubmits with ``retry=true`` and Snowflake hands
back the same statements instead of running them again. Only the import line differs from the
upstream operator. ``deferrable=True`` waits in the triggerer (upstream's trigger, status reads off the event loop).
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator

with DAG(
    dag_id="example_snowflake_sql_api_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "snowflake"],
):
    SnowflakeSqlApiOperator(
        task_id="merge_orders",
        snowflake_conn_id="snowflake_default",
        sql=(
            "BEGIN; "
            "MERGE INTO orders o USING staged_orders s ON o.id = s.id "
            "WHEN MATCHED THEN UPDATE SET o.amount = s.amount "
            "WHEN NOT MATCHED THEN INSERT (id, amount) VALUES (s.id, s.amount); "
            "DELETE FROM staged_orders WHERE load_date = '{{ ds }}'; "
            "COMMIT"
        ),
        statement_count=4,
        warehouse="TRANSFORM_WH",
        deferrable=True,
        poll_interval=30,
        retries=3,
    )
