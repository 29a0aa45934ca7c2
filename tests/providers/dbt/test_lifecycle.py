"""The job-lifecycle table on the dbt Cloud operator: which runs got "Cancel Run"."""

from __future__ import annotations

import pytest

from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, run_lifecycle_case
from tests.providers.dbt.builders import run_job


@pytest.fixture
def long_runs(dbt_cloud):
    """Runs stay active for more reads than a try and its retry make before the end of the poll."""
    dbt_cloud.active_reads = 8
    return dbt_cloud


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_runs_are_cancelled_exactly_where_the_lifecycle_table_says(long_runs, durable):
    outcomes = assert_job_lifecycle(lambda: run_job(durable=durable))
    cancelled = [o.job_id for o in outcomes if o.cancelled]
    assert long_runs.cancels == cancelled
    assert {long_runs.runs[r].status for r in cancelled} == {30}
    kept = [o.job_id for o in outcomes if not o.cancelled]
    assert all(long_runs.runs[r].status == 10 for r in kept)  # the retry followed it to its end
    assert len(long_runs.triggers) == len(outcomes)  # one run per case: no retry triggered another


@pytest.mark.durable_only
def test_cancel_on_worker_shutdown_restores_the_cancel_on_sigterm(long_runs):
    outcome = run_lifecycle_case(lambda: run_job(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert long_runs.cancels == [outcome.job_id]


def test_a_clear_runs_one_new_run_under_both_clear_behaviours(long_runs):
    """Issue 25: clearing keeps task_state_store or discards it; a running run is cancelled, never reused."""
    from resumable_jobs.testing import assert_clear_semantics

    outcomes = assert_clear_semantics(lambda: run_job())
    assert long_runs.cancels == [o.first_job for o in outcomes if o.while_running]
    assert all(long_runs.runs[o.last_job].status == 10 for o in outcomes)
