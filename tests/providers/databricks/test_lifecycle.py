"""The job-lifecycle table on both Databricks operators: which runs got ``runs/cancel``."""

from __future__ import annotations

import pytest

from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, run_lifecycle_case
from tests.providers.databricks.builders import OPERATORS


@pytest.fixture
def long_runs(workspace):
    """Runs stay RUNNING for more reads than a try and its retry make before the end of the poll."""
    workspace.active_reads = 8
    return workspace


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_runs_are_cancelled_exactly_where_the_lifecycle_table_says(long_runs, make, endpoint, key, durable):
    outcomes = assert_job_lifecycle(lambda: make(durable=durable))
    cancelled = [o.job_id for o in outcomes if o.cancelled]
    assert [call["run_id"] for call in long_runs.calls("runs/cancel")] == cancelled
    assert {long_runs.runs[r].result for r in cancelled} == {"CANCELED"}
    assert all(long_runs.runs[o.job_id].result == "SUCCESS" for o in outcomes if not o.cancelled)


@pytest.mark.durable_only
@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_cancel_on_worker_shutdown_restores_the_cancel_on_sigterm(long_runs, make, endpoint, key):
    outcome = run_lifecycle_case(lambda: make(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert long_runs.calls("runs/cancel") == [{"run_id": outcome.job_id}]


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_a_clear_runs_one_new_run_under_both_clear_behaviours(long_runs, make, endpoint, key):
    """Issue 25: clearing keeps task_state_store (3.3.2) or discards it (#72100); a running run is cancelled."""
    from resumable_jobs.testing import assert_clear_semantics

    outcomes = assert_clear_semantics(lambda: make())
    cancelled = [o.first_job for o in outcomes if o.while_running]
    assert [call["run_id"] for call in long_runs.calls("runs/cancel")] == cancelled
    assert all(long_runs.runs[o.last_job].result == "SUCCESS" for o in outcomes)
