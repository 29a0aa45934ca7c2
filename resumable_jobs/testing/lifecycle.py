"""The job-lifecycle table, as a test: does the job outlive the try exactly when a retry follows it?

Point it at your own operator the way you point :func:`assert_crash_safe` at it::

    from resumable_jobs.testing import assert_job_lifecycle

    def test_my_operator_keeps_and_cancels_its_job_as_airflow_users_expect(fake_backend):
        outcomes = assert_job_lifecycle(lambda: MyOperator(task_id="t", backend=fake_backend))
        assert fake_backend.cancelled == [o.job_id for o in outcomes if o.cancelled]

Each :class:`LifecycleCase` runs a synchronous try until its job is active, then ends it the way
that case ends it in production - ``on_kill`` from a SIGTERM (with the Execution API answering
``running``, ``failed`` or not at all), ``on_kill`` after ``execution_timeout``, the poll raising
on the first or the last try, a worker dying on its last try with the failure callback run by
someone else - and records whether ``cancel_job`` was called. When the job is kept, a retry runs
and must reconnect to it. The expected verdicts are the table in DESIGN.md: with crash recovery
(``durable`` on Airflow 3.3+) a job is kept while a retry will follow it; without, it is always
cancelled, since no retry can reconnect.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from resumable_jobs.testing.context import UNREACHABLE, FakeTaskInstance, make_context
from resumable_jobs.testing.crash import SimulatedWorkerCrash
from resumable_jobs.testing.matrix import run_try
from resumable_jobs.testing.store import InMemoryTaskStateStore


class LifecycleCase(enum.Enum):
    STOPPED_ON_PURPOSE = "SIGTERM after the running task instance was marked failed"
    STOPPED_WHILE_SUBMITTING = "SIGTERM after marked failed, as the job was accepted but before its id was persisted"
    SHUTDOWN_WHILE_SUBMITTING = "SIGTERM from a worker shutting down, before the id was persisted"
    EXECUTION_TIMEOUT = "execution_timeout fired while the job ran"
    WORKER_SHUTDOWN = "SIGTERM from a worker shutting down; the task instance is still running"
    STATE_UNREADABLE = "SIGTERM, and the API server does not answer"
    FAILED_RETRY_FOLLOWS = "the poll raised while the job ran, and a retry follows"
    FAILED_LAST_TRY = "the poll raised while the job ran, on the last try"
    DIED_ON_LAST_TRY = "the worker died on its last try; the failure callback ran elsewhere"


#: Cases whose job is kept when crash recovery is on; every other case cancels.
KEPT_WITH_CRASH_RECOVERY = frozenset(
    {
        LifecycleCase.WORKER_SHUTDOWN,
        LifecycleCase.SHUTDOWN_WHILE_SUBMITTING,
        LifecycleCase.STATE_UNREADABLE,
        LifecycleCase.FAILED_RETRY_FOLLOWS,
    }
)

#: What the Execution API answers in the SIGTERM cases.
_SIGTERM_STATES = {
    LifecycleCase.STOPPED_ON_PURPOSE: "failed",
    LifecycleCase.STOPPED_WHILE_SUBMITTING: "failed",
    LifecycleCase.SHUTDOWN_WHILE_SUBMITTING: "running",
    LifecycleCase.WORKER_SHUTDOWN: "running",
    LifecycleCase.STATE_UNREADABLE: UNREACHABLE,
}
#: The SIGTERM arrives inside submit_job, once the external system has the job.
_WHILE_SUBMITTING = {LifecycleCase.STOPPED_WHILE_SUBMITTING, LifecycleCase.SHUTDOWN_WHILE_SUBMITTING}
_LAST_TRY = {LifecycleCase.FAILED_LAST_TRY, LifecycleCase.DIED_ON_LAST_TRY}


class SimulatedPollError(RuntimeError):
    """The status API failed while the try polled its job (raised by the lifecycle cases)."""


@dataclass
class LifecycleOutcome:
    case: LifecycleCase
    job_id: Any = None
    cancelled_ids: list[Any] = field(default_factory=list)
    #: What ended the first try (``WorkerShutdown`` when on_kill kept the job).
    first_try_error: BaseException | None = None
    submitted_ids: list[Any] = field(default_factory=list)
    #: What the retry returned, when the job was kept and a retry ran.
    retry_result: Any = None

    @property
    def cancelled(self) -> bool:
        return bool(self.cancelled_ids)

    @property
    def jobs(self) -> int:
        return len({json.dumps(i, sort_keys=True) for i in self.submitted_ids if i is not None})


def expected_to_cancel(case: LifecycleCase, crash_recovery: bool) -> bool:
    return not crash_recovery or case not in KEPT_WITH_CRASH_RECOVERY


def _timeout_error() -> type[BaseException]:
    from airflow.sdk.exceptions import AirflowTaskTimeout

    return AirflowTaskTimeout


def _record(operator: Any, outcome: LifecycleOutcome, *, sigterm_in_submit: bool = False) -> Any:
    submit, cancel = operator.submit_job, operator.cancel_job

    def recording_submit(context: Any) -> Any:
        external_id = submit(context)
        outcome.submitted_ids.append(external_id)
        if sigterm_in_submit:
            operator.on_kill()  # the signal lands as submit_job returns, before the id is persisted
        return external_id

    def recording_cancel(external_id: Any, context: Any) -> None:
        outcome.cancelled_ids.append(external_id)
        cancel(external_id, context)

    object.__setattr__(operator, "submit_job", recording_submit)
    object.__setattr__(operator, "cancel_job", recording_cancel)
    return operator


def _end_poll(operator: Any, case: LifecycleCase) -> Callable[[Any, Any], None]:
    """A ``poll_until_complete`` that ends the try the way ``case`` ends it."""

    def poll(external_id: Any, context: Any) -> None:
        if case in _WHILE_SUBMITTING:
            raise SimulatedWorkerCrash("the supervisor killed the task after on_kill")
        if case in _SIGTERM_STATES:
            operator.on_kill()  # what Airflow's SIGTERM handler calls
            # The supervisor SIGKILLs a task it stopped a few seconds after the SIGTERM.
            raise SimulatedWorkerCrash("the supervisor killed the task after on_kill")
        if case is LifecycleCase.EXECUTION_TIMEOUT:
            raise _timeout_error()("simulated execution_timeout")
        if case is LifecycleCase.DIED_ON_LAST_TRY:
            raise SimulatedWorkerCrash("the worker died on its last try")
        raise SimulatedPollError(f"simulated status API error while polling job {external_id!r}")

    return poll


def _run_first_try(operator: Any, context: dict[str, Any], case: LifecycleCase) -> BaseException:
    object.__setattr__(operator, "poll_until_complete", _end_poll(operator, case))
    try:
        run_try(operator, context)
    except _timeout_error() as timeout:
        operator.on_kill()  # Airflow's task runner calls on_kill, then re-raises the timeout
        return timeout
    except BaseException as ended:  # noqa: BLE001 - every way the try ends is the outcome
        return ended
    raise AssertionError(f"{case.name}: the first try returned instead of ending early")


def run_lifecycle_case(
    make_operator: Callable[[], Any], case: LifecycleCase, *, with_store: bool = True
) -> LifecycleOutcome:
    """Run one case (see the module docstring); a fresh operator per try, one store throughout."""
    store = InMemoryTaskStateStore() if with_store else None
    ti = FakeTaskInstance(try_number=2, max_tries=1) if case in _LAST_TRY else FakeTaskInstance(max_tries=1)
    ti.api_state = _SIGTERM_STATES.get(case, "running")
    outcome = LifecycleOutcome(case)
    first = _record(make_operator(), outcome, sigterm_in_submit=case in _WHILE_SUBMITTING)
    outcome.first_try_error = _run_first_try(first, make_context(store, ti), case)
    outcome.job_id = outcome.submitted_ids[-1] if outcome.submitted_ids else None

    if case is LifecycleCase.DIED_ON_LAST_TRY:
        # Airflow runs the failure callback in another process, on a fresh copy of the operator.
        survivor = _record(make_operator(), outcome)
        callback_context = make_context(store, ti, task=survivor)
        for callback in survivor.on_failure_callback:
            callback(callback_context)
    elif not outcome.cancelled and case not in _LAST_TRY:
        retry = _record(make_operator(), outcome)
        outcome.retry_result = run_try(retry, make_context(store, ti.next_try()))
    return outcome


def assert_job_lifecycle(
    make_operator: Callable[[], Any], *, cases: Iterable[LifecycleCase] | None = None
) -> list[LifecycleOutcome]:
    """Assert every case keeps or cancels the job as the lifecycle table says; return the outcomes.

    A kept job must be the one the retry follows (one job in all) and the retry must return
    ``get_job_result()`` of it. Works on every Airflow version: below 3.3 (and with
    ``durable=False``) every case must cancel.
    """
    from resumable_jobs.mixin.errors import WorkerShutdown
    from resumable_jobs.shims import durable_supported

    probe = make_operator()
    assert getattr(probe, "wait_for_termination", True) and not getattr(probe, "deferrable", False), (
        "assert_job_lifecycle runs synchronous, waiting tries: build the operator with "
        "wait_for_termination=True and deferrable=False"
    )
    crash_recovery = durable_supported() and bool(getattr(probe, "durable", False))
    outcomes = []
    for case in cases or LifecycleCase:
        outcome = run_lifecycle_case(make_operator, case)
        assert outcome.job_id is not None, f"{case.name}: the first try submitted no job"
        cancels = expected_to_cancel(case, crash_recovery)
        if cancels:
            assert outcome.cancelled_ids == [outcome.job_id], (
                f"{case.value}: expected job {outcome.job_id!r} to be cancelled once, "
                f"cancel_job was called for {outcome.cancelled_ids}"
            )
        else:
            assert not outcome.cancelled, f"{case.value}: job {outcome.job_id!r} was cancelled, it must be kept"
            assert outcome.jobs == 1, f"{case.value}: the retry submitted another job {outcome.submitted_ids}"
            expected = probe.get_job_result(outcome.job_id, make_context(InMemoryTaskStateStore()))
            assert outcome.retry_result == expected, (
                f"{case.value}: the retry returned {outcome.retry_result!r}, expected {expected!r}"
            )
        if case in _SIGTERM_STATES and not cancels:
            assert isinstance(outcome.first_try_error, WorkerShutdown), (
                f"{case.value}: the try should end at once with WorkerShutdown, it ended with "
                f"{outcome.first_try_error!r}"
            )
        outcomes.append(outcome)
    return outcomes
