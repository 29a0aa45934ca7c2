"""The operator as a DAG would declare it, tuned for tests (no sleeping between polls)."""

from __future__ import annotations

from typing import Any

from resumable_jobs.providers.dbt import DbtCloudRunJobOperator

STORE_KEY = "dbt_cloud_run_id"
JOB = 101


def run_job(**kwargs: Any) -> DbtCloudRunJobOperator:
    kwargs.setdefault("task_id", "transform")
    if not {"project_name", "environment_name", "job_name"} & set(kwargs):
        kwargs.setdefault("job_id", JOB)
    kwargs.setdefault("check_interval", 0)
    return DbtCloudRunJobOperator(**kwargs)
