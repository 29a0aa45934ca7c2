"""The job-lifecycle table on GlueJobOperator: which runs got BatchStopJobRun (moto, runs kept running).

``stop_job_run_on_kill`` keeps its upstream meaning when given: False never stops a run, True
stops it on every kill (a worker's SIGTERM included); None (the default here) is the lifecycle rule.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import GlueJobOperator
from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, run_lifecycle_case
from tests.providers.amazon.glue.conftest import JOB, REGION, ROLE_ARN, SCRIPT


def _factory(**kwargs):
    kwargs.setdefault("task_id", "glue")
    return lambda: GlueJobOperator(
        job_name=JOB,
        script_location=SCRIPT,
        iam_role_arn=ROLE_ARN,
        aws_conn_id=None,
        region_name=REGION,
        job_poll_interval=0,
        concurrent_run_limit=20,  # every case is a task instance of its own, with a run of its own
        **kwargs,
    )


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_runs_are_stopped_exactly_where_the_lifecycle_table_says(moto_glue, durable):
    moto_glue.pace(3)  # moto's own progression: a run is active for a few reads, then SUCCEEDED
    outcomes = assert_job_lifecycle(_factory(durable=durable))
    for outcome in outcomes:
        state = moto_glue.settled_state(outcome.job_id)
        assert state == ("STOPPED" if outcome.cancelled else "SUCCEEDED"), (outcome.case, state)
    assert len(moto_glue.runs()) == len(outcomes)  # one run per case: no retry started another


def test_stop_job_run_on_kill_false_never_stops_and_says_why(moto_glue, task_logs):
    moto_glue.pace(3)
    cases = (LifecycleCase.STOPPED_ON_PURPOSE, LifecycleCase.EXECUTION_TIMEOUT, LifecycleCase.FAILED_LAST_TRY)
    for case in cases:
        outcome = run_lifecycle_case(_factory(stop_job_run_on_kill=False), case)
        assert not outcome.cancelled, case
        # never stopped (upstream's default): it runs on to the end, followed by a retry or by nobody
        assert moto_glue.settled_state(outcome.job_id) not in ("STOPPING", "STOPPED"), case
    assert sum("because stop_job_run_on_kill=False" in w for w in task_logs.at("warning")) == len(cases)


@pytest.mark.durable_only
def test_stop_job_run_on_kill_none_keeps_the_run_on_worker_shutdown(moto_glue):
    moto_glue.pace(3)
    outcome = run_lifecycle_case(_factory(), LifecycleCase.WORKER_SHUTDOWN)
    assert not outcome.cancelled and outcome.jobs == 1
    assert moto_glue.state(outcome.job_id) == "SUCCEEDED"  # the retry followed it to the end


def test_stop_job_run_on_kill_true_stops_the_run_on_worker_shutdown_too(moto_glue):
    moto_glue.hold()
    outcome = run_lifecycle_case(_factory(stop_job_run_on_kill=True), LifecycleCase.WORKER_SHUTDOWN)
    assert outcome.cancelled_ids == [outcome.job_id]
    assert moto_glue.settled_state(outcome.job_id) == "STOPPED"


def test_stop_of_a_finished_run_is_logged_not_raised(moto_glue, task_logs):
    from resumable_jobs.testing import make_context

    op = _factory()()
    moto_glue.create_job()
    run_id = moto_glue.client.start_job_run(JobName=JOB)["JobRunId"]
    assert moto_glue.state(run_id) == "SUCCEEDED"
    op.cancel_job(run_id, make_context())
    assert any("Glue did not stop job run" in e and "InvalidInputException" in e for e in task_logs.at("error"))


def test_the_stand_in_serves_upstreams_own_stop_on_kill(moto_glue):
    """Evidence for the model's BatchStopJobRun: upstream's operator, unchanged, stops its run through it."""
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator as Upstream

    from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context

    moto_glue.hold()
    upstream = Upstream(
        task_id="glue",
        job_name=JOB,
        script_location=SCRIPT,
        iam_role_arn=ROLE_ARN,
        aws_conn_id=None,
        region_name=REGION,
        wait_for_completion=False,
        stop_job_run_on_kill=True,
    )
    upstream.execute(make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    (run_id,) = moto_glue.run_ids()
    assert moto_glue.state(run_id) == "RUNNING"
    upstream.on_kill()
    assert moto_glue.settled_state(run_id) == "STOPPED"
