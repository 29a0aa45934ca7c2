"""The job-lifecycle table on SparkSubmitOperator: which drivers the master was asked to kill.

The kit's cases end a try the ways production ends it (SIGTERM with the Execution API answering
``running``/``failed``/nothing, ``execution_timeout``, a poll error on the first or last try, a
worker dying on its last try); here the fake master tells which drivers were really killed.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, run_lifecycle_case


def _factory(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "/apps/job.py")
    kwargs.setdefault("status_poll_interval", 0)
    return lambda: SparkSubmitOperator(**kwargs)


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_drivers_are_killed_exactly_where_the_lifecycle_table_says(master, durable):
    master.running_polls = 4
    outcomes = assert_job_lifecycle(_factory(durable=durable))
    killed = [o.job_id for o in outcomes if o.cancelled]
    assert master.kills == killed
    assert {master.drivers[d].state for d in killed} == {"KILLED"}
    kept = [o.job_id for o in outcomes if not o.cancelled]
    assert all(master.drivers[d].state == "FINISHED" for d in kept)  # the retry followed it to the end


@pytest.mark.durable_only
def test_a_kept_driver_is_named_in_one_warning_that_says_the_retry_reconnects(master, task_logs):
    master.running_polls = 4
    outcome = run_lifecycle_case(_factory(), LifecycleCase.WORKER_SHUTDOWN)
    (warning,) = [w for w in task_logs.at("warning") if outcome.job_id in w]
    assert "The worker is shutting down: keeping job" in warning
    assert "the retry reconnects to the job" in warning
    assert master.kills == []


@pytest.mark.durable_only
def test_cancel_on_worker_shutdown_restores_the_kill_on_sigterm(master):
    master.running_polls = 4
    outcome = run_lifecycle_case(_factory(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert master.kills == [outcome.job_id]


def test_a_clear_runs_one_new_driver_under_both_clear_behaviours(master):
    """Issue 25: clearing keeps task_state_store (3.3.2) or discards it (#72100); a running driver is killed."""
    from resumable_jobs.testing import assert_clear_semantics

    master.running_polls = 4
    outcomes = assert_clear_semantics(_factory())
    assert master.kills == [o.first_job for o in outcomes if o.while_running]
    assert all(master.drivers[o.last_job].state == "FINISHED" for o in outcomes)
