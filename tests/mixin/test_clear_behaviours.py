"""A cleared task instance under both ways Airflow treats task state on a clear (issue 25).

Airflow 3.3.2 keeps ``task_state_store`` when a task instance is cleared; later releases discard
it unless ``keep_task_state`` is set (apache/airflow #72100). Either way a clear is a request for
the work again: after a success, one new job; while the job runs, that job is cancelled and one
new job started. The kit's :func:`assert_clear_semantics` runs the four combinations.
"""

from __future__ import annotations

import pytest

from resumable_jobs.testing import ClearBehaviour, assert_clear_semantics, run_cleared_task
from resumable_jobs.testing.fake_system import CANCELLED, RUNNING, SUCCEEDED, FakeJobOperator


def _factory(system, **kwargs):
    return lambda: FakeJobOperator(task_id="t", system=system, **kwargs)


@pytest.mark.parametrize("searchable", [False, True], ids=["plain", "searchable-by-token"])
def test_a_clear_starts_one_new_job_under_both_behaviours(system, searchable):
    system.searchable = searchable  # with find_job, a discarded store must not lead back to the old job
    outcomes = assert_clear_semantics(_factory(system))
    assert system.submissions == 2 * len(outcomes)
    for outcome in outcomes:
        first, last = system.jobs[outcome.first_job], system.jobs[outcome.last_job]
        assert first.state == (CANCELLED if outcome.while_running else SUCCEEDED)
        assert last.state == SUCCEEDED


@pytest.mark.durable_only
@pytest.mark.parametrize("behaviour", list(ClearBehaviour), ids=lambda b: b.name)
def test_a_job_still_winding_down_after_its_cancel_is_not_reconnected(system, behaviour, task_logs, monkeypatch):
    """A cancelled job may report itself active for a while (Databricks TERMINATING, a pod deleting)."""
    monkeypatch.setattr(type(system), "cancel", lambda self, job_id: None)  # the cancel takes effect later
    outcome = run_cleared_task(_factory(system), behaviour, while_running=True)
    assert outcome.cancelled_ids == [outcome.first_job]
    assert system.jobs[outcome.first_job].state == RUNNING  # still reports itself active ...
    assert outcome.jobs == 2 and system.jobs[outcome.last_job].state == SUCCEEDED  # ... and was not followed
    if behaviour is ClearBehaviour.KEEP_TASK_STATE:
        event = task_logs.event("cancelled by an earlier try of this task instance", "info")
        assert event["external_id"] == outcome.first_job


@pytest.mark.durable_only
def test_the_cancel_is_remembered_in_its_own_key_by_digest(system):
    from resumable_jobs.mixin.digests import digest

    outcome = run_cleared_task(_factory(system), ClearBehaviour.DISCARD_TASK_STATE, while_running=True)
    # after the discard, the cancel's key is all the store held when the next try started
    assert outcome.store.get("fake_job_id_cancelled") == digest(outcome.first_job)
