"""The lifecycle kit passes an operator that follows the table and fails one that does not."""

from __future__ import annotations

import pytest

from resumable_jobs.shims import durable_supported
from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle
from resumable_jobs.testing.fake_system import CANCELLED, SUCCEEDED, FakeJobOperator


def _factory(system, cls=FakeJobOperator, **kwargs):
    return lambda: cls(task_id="job", system=system, payload={"rows": 10}, **kwargs)


def test_the_reference_operator_follows_the_table(system):
    outcomes = assert_job_lifecycle(_factory(system))
    states = {o.case: system.jobs[o.job_id].state for o in outcomes}
    kept = {LifecycleCase.WORKER_SHUTDOWN, LifecycleCase.SHUTDOWN_WHILE_SUBMITTING}
    kept |= {LifecycleCase.STATE_UNREADABLE, LifecycleCase.FAILED_RETRY_FOLLOWS}
    if durable_supported():
        assert {case for case, state in states.items() if state == SUCCEEDED} == kept
    else:  # the shim cannot reconnect, so every job is cancelled
        assert set(states.values()) == {CANCELLED}
    assert system.submissions == len(outcomes)


def test_without_crash_recovery_every_case_cancels(system):
    outcomes = assert_job_lifecycle(_factory(system, durable=False))
    assert all(o.cancelled for o in outcomes)


class AlwaysCancels(FakeJobOperator):
    """Upstream's behaviour: on_kill cancels whatever happened."""

    def on_kill(self):
        self.cancel_job(self.current_external_id, None)


class NeverCancels(FakeJobOperator):
    def on_kill(self):
        pass

    def cancel_job(self, external_id, context):
        pass


@pytest.mark.durable_only
def test_an_operator_that_cancels_on_every_sigterm_fails_the_kit(system):
    with pytest.raises(AssertionError, match="WORKER_SHUTDOWN|worker shutting down.*must be kept"):
        assert_job_lifecycle(_factory(system, AlwaysCancels), cases=[LifecycleCase.WORKER_SHUTDOWN])


def test_an_operator_that_never_cancels_on_kill_fails_the_kit(system):
    with pytest.raises(AssertionError, match="expected job .* to be cancelled once"):
        assert_job_lifecycle(_factory(system, NeverCancels), cases=[LifecycleCase.STOPPED_ON_PURPOSE])


def test_the_kit_needs_a_synchronous_waiting_operator(system):
    with pytest.raises(AssertionError, match="wait_for_termination=True and deferrable=False"):
        assert_job_lifecycle(_factory(system, wait_for_termination=False))
