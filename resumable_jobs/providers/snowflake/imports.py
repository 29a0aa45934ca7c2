"""Where the installed Snowflake provider keeps the SQL API hook, imported on first use.

The hook lives in ``airflow.providers.snowflake.hooks.sql_api`` from provider 6.20 on and in
``hooks.snowflake_sql_api`` before (6.20 keeps the old name as a deprecated alias, which warns).
Importing the new location first keeps tasks on every supported provider version free of that
warning. Called inside methods only: an operator module never imports the provider.
"""

from __future__ import annotations

from typing import Any

__all__ = ["sql_api_hook_class"]


def sql_api_hook_class() -> Any:
    """``SnowflakeSqlApiHook`` of the installed provider."""
    try:
        from airflow.providers.snowflake.hooks.sql_api import SnowflakeSqlApiHook
    except ImportError:
        from airflow.providers.snowflake.hooks.snowflake_sql_api import SnowflakeSqlApiHook
    return SnowflakeSqlApiHook
