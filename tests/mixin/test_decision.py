"""Each row of the decision table, without an operator or a store."""

import pytest

from resumable_jobs.mixin.decision import Action, Attempt, JobState, Reason, decide
from resumable_jobs.mixin.digests import digest
from resumable_jobs.mixin.record import Checkpoint, Completion


def _decide(stored_id=None, checkpoint=None, fingerprint=None, attempt=Attempt(1, 2), state=None, orphan=None):
    asked = []

    def probe(external_id):
        asked.append(external_id)
        if state is None:
            raise AssertionError("the status should not have been asked")
        return state, state.name

    decision = decide(
        stored_id=stored_id,
        checkpoint=checkpoint,
        fingerprint=fingerprint,
        attempt=attempt,
        probe=probe,
        find_orphan=lambda cp: orphan,
    )
    return decision, asked


CP = Checkpoint(generation=2, nonce="n", fingerprint="fp")


def test_nothing_stored_is_a_fresh_first_generation():
    decision, _ = _decide()
    assert (decision.action, decision.reason, decision.new_generation) == (Action.SUBMIT, Reason.FRESH, True)


@pytest.mark.parametrize(
    ("state", "action", "reason"),
    [
        (JobState.ACTIVE, Action.RECONNECT, Reason.STILL_ACTIVE),
        (JobState.SUCCEEDED, Action.ALREADY_SUCCEEDED, Reason.SUCCEEDED),
        (JobState.ENDED, Action.SUBMIT, Reason.TERMINAL),
        (JobState.NOT_FOUND, Action.SUBMIT, Reason.NOT_FOUND),
    ],
)
def test_stored_job_state_decides(state, action, reason):
    decision, asked = _decide(stored_id="j1", checkpoint=CP, fingerprint="fp", state=state)
    assert (decision.action, decision.reason) == (action, reason)
    assert asked == ["j1"]
    assert decision.new_generation is (action is Action.SUBMIT)


def test_id_written_by_an_upstream_operator_is_reconnected():
    decision, _ = _decide(stored_id="j1", checkpoint=None, state=JobState.ACTIVE)
    assert (decision.action, decision.external_id) == (Action.RECONNECT, "j1")


def test_changed_fingerprint_submits_without_asking_the_system():
    decision, asked = _decide(stored_id="j1", checkpoint=CP, fingerprint="other")
    assert (decision.action, decision.reason, decision.previous_id) == (Action.SUBMIT, Reason.REQUEST_CHANGED, "j1")
    assert asked == []


def test_unpersisted_generation_adopts_the_job_found_by_token():
    pending = Checkpoint(generation=3, nonce="n", superseded_sha256=digest("old"))
    decision, asked = _decide(stored_id="old", checkpoint=pending, orphan="j9", state=JobState.ACTIVE)
    assert (decision.action, decision.external_id, decision.adopted) == (Action.RECONNECT, "j9", True)
    assert asked == ["j9"]


def test_unpersisted_generation_without_a_match_resubmits_in_the_same_generation():
    pending = Checkpoint(generation=3, nonce="n", superseded_sha256=digest("old"))
    decision, _ = _decide(stored_id="old", checkpoint=pending, orphan=None)
    assert (decision.action, decision.reason, decision.new_generation) == (Action.SUBMIT, Reason.RETRY_SUBMISSION, False)


def test_completed_and_cleared_starts_a_new_generation():
    done = Checkpoint(generation=1, nonce="n", completed=Completion.of("j1", try_number=1, max_tries=2))
    decision, asked = _decide(stored_id="j1", checkpoint=done, attempt=Attempt(try_number=2, max_tries=3))
    assert (decision.action, decision.reason) == (Action.SUBMIT, Reason.RERUN_AFTER_SUCCESS)
    assert asked == []


def test_completed_without_a_clear_returns_the_result():
    done = Checkpoint(generation=1, nonce="n", completed=Completion.of("j1", try_number=1, max_tries=2))
    decision, _ = _decide(stored_id="j1", checkpoint=done, attempt=Attempt(try_number=2, max_tries=2))
    assert (decision.action, decision.external_id) == (Action.ALREADY_SUCCEEDED, "j1")


def test_completed_without_ti_is_not_reused():
    done = Checkpoint(generation=1, nonce="n", completed=Completion.of("j1", try_number=1, max_tries=2))
    decision, _ = _decide(stored_id="j1", checkpoint=done, attempt=Attempt())
    assert decision.reason is Reason.RERUN_AFTER_SUCCESS
