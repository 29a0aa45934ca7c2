"""Operators as a DAG would declare them, tuned for tests (no sleeping between polls)."""

from __future__ import annotations

from typing import Any

import pytest

from resumable_jobs.providers.databricks import (
    DatabricksRunNowOperator,
    DatabricksSubmitRunOperator,
)

NOTEBOOK_TASKS = [
    {
        "task_key": "etl",
        "notebook_task": {"notebook_path": "/Shared/etl"},
        "existing_cluster_id": "c-1",
    }
]


def submit_run(**kwargs: Any) -> DatabricksSubmitRunOperator:
    kwargs.setdefault("task_id", "run_job")
    kwargs.setdefault("tasks", NOTEBOOK_TASKS)
    kwargs.setdefault("polling_period_seconds", 0)
    kwargs.setdefault("databricks_retry_limit", 1)
    return DatabricksSubmitRunOperator(**kwargs)


def run_now(**kwargs: Any) -> DatabricksRunNowOperator:
    kwargs.setdefault("task_id", "run_nightly")
    kwargs.setdefault("job_id", 7)
    kwargs.setdefault("polling_period_seconds", 0)
    kwargs.setdefault("databricks_retry_limit", 1)
    return DatabricksRunNowOperator(**kwargs)


#: Both operators, for tests that hold for each: (builder, endpoint that starts its runs, store key).
OPERATORS = [
    pytest.param(submit_run, "runs/submit", "databricks_run_id", id="SubmitRun"),
    pytest.param(run_now, "run-now", "databricks_run_now_id", id="RunNow"),
]
