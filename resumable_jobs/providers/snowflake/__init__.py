"""Crash-safe Snowflake SQL API operator: drop-in for the upstream operator of the same name.

``from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator`` instead of
``airflow.providers.snowflake.operators.snowflake``. Importing this package loads neither the
Snowflake provider nor its connector, requests or aiohttp: the hook and the trigger are imported
when a task runs.
"""

from __future__ import annotations

from resumable_jobs.providers.snowflake.sql_api import SnowflakeSqlApiOperator

__all__ = ["SnowflakeSqlApiOperator"]
