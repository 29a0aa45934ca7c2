"""Our EMR triggers against moto (ThreadedMotoServer + our models): on_kill, max attempts, unknown runs, the upgrade.

The operators' deferrable paths with these triggers run in ``test_emr_runs.py`` (both services).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_trigger_until_event
from tests.providers.amazon.test_emr_runs import emr  # noqa: F401 - the fixture of both services

CANCELLED = {"CANCELLING", "CANCELLED", "CANCEL_PENDING"}


def _deferred(emr, **kwargs: Any) -> tuple[Any, Any, Any]:  # noqa: F811
    """A held run of a deferred try: (operator, context, its trigger)."""
    emr.runs.hold()
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    operator = emr.build(deferrable=True, **kwargs)
    with pytest.raises(BaseException) as deferred:
        operator.execute(context)
    assert type(deferred.value).__name__ == "TaskDeferred"
    return operator, context, deferred.value.trigger


@pytest.mark.parametrize("cancel_on_kill", [True, False])
def test_on_kill_cancels_the_run_only_with_cancel_on_kill(emr, cancel_on_kill):  # noqa: F811
    _, _, trigger = _deferred(emr, cancel_on_kill=cancel_on_kill)
    asyncio.run(trigger.on_kill())
    (run,) = emr.runs.runs()
    state = emr.runs.run(trigger.job_id)["state"]
    assert (state in CANCELLED) is cancel_on_kill, (run, state)


def test_a_run_still_active_after_waiter_max_attempts_reads_is_an_error_event(emr):  # noqa: F811
    _, _, trigger = _deferred(emr)
    trigger.max_attempts = trigger.waiter_max_attempts = 2
    event = run_trigger_until_event(trigger)
    assert event["status"] == "error" and event["external_id"] == trigger.job_id
    assert "was still RUNNING after 2 status reads" in event["message"]


def test_a_run_the_service_does_not_know_is_an_error_event_naming_it(emr):  # noqa: F811
    _, _, trigger = _deferred(emr)
    trigger.job_id = trigger.external_id = "0000000000000000000000000000000"
    event = run_trigger_until_event(trigger)
    assert event["status"] == "error"
    assert f"'{trigger.job_id}'" in event["message"] and "ResourceNotFoundException" in event["message"]


def _upstream_trigger(trigger: Any) -> Any:
    """The trigger the previous release wrote in the trigger row for the same run (upstream's class and kwargs)."""
    from airflow.providers.amazon.aws.triggers.emr import EmrContainerTrigger, EmrServerlessStartJobTrigger

    connection = {"aws_conn_id": trigger.aws_conn_id, "region_name": trigger.region_name}
    if hasattr(trigger, "application_id"):
        return EmrServerlessStartJobTrigger(trigger.application_id, trigger.job_id, waiter_delay=0, **connection)
    return EmrContainerTrigger(trigger.virtual_cluster_id, trigger.job_id, waiter_delay=0, **connection)


@pytest.mark.parametrize("end", ["succeeded", "failed"])
def test_a_task_deferred_on_upstreams_trigger_resumes_from_its_event_after_the_upgrade(emr, end):  # noqa: F811
    from resumable_jobs import ExternalJobFailed

    operator, context, trigger = _deferred(emr)
    emr.runs.fail() if end == "failed" else emr.runs.release()
    event = run_trigger_until_event(_upstream_trigger(trigger))
    assert "external_id" not in event
    if end == "succeeded":
        assert operator.execute_complete(context, event=event) == trigger.job_id
    else:
        with pytest.raises(ExternalJobFailed, match=emr.failure):
            operator.execute_complete(context, event=event)
    assert len(emr.runs.runs()) == 1


@pytest.mark.parametrize(("left_deferred", "cancelled"), [(True, True), (False, False)])
def test_serverless_cancelled_without_a_user_action_cancels_only_when_the_task_left_deferred(
    serverless_app, monkeypatch, left_deferred, cancelled
):
    """Upstream's behaviour before Airflow 3.3 (no on_kill): a cancel whose task is no longer deferred was a user's."""
    from resumable_jobs.providers.amazon.emr_serverless_trigger import EmrServerlessJobRunTrigger
    from tests.providers.amazon.emr_fixtures import serverless_operator

    serverless_app.hold()
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    with pytest.raises(BaseException) as deferred:
        serverless_operator(serverless_app, deferrable=True).execute(context)
    trigger = deferred.value.trigger
    trigger.poll_interval = 60  # still waiting when cancelled

    async def task_left_deferred(self) -> bool:
        return left_deferred

    monkeypatch.setattr(EmrServerlessJobRunTrigger, "_task_left_deferred", task_left_deferred)

    async def cancel_while_waiting() -> None:
        task = asyncio.ensure_future(trigger.run().__anext__())
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_while_waiting())
    assert (serverless_app.run(trigger.job_id)["state"] in CANCELLED) is cancelled
