"""The job-lifecycle table on BatchOperator: which jobs got TerminateJob (moto, jobs kept running)."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import BatchOperator
from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, run_lifecycle_case
from tests.providers.amazon.conftest import DEFINITION, JOB_NAME, QUEUE, REGION


def _factory(**kwargs):
    kwargs.setdefault("task_id", "batch")
    return lambda: BatchOperator(
        job_name=JOB_NAME,
        job_queue=QUEUE,
        job_definition=DEFINITION,
        aws_conn_id=None,
        region_name=REGION,
        poll_interval=0,
        **kwargs,
    )


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_jobs_are_terminated_exactly_where_the_lifecycle_table_says(moto_batch_long_jobs, durable):
    outcomes = assert_job_lifecycle(_factory(durable=durable))
    for outcome in outcomes:
        job = moto_batch_long_jobs.describe(outcome.job_id)
        if outcome.cancelled:
            assert job["status"] == "FAILED", outcome.case
            assert job["statusReason"].startswith("Cancelled by Airflow"), outcome.case
        else:
            assert job["status"] == "SUCCEEDED", outcome.case  # the retry followed it to the end
    assert len(moto_batch_long_jobs.jobs()) == len(outcomes)  # one job per case: no retry resubmitted


@pytest.mark.durable_only
def test_cancel_on_worker_shutdown_restores_the_terminate_on_sigterm(moto_batch_long_jobs):
    outcome = run_lifecycle_case(_factory(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert moto_batch_long_jobs.describe(outcome.job_id)["status"] == "FAILED"


def test_a_cleared_batch_task_runs_one_new_job_under_both_clear_behaviours(moto_batch_long_jobs):
    """Issue 25: clearing keeps task_state_store (3.3.2) or discards it (#72100); either way one new job."""
    from resumable_jobs.testing import assert_clear_semantics

    outcomes = assert_clear_semantics(_factory())
    for outcome in outcomes:
        first = moto_batch_long_jobs.describe(outcome.first_job)
        assert first["status"] == ("FAILED" if outcome.while_running else "SUCCEEDED")
        assert moto_batch_long_jobs.describe(outcome.last_job)["status"] == "SUCCEEDED"
    assert len(moto_batch_long_jobs.jobs()) == 2 * len(outcomes)
