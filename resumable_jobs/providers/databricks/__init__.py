"""Crash-safe Databricks operators: drop-in for the upstream operators of the same name.

``from resumable_jobs.providers.databricks import DatabricksSubmitRunOperator`` (or
``DatabricksRunNowOperator``) instead of ``airflow.providers.databricks.operators.databricks``.
Importing this package loads neither the Databricks provider nor aiohttp: the hook and the trigger
are imported when a task runs.
"""

from __future__ import annotations

from resumable_jobs.providers.databricks.links import DatabricksRunPageLink
from resumable_jobs.providers.databricks.run_now import DatabricksRunNowOperator
from resumable_jobs.providers.databricks.submit_run import DatabricksSubmitRunOperator

__all__ = [
    "DatabricksRunNowOperator",
    "DatabricksRunPageLink",
    "DatabricksSubmitRunOperator",
]
