"""The job-lifecycle table on BigQueryInsertJobOperator: which jobs got ``jobs.cancel``."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.google import BigQueryInsertJobOperator
from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, run_lifecycle_case

QUERY = {"query": {"query": "SELECT 1", "useLegacySql": False}}


def _factory(**kwargs):
    kwargs.setdefault("task_id", "load_orders")
    kwargs.setdefault("configuration", QUERY)
    kwargs.setdefault("poll_interval", 0)
    return lambda: BigQueryInsertJobOperator(**kwargs)


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_jobs_are_cancelled_exactly_where_the_lifecycle_table_says(bigquery, durable):
    bigquery.gets_until_done = 6
    outcomes = assert_job_lifecycle(_factory(durable=durable))
    cancelled = [o.job_id for o in outcomes if o.cancelled]
    assert bigquery.cancels == cancelled
    assert all("errorResult" not in bigquery.jobs[o.job_id].resource["status"] for o in outcomes if not o.cancelled)


def test_cancel_on_kill_false_never_cancels_and_says_why(bigquery, task_logs):
    bigquery.gets_until_done = 6
    for case in (LifecycleCase.STOPPED_ON_PURPOSE, LifecycleCase.EXECUTION_TIMEOUT, LifecycleCase.FAILED_LAST_TRY):
        outcome = run_lifecycle_case(_factory(cancel_on_kill=False), case)
        assert not outcome.cancelled
        assert "errorResult" not in bigquery.jobs[outcome.job_id].resource["status"]  # not stopped
    assert bigquery.cancels == []
    # each time the rule said "cancel", the log says why it did not happen
    assert sum("because cancel_on_kill=False" in w for w in task_logs.at("warning")) == 3


@pytest.mark.durable_only
def test_cancel_on_worker_shutdown_restores_the_cancel_on_sigterm(bigquery):
    bigquery.gets_until_done = 6
    outcome = run_lifecycle_case(_factory(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert bigquery.cancels == [outcome.job_id]


def test_a_clear_runs_one_new_job_under_both_clear_behaviours(bigquery):
    """Issue 25: clearing keeps task_state_store (3.3.2) or discards it (#72100); a running job is cancelled."""
    from resumable_jobs.testing import assert_clear_semantics

    bigquery.gets_until_done = 6
    outcomes = assert_clear_semantics(_factory())
    assert bigquery.cancels == [o.first_job for o in outcomes if o.while_running]
    assert all("errorResult" not in bigquery.jobs[o.last_job].resource["status"] for o in outcomes)
