"""Clearing a task instance, both ways Airflow treats its task state: the kit's clear cases.

What it is for: a cleared task instance is a user asking for the work again. After a successful
run the next try must start one new job (not hand back the old result); when the task is cleared
while its job runs, that job must be cancelled (nothing follows it any more) and the next try must
start exactly one new job. Airflow 3.3.2 keeps ``task_state_store`` across a clear; later
releases discard it unless ``keep_task_state`` is set (apache/airflow #72100, already in the
clear-task-instances endpoint per #72929). An operator must behave the same under both.

How it works: :func:`run_cleared_task` runs two tries of one task instance against one
in-memory store. The first either succeeds, or is stopped while it polls the way a clear stops a
running try - the task instance's state at the API server becomes ``restarting``, the supervisor
SIGTERMs the task, and Airflow calls ``on_kill``. Under :attr:`ClearBehaviour.DISCARD_TASK_STATE`
the store is emptied at the moment of the clear (before that SIGTERM, as the clear endpoint does
it first). The second try is the one Airflow runs after a clear (``max_tries`` moved on). The
outcome lists the jobs submitted and cancelled, and what the second try returned.
:func:`assert_clear_semantics` checks the four combinations.

What it does not do: model a clear of a deferred task (no worker runs: the trigger is dropped
and the job is left to the next try's decision) nor ``clear_on_success``.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from resumable_jobs.testing.context import FakeTaskInstance, make_context
from resumable_jobs.testing.crash import SimulatedWorkerCrash
from resumable_jobs.testing.lifecycle import _record
from resumable_jobs.testing.matrix import run_try
from resumable_jobs.testing.store import InMemoryTaskStateStore

__all__ = ["ClearBehaviour", "ClearOutcome", "assert_clear_semantics", "run_cleared_task"]


class ClearBehaviour(enum.Enum):
    KEEP_TASK_STATE = "clearing keeps task_state_store (Airflow 3.3.2, or keep_task_state=True)"
    DISCARD_TASK_STATE = "clearing empties task_state_store (apache/airflow #72100)"


@dataclass
class ClearOutcome:
    behaviour: ClearBehaviour
    while_running: bool
    submitted_ids: list[Any] = field(default_factory=list)
    cancelled_ids: list[Any] = field(default_factory=list)
    #: What the first try returned (None when it was stopped).
    first_result: Any = None
    #: What the try after the clear returned.
    result: Any = None
    store: InMemoryTaskStateStore | None = None

    @property
    def jobs(self) -> int:
        return len({json.dumps(i, sort_keys=True) for i in self.submitted_ids if i is not None})

    @property
    def first_job(self) -> Any:
        return self.submitted_ids[0] if self.submitted_ids else None

    @property
    def last_job(self) -> Any:
        return self.submitted_ids[-1] if self.submitted_ids else None


def _stopped_by_a_clear(operator: Any, store: InMemoryTaskStateStore, behaviour: ClearBehaviour) -> Callable:
    """A ``poll_until_complete`` that is interrupted by a clear, in the order Airflow does it."""

    def poll(external_id: Any, context: Any) -> None:
        if behaviour is ClearBehaviour.DISCARD_TASK_STATE:
            store.clear()  # the clear endpoint discards the state first ...
        operator.on_kill()  # ... then the supervisor learns it and SIGTERMs the task
        raise SimulatedWorkerCrash("the supervisor killed the task it stopped, after on_kill")

    return poll


def run_cleared_task(
    make_operator: Callable[[], Any], behaviour: ClearBehaviour, *, while_running: bool
) -> ClearOutcome:
    """One task instance, one store: a first try (succeeds, or is cleared while it polls), a clear, a second try."""
    store = InMemoryTaskStateStore()
    ti = FakeTaskInstance(max_tries=1)
    outcome = ClearOutcome(behaviour, while_running, store=store)
    first = _record(make_operator(), outcome)  # type: ignore[arg-type] - it records into the id lists
    if while_running:
        ti.api_state = "restarting"  # what the API server says of a task instance cleared while it runs
        object.__setattr__(first, "poll_until_complete", _stopped_by_a_clear(first, store, behaviour))
        try:
            run_try(first, make_context(store, ti))
        except SimulatedWorkerCrash:
            pass
        else:
            raise AssertionError("the first try returned although it was cleared while polling")
    else:
        outcome.first_result = run_try(first, make_context(store, ti))
        if behaviour is ClearBehaviour.DISCARD_TASK_STATE:
            store.clear()
    after_clear = ti.cleared(retries=1)
    after_clear.api_state = "running"
    second = _record(make_operator(), outcome)  # type: ignore[arg-type]
    outcome.result = run_try(second, make_context(store, after_clear))
    return outcome


def assert_clear_semantics(make_operator: Callable[[], Any]) -> list[ClearOutcome]:
    """Both clear behaviours, after a success and while running: one new job each time; see the module docstring.

    The operator must wait for its job synchronously (``wait_for_termination=True``,
    ``deferrable=False``) and its system must let a job run to completion when polled.
    """
    outcomes = []
    probe = make_operator()
    for behaviour in ClearBehaviour:
        for while_running in (False, True):
            outcome = run_cleared_task(make_operator, behaviour, while_running=while_running)
            situation = f"{behaviour.value}, cleared {'while running' if while_running else 'after success'}"
            assert outcome.jobs == 2, f"{situation}: expected one new job after the clear, got {outcome.submitted_ids}"
            assert outcome.last_job != outcome.first_job, f"{situation}: the try after the clear reused the old job"
            if while_running:
                assert outcome.cancelled_ids == [outcome.first_job], (
                    f"{situation}: expected job {outcome.first_job!r} to be cancelled once, "
                    f"cancel_job was called for {outcome.cancelled_ids}"
                )
            else:
                assert outcome.cancelled_ids == [], f"{situation}: nothing should be cancelled"
            expected = probe.get_job_result(outcome.last_job, make_context(InMemoryTaskStateStore()))
            assert outcome.result == expected, f"{situation}: returned {outcome.result!r}, expected {expected!r}"
            outcomes.append(outcome)
    return outcomes
