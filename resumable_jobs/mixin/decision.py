"""The decision table of DESIGN.md, in one function.

Given what the store holds and what the external system says, decide whether this try submits,
reconnects, or returns the result of a job that already succeeded. The function performs no
writes and no submissions: it may only *ask* (the job's status, a token lookup) through the two
callables it is given, so every row of the table is testable on its own and the core mixin stays
a thin sequence of "decide, then act".

Rows (first match wins):

1. Stored request fingerprint differs from this try's      -> new generation (request changed)
2. The current generation's id was never persisted          -> look the token up (``find_job``):
   found -> treat it like a stored id (rows 4-6); not found -> submit again *in the same
   generation* (a system that deduplicates by token hands back the same job)
3. An earlier try cancelled the stored job on purpose         -> new generation (the task was
   stopped, cleared or timed out: the job may still report itself active while it winds down)
4. A try already returned successfully for the stored job   -> plain retry of that try: result;
   after a clear (``max_tries`` moved, or no ``ti`` to tell)  -> new generation
5. Stored job active                                        -> reconnect
6. Stored job succeeded                                     -> result, no resubmission
7. Stored job failed, killed or not found                   -> new generation
8. Nothing stored                                           -> first generation
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from resumable_jobs.mixin.record import Checkpoint


class JobState(enum.Enum):
    ACTIVE = "active"
    SUCCEEDED = "succeeded"
    ENDED = "ended"  # terminal without success
    NOT_FOUND = "not found"


class Action(enum.Enum):
    SUBMIT = "submit"
    RECONNECT = "reconnect"
    ALREADY_SUCCEEDED = "already succeeded"


class Reason(enum.Enum):
    FRESH = "no job stored for this task instance"
    RETRY_SUBMISSION = "the previous try may have crashed while submitting; submitting again with the same token"
    STILL_ACTIVE = "the stored job is still active"
    SUCCEEDED = "the stored job already succeeded"
    TERMINAL = "the stored job ended without success"
    NOT_FOUND = "the external system no longer knows the stored job"
    REQUEST_CHANGED = "the request changed since the stored job was submitted"
    RERUN_AFTER_SUCCESS = "this task instance already completed successfully with the stored job (cleared task)"
    CANCELLED_ON_PURPOSE = "an earlier try cancelled the stored job (the task was stopped, cleared or timed out)"


@dataclass(frozen=True)
class Attempt:
    """What this try knows about itself (from ``context["ti"]`` when there is one)."""

    try_number: int | None = None
    max_tries: int | None = None


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: Reason
    external_id: Any = None
    #: Set when the decision opens a new generation (the checkpoint must be rewritten before submit).
    new_generation: bool = False
    #: The id the new generation replaces, when there was one.
    previous_id: Any = None
    #: The external status string behind the decision, when the system was asked.
    status: str | None = None
    #: True when ``external_id`` was found by token lookup and is not yet persisted.
    adopted: bool = False


StatusProbe = Callable[[Any], "tuple[JobState, str | None]"]
TokenLookup = Callable[[Checkpoint], Any]


def decide(
    *,
    stored_id: Any,
    checkpoint: Checkpoint | None,
    fingerprint: str | None,
    attempt: Attempt,
    probe: StatusProbe,
    find_orphan: TokenLookup,
    cancelled: Callable[[Any], bool] = lambda external_id: False,
) -> Decision:
    """Return the decision for this try. See the module docstring for the rows.

    ``cancelled(external_id)`` tells whether an earlier try of this task instance cancelled that
    job on purpose (row 3); the default knows of none.
    """
    # The id key may still hold the job an earlier generation replaced: then the current
    # generation's own id was never persisted.
    current_id = stored_id
    if checkpoint is not None and checkpoint.supersedes(stored_id):
        current_id = None

    if (
        checkpoint is not None
        and checkpoint.fingerprint is not None
        and fingerprint is not None
        and checkpoint.fingerprint != fingerprint
    ):
        return Decision(Action.SUBMIT, Reason.REQUEST_CHANGED, new_generation=True, previous_id=current_id)

    adopted = False
    if current_id is None:
        if checkpoint is None:
            return Decision(Action.SUBMIT, Reason.FRESH, new_generation=True, previous_id=stored_id)
        current_id = find_orphan(checkpoint)
        if current_id is None:
            return Decision(Action.SUBMIT, Reason.RETRY_SUBMISSION, new_generation=False)
        adopted = True

    if cancelled(current_id):
        return Decision(Action.SUBMIT, Reason.CANCELLED_ON_PURPOSE, new_generation=True, previous_id=current_id)

    completed = checkpoint.completed if checkpoint is not None else None
    if completed is not None and completed.is_for(current_id):
        if _same_task_attempt_cycle(completed.max_tries, attempt):
            return Decision(Action.ALREADY_SUCCEEDED, Reason.SUCCEEDED, external_id=current_id)
        return Decision(Action.SUBMIT, Reason.RERUN_AFTER_SUCCESS, new_generation=True, previous_id=current_id)

    state, status = probe(current_id)
    if state is JobState.ACTIVE:
        return Decision(Action.RECONNECT, Reason.STILL_ACTIVE, external_id=current_id, status=status, adopted=adopted)
    if state is JobState.SUCCEEDED:
        return Decision(
            Action.ALREADY_SUCCEEDED, Reason.SUCCEEDED, external_id=current_id, status=status, adopted=adopted
        )
    reason = Reason.NOT_FOUND if state is JobState.NOT_FOUND else Reason.TERMINAL
    return Decision(Action.SUBMIT, reason, new_generation=True, previous_id=current_id, status=status)


def _same_task_attempt_cycle(completed_max_tries: int | None, attempt: Attempt) -> bool:
    """True when no clear happened since the successful try.

    Clearing a task instance raises its ``max_tries`` (Airflow sets it to the current try number
    plus the task's retries), while ordinary retries leave it alone. So an unchanged ``max_tries``
    means this try is a retry of a task instance whose successful try never got recorded as a
    success (the worker died right after returning): return the result. Without a ``ti`` there is
    no way to tell, and a completed job is never reused blindly: a new generation is safer than
    handing back a stale result.
    """
    return (
        completed_max_tries is not None and attempt.max_tries is not None and completed_max_tries == attempt.max_tries
    )


def generation_for(decision: Decision, checkpoint: Checkpoint | None) -> int | None:
    """The submission generation the try follows once ``decision`` is acted on.

    A submission that opens a generation gets the next number (1 for the first); every other
    decision stays in the stored one. None: a job stored without our bookkeeping (an upstream
    operator's id, before a migration).
    """
    if decision.action is Action.SUBMIT and (decision.new_generation or checkpoint is None):
        return checkpoint.generation + 1 if checkpoint is not None else 1
    return checkpoint.generation if checkpoint is not None else None
