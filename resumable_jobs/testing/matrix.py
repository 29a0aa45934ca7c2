"""The crash matrix: crash a try at each point, retry, and check no duplicate job ran.

Point it at your own operator in a few lines::

    from resumable_jobs.testing import assert_crash_safe

    def test_my_operator_is_crash_safe(fake_backend):
        assert_crash_safe(lambda: MyOperator(task_id="t", backend=fake_backend))
        assert_crash_safe(lambda: MyOperator(task_id="t", backend=fake_backend, deferrable=True))

Each scenario runs two tries of one task instance against one in-memory store: the first crashes
at the point, the second runs to the end. Jobs are counted as the distinct ids ``submit_job``
returned across both tries (a system that deduplicates by token returns the same id twice, which
counts once). A deferred try is resumed the way Airflow does it: the trigger runs until its first
event, then the method named in the deferral receives that event.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import unittest
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from resumable_jobs.testing.context import FakeTaskInstance, make_context
from resumable_jobs.testing.crash import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    CrashPointNotReached,
    SimulatedWorkerCrash,
    crash_at,
)
from resumable_jobs.testing.store import InMemoryTaskStateStore


@dataclass
class ScenarioResult:
    """What happened in one crash scenario."""

    point: CrashPoint | None
    submitted_ids: list[Any] = field(default_factory=list)
    result: Any = None
    store: InMemoryTaskStateStore | None = None
    ti: FakeTaskInstance | None = None

    @property
    def jobs(self) -> int:
        """Distinct jobs submitted across all tries."""
        return len({json.dumps(i, sort_keys=True) for i in self.submitted_ids if i is not None})

    @property
    def final_job(self) -> Any:
        return self.submitted_ids[-1] if self.submitted_ids else None


def run_trigger_until_event(trigger: Any, timeout: float = 120.0) -> Any:
    """Run ``trigger.run()`` until its first event; return the event's payload."""

    async def first_event() -> Any:
        agen = trigger.run()
        try:
            event = await agen.__anext__()
        finally:
            await agen.aclose()
        return event.payload

    return asyncio.run(asyncio.wait_for(first_event(), timeout))


def _execute_as_task_runner(operator: Any, context: dict[str, Any]) -> Any:
    """Call ``execute`` the way Airflow's task runner does: with the operator registered as the one
    the runner is executing (otherwise Airflow logs that ``execute`` ran outside the task runner)."""
    run = contextvars.copy_context().run
    try:
        from airflow.sdk.bases.operator import ExecutorSafeguard

        run(ExecutorSafeguard.tracker.set, operator)
    except (ImportError, AttributeError):  # pragma: no cover - a Task SDK without the safeguard
        pass
    return run(operator.execute, context)


def run_try(operator: Any, context: dict[str, Any]) -> Any:
    """Run one try as Airflow would: ``execute``, and on deferral the trigger then the resume method."""
    try:
        return _execute_as_task_runner(operator, context)
    except BaseException as raised:
        if type(raised).__name__ != "TaskDeferred":
            raise
        deferred = raised
    event = run_trigger_until_event(deferred.trigger)
    resume = getattr(operator, deferred.method_name or "execute_complete")
    return resume(context, event=event, **(deferred.kwargs or {}))


def _track_submissions(operator: Any, submitted: list[Any]) -> Any:
    submit = operator.submit_job

    def recording_submit(context: Any) -> Any:
        external_id = submit(context)
        submitted.append(external_id)
        return external_id

    object.__setattr__(operator, "submit_job", recording_submit)
    return operator


def run_crash_scenario(
    make_operator: Callable[[], Any],
    point: CrashPoint | None,
    *,
    store: InMemoryTaskStateStore | None = None,
    ti: FakeTaskInstance | None = None,
    with_store: bool = True,
) -> ScenarioResult:
    """Crash the first try at ``point`` (None: no crash), then run a retry to the end.

    A fresh operator is built for every try, as Airflow does. ``with_store=False`` leaves
    ``task_state_store`` out of the context (the pre-3.3 situation).
    """
    store = store if store is not None else InMemoryTaskStateStore()
    ti = ti or FakeTaskInstance(max_tries=1)
    outcome = ScenarioResult(point=point, store=store)
    first = _track_submissions(make_operator(), outcome.submitted_ids)
    context = make_context(store if with_store else None, ti)
    if point is None:
        outcome.result, outcome.ti = run_try(first, context), ti
        return outcome
    with crash_at(first, point, store if with_store else None):
        try:
            run_try(first, context)
        except SimulatedWorkerCrash:
            pass
        else:
            raise CrashPointNotReached(f"the first try finished without reaching the point {point.name}")
    ti = ti.next_try()
    retry = _track_submissions(make_operator(), outcome.submitted_ids)
    outcome.result = run_try(retry, make_context(store if with_store else None, ti))
    outcome.ti = ti
    return outcome


def assert_crash_safe(
    make_operator: Callable[[], Any],
    *,
    points: Iterable[CrashPoint] | None = None,
    submit_window_closed: bool | None = None,
) -> list[ScenarioResult]:
    """Assert that no crash point makes a retry start a duplicate job, and that results are right.

    ``points`` defaults to the matrix for the operator's mode (sync, deferrable or submit-only).
    ``submit_window_closed``: whether a crash between ``submit_job`` returning and the id being
    persisted is recoverable; by default, True when the operator implements ``find_job``. Pass
    True for a system that deduplicates by ``submission_token``. When it is open, that one point
    is allowed a second job (the documented limitation), every other point is not.

    Needs Airflow 3.3 (``task_state_store``); below it the test is skipped with the reason.
    """
    from resumable_jobs.mixin.contract import ResumableJobContract
    from resumable_jobs.shims import durable_supported, installed_airflow_version

    if not durable_supported():
        raise unittest.SkipTest(f"crash recovery needs Airflow 3.3 or later (installed: {installed_airflow_version()})")
    probe = make_operator()
    if points is None:
        if not getattr(probe, "wait_for_termination", True):
            points = SUBMIT_ONLY_POINTS
        elif getattr(probe, "deferrable", False):
            points = DEFERRABLE_POINTS
        else:
            points = SYNC_POINTS
    if submit_window_closed is None:
        submit_window_closed = type(probe).find_job is not ResumableJobContract.find_job

    results = []
    for point in points:
        outcome = run_crash_scenario(make_operator, point)
        allowed = 2 if (point is CrashPoint.AFTER_SUBMIT and not submit_window_closed) else 1
        assert outcome.jobs <= allowed, (
            f"crash {point.value}: the retry started a duplicate job ({outcome.jobs} jobs: {outcome.submitted_ids})"
        )
        if getattr(probe, "wait_for_termination", True):
            expected = probe.get_job_result(outcome.final_job, make_context(outcome.store, outcome.ti))
        else:
            expected = probe.get_submit_only_result(outcome.final_job, make_context(outcome.store, outcome.ti))
        assert outcome.result == expected, (
            f"crash {point.value}: the retry returned {outcome.result!r}, but get_job_result() of "
            f"job {outcome.final_job!r} is {expected!r}"
        )
        results.append(outcome)
    return results
