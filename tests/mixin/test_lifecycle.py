"""The job-lifecycle table (DESIGN.md), row by row, against the pure decision functions."""

from __future__ import annotations

import pytest

from resumable_jobs.mixin.lifecycle import (
    KillCause,
    Situation,
    TaskInstanceState,
    Verdict,
    needs_state,
    verdict_on_failure,
    verdict_on_kill,
)

DURABLE = Situation(crash_recovery=True, retry_follows=True)
NOT_DURABLE = Situation(crash_recovery=False, retry_follows=True)
LAST_TRY = Situation(crash_recovery=True, retry_follows=False)
RUNNING = TaskInstanceState("running")


@pytest.mark.parametrize(
    "state",
    [
        TaskInstanceState("failed"),
        TaskInstanceState("success"),
        TaskInstanceState("skipped"),
        TaskInstanceState("upstream_failed"),
        TaskInstanceState("restarting"),  # cleared while running
        TaskInstanceState(None),  # cleared, no state yet
        TaskInstanceState("removed"),
        TaskInstanceState.deleted(),
    ],
    ids=lambda s: s.describe(),
)
def test_a_task_stopped_on_purpose_cancels_its_job(state):
    decision = verdict_on_kill(KillCause.SIGNAL, DURABLE, state)
    assert decision.verdict is Verdict.CANCEL
    assert "stopped on purpose" in decision.reason


def test_execution_timeout_cancels_without_asking_the_api_server():
    assert not needs_state(KillCause.TIMEOUT, DURABLE)
    assert verdict_on_kill(KillCause.TIMEOUT, DURABLE, None).verdict is Verdict.CANCEL


@pytest.mark.parametrize("state", ["running", "up_for_retry", "queued", "scheduled", "deferred"])
def test_sigterm_while_the_task_instance_carries_on_keeps_the_job(state):
    assert needs_state(KillCause.SIGNAL, DURABLE)
    decision = verdict_on_kill(KillCause.SIGNAL, DURABLE, TaskInstanceState(state))
    assert decision.verdict is Verdict.KEEP
    assert "worker is shutting down" in decision.reason and "next try reconnects" in decision.reason


def test_sigterm_with_an_unreadable_state_keeps_the_job_and_says_so():
    decision = verdict_on_kill(KillCause.SIGNAL, DURABLE, TaskInstanceState.unreadable("no answer within 3s"))
    assert decision.verdict is Verdict.KEEP
    assert "could not be read (no answer within 3s)" in decision.reason


@pytest.mark.parametrize("cause", list(KillCause))
def test_without_crash_recovery_every_kill_cancels_without_asking(cause):
    assert not needs_state(cause, NOT_DURABLE)
    decision = verdict_on_kill(cause, NOT_DURABLE, RUNNING)
    assert decision.verdict is Verdict.CANCEL


def test_cancel_on_worker_shutdown_cancels_on_sigterm():
    situation = Situation(crash_recovery=True, retry_follows=True, cancel_on_worker_shutdown=True)
    assert not needs_state(KillCause.SIGNAL, situation)
    assert verdict_on_kill(KillCause.SIGNAL, situation, RUNNING).reason == "cancel_on_worker_shutdown=True"


def test_sigterm_on_the_last_try_cancels_since_no_retry_would_reconnect():
    assert not needs_state(KillCause.SIGNAL, LAST_TRY)
    assert verdict_on_kill(KillCause.SIGNAL, LAST_TRY, RUNNING).verdict is Verdict.CANCEL


def test_sigterm_when_retries_are_unknown_follows_the_state():
    unknown = Situation(crash_recovery=True, retry_follows=None)
    assert verdict_on_kill(KillCause.SIGNAL, unknown, RUNNING).verdict is Verdict.KEEP
    assert verdict_on_kill(KillCause.SIGNAL, unknown, TaskInstanceState("failed")).verdict is Verdict.CANCEL


def test_an_in_process_failure_keeps_the_job_for_the_retry():
    assert verdict_on_failure(DURABLE).verdict is Verdict.KEEP


def test_an_in_process_failure_on_the_last_try_cancels():
    assert verdict_on_failure(LAST_TRY).verdict is Verdict.CANCEL
    assert "last try" in verdict_on_failure(LAST_TRY).reason


def test_an_in_process_failure_without_crash_recovery_cancels():
    assert verdict_on_failure(NOT_DURABLE).verdict is Verdict.CANCEL


def test_a_state_the_table_does_not_know_keeps_the_job_rather_than_cancel_on_a_guess():
    decision = verdict_on_kill(KillCause.SIGNAL, DURABLE, TaskInstanceState("some_future_state"))
    assert decision.verdict is Verdict.KEEP
    assert "'some_future_state', which does not say the task was stopped" in decision.reason
