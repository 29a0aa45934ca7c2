"""BatchOperator with jobs that stay SUBMITTED...RUNNING (transport: botocore ``Stubber``).

moto never shows an active Batch job, so these tests queue DescribeJobs answers on a real boto3
client behind the real ``BatchClientHook``. Responses are consumed in call order; a SubmitJob
that was not queued makes the Stubber raise, so "one job" is enforced by the transport itself,
and ``assert_no_pending_responses`` checks the operator asked for what the scenario needed.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.amazon import BatchOperator
from resumable_jobs.testing import CrashPoint, FakeTaskInstance, InMemoryTaskStateStore, crash_at, make_context, run_try
from tests.providers.amazon.conftest import DEFINITION, JOB_NAME, QUEUE, REGION

ID_KEY = "batch_job_id"
JOB = "4c7e0a7e-0000-4000-8000-00000000b001"


def _op(**kwargs):
    kwargs.setdefault("task_id", "batch")
    return BatchOperator(
        job_name=JOB_NAME,
        job_queue=QUEUE,
        job_definition=DEFINITION,
        aws_conn_id=None,
        region_name=REGION,
        poll_interval=0,
        **kwargs,
    )


def _first_try_crashes(stubbed, point, store, ti, **kwargs):
    """Try 1: SubmitJob, DescribeJobs for the links (once the id is persisted), then the worker dies."""
    stubbed.expect_submit(JOB)
    if point is not CrashPoint.AFTER_PERSIST:  # that crash comes before the links are built
        stubbed.expect_describe(JOB, "RUNNABLE")
    first = _op(**kwargs)
    with crash_at(first, point, store), pytest.raises(BaseException, match="simulated worker crash"):
        run_try(first, make_context(store, ti))
    assert store.get(ID_KEY) == JOB


@pytest.mark.durable_only
def test_sync_retry_reconnects_to_the_running_job_and_polls_it(stubbed_batch, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    _first_try_crashes(stubbed_batch, CrashPoint.MID_POLL, store, ti)

    stubbed_batch.expect_describe(JOB, "RUNNING")  # the decision's status probe
    stubbed_batch.expect_describe(JOB, "RUNNING")  # links
    stubbed_batch.expect_describe(JOB, "RUNNING")  # poll 1
    stubbed_batch.expect_describe(JOB, "SUCCEEDED")  # poll 2
    stubbed_batch.expect_describe(JOB, "SUCCEEDED", times=2)  # result check, log location
    retry_ti = ti.next_try()
    result = run_try(_op(), make_context(store, retry_ti))

    assert result == JOB
    stubbed_batch.stubber.assert_no_pending_responses()
    assert stubbed_batch.submitted == [JOB]
    reconnect = task_logs.event("Reconnecting to existing job", "info")
    assert (reconnect["external_id"], reconnect["status"]) == (JOB, "RUNNING")
    assert retry_ti.xcom[ID_KEY] == JOB
    assert "log-group/%2Frj%2Fbatch/" in retry_ti.xcom["batch_cloudwatch_logs_url"]


@pytest.mark.durable_only
@pytest.mark.parametrize("point", [CrashPoint.AFTER_PERSIST, CrashPoint.BEFORE_DEFER, CrashPoint.AFTER_DEFER])
def test_deferrable_retry_defers_again_to_the_active_job(stubbed_batch, point):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    _first_try_crashes(stubbed_batch, point, store, ti, deferrable=True)

    stubbed_batch.expect_describe(JOB, "STARTING", times=2)  # probe, links
    retry, context = _op(deferrable=True), make_context(store, ti.next_try())
    with pytest.raises(BaseException) as deferred:
        retry.execute(context)
    assert type(deferred.value).__name__ == "TaskDeferred"
    trigger = deferred.value.trigger
    assert type(trigger).__name__ == "BatchJobStatusTrigger"
    assert trigger.serialize()[1]["job_id"] == JOB

    # The triggerer fires the trigger's success event; the resumed task returns the job id.
    stubbed_batch.expect_describe(JOB, "SUCCEEDED", times=3)  # links, result check, log location
    assert retry.execute_complete(context, {"status": "success", "job_id": JOB}) == JOB
    stubbed_batch.stubber.assert_no_pending_responses()
    assert stubbed_batch.submitted == [JOB]


@pytest.mark.durable_only
def test_trigger_error_while_the_job_runs_fails_the_try_and_the_retry_defers_to_the_same_job(stubbed_batch):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    stubbed_batch.expect_submit(JOB)
    stubbed_batch.expect_describe(JOB, "RUNNABLE")
    first, context = _op(deferrable=True), make_context(store, ti)
    with pytest.raises(BaseException) as deferred:
        first.execute(context)
    assert type(deferred.value).__name__ == "TaskDeferred"

    stubbed_batch.expect_describe(JOB, "RUNNING", times=2)  # the error's context, links
    event = {"status": "error", "message": "Waiter error: max attempts reached", "job_id": JOB}
    with pytest.raises(ExternalJobFailed, match=r"Waiter error: max attempts reached \(job status now RUNNING\)"):
        first.execute_complete(context, event)

    stubbed_batch.expect_describe(JOB, "RUNNING", times=2)  # probe, links
    with pytest.raises(BaseException) as deferred_again:
        _op(deferrable=True).execute(make_context(store, ti.next_try()))
    assert deferred_again.value.trigger.serialize()[1]["job_id"] == JOB
    stubbed_batch.stubber.assert_no_pending_responses()


def test_failed_job_raises_with_status_reason_exit_code_and_logs(stubbed_batch):
    stubbed_batch.expect_submit(JOB)
    stubbed_batch.expect_describe(JOB, "RUNNABLE")  # links
    stubbed_batch.expect_describe(JOB, "RUNNING")  # poll 1
    failed = {"reason": "Essential container in task exited", "exit_code": 3}
    stubbed_batch.expect_describe(JOB, "FAILED", times=2, **failed)  # poll 2, log location
    ti = FakeTaskInstance()
    with pytest.raises(ExternalJobFailed) as raised:
        run_try(_op(), make_context(InMemoryTaskStateStore(), ti))
    message = str(raised.value)
    assert "statusReason: Essential container in task exited" in message
    assert "exit code 3" in message
    assert f"CloudWatch Logs group '/rj/batch', stream '{DEFINITION}/default/{JOB}' in {REGION}" in message
    assert ti.xcom["batch_cloudwatch_logs_url"].endswith(f"log-events/{DEFINITION}%2Fdefault%2F{JOB}")
    stubbed_batch.stubber.assert_no_pending_responses()


def test_max_retries_bounds_the_status_checks(stubbed_batch):
    stubbed_batch.expect_submit(JOB)
    stubbed_batch.expect_describe(JOB, "RUNNING", times=4)  # links, then 1 + max_retries checks
    with pytest.raises(ExternalJobFailed, match=r"still RUNNING after 2 status checks.*reconnects to it"):
        run_try(_op(max_retries=2), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    stubbed_batch.stubber.assert_no_pending_responses()
