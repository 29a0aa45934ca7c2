"""Crash-safe dbt Cloud operator: drop-in for the upstream operator of the same name.

``from resumable_jobs.providers.dbt import DbtCloudRunJobOperator`` instead of
``airflow.providers.dbt.cloud.operators.dbt``. Importing this package loads neither the dbt Cloud
provider nor requests or aiohttp: the hook and the trigger are imported when a task runs.
"""

from __future__ import annotations

from resumable_jobs.providers.dbt.links import DbtCloudRunJobOperatorLink
from resumable_jobs.providers.dbt.operator import DbtCloudRunJobOperator

__all__ = ["DbtCloudRunJobOperator", "DbtCloudRunJobOperatorLink"]
