"""Simulated worker crashes at the named points of a resumable operator's life.

A real worker dies with SIGKILL: no ``except`` block, no ``finally`` that reaches the external
system. :class:`SimulatedWorkerCrash` derives from ``BaseException`` so operator code that catches
``Exception`` cannot swallow it either, and :func:`crash_at` raises it at exactly one point by
wrapping the operator's own methods (and the store's ``set``) on that one instance.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class SimulatedWorkerCrash(BaseException):
    """The worker process died here (raised by :func:`crash_at`)."""


class CrashPointNotReached(AssertionError):
    """The try finished without passing the crash point: the scenario tested nothing."""


class CrashPoint(enum.Enum):
    AFTER_SUBMIT = "after submit_job returned, before the id was persisted"
    AFTER_PERSIST = "after the id was persisted, before waiting for the job"
    MID_POLL = "while polling the running job"
    BEFORE_DEFER = "after the id was persisted, just before deferring"
    AFTER_DEFER = "after deferring, before the task resumed (trigger lost or failed)"
    AFTER_JOB_SUCCEEDED = "after the job succeeded, before the task returned"


SYNC_POINTS = (
    CrashPoint.AFTER_SUBMIT,
    CrashPoint.AFTER_PERSIST,
    CrashPoint.MID_POLL,
    CrashPoint.AFTER_JOB_SUCCEEDED,
)
SUBMIT_ONLY_POINTS = (CrashPoint.AFTER_SUBMIT, CrashPoint.AFTER_PERSIST)
DEFERRABLE_POINTS = (
    CrashPoint.AFTER_SUBMIT,
    CrashPoint.AFTER_PERSIST,
    CrashPoint.BEFORE_DEFER,
    CrashPoint.AFTER_DEFER,
    CrashPoint.AFTER_JOB_SUCCEEDED,
)


def _crash(point: CrashPoint) -> SimulatedWorkerCrash:
    return SimulatedWorkerCrash(f"simulated worker crash {point.value}")


def _raise_after(func: Callable[..., Any], point: CrashPoint) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        func(*args, **kwargs)
        raise _crash(point)

    return wrapper


def _raise_before(point: CrashPoint) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        raise _crash(point)

    return wrapper


def _defer_then_crash(defer: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            defer(*args, **kwargs)
        except BaseException as deferred:
            if type(deferred).__name__ != "TaskDeferred":
                raise
            raise _crash(CrashPoint.AFTER_DEFER) from None
        raise AssertionError("defer() returned instead of raising TaskDeferred")

    return wrapper


def _store_set_then_crash(store_set: Callable[..., Any], key: str) -> Callable[..., Any]:
    def wrapper(k: str, value: Any, **kwargs: Any) -> Any:
        store_set(k, value, **kwargs)
        if k == key:
            raise _crash(CrashPoint.AFTER_PERSIST)

    return wrapper


@contextmanager
def crash_at(operator: Any, point: CrashPoint, store: Any = None) -> Iterator[None]:
    """Make ``operator`` (and ``store``) raise :class:`SimulatedWorkerCrash` at ``point``.

    ``AFTER_PERSIST`` needs the store the operator writes to; where nothing is persisted (no
    store, the pre-3.3 shim, ``durable=False``) the crash happens right after ``submit_job``.
    The patches live on these instances only and are removed on exit.
    """
    patches: list[tuple[Any, str, Any]] = []
    persists = store is not None and getattr(operator, "durable", True)
    if point is CrashPoint.AFTER_SUBMIT or (point is CrashPoint.AFTER_PERSIST and not persists):
        patches.append((operator, "submit_job", _raise_after(operator.submit_job, point)))
    elif point is CrashPoint.AFTER_PERSIST:
        patches.append((store, "set", _store_set_then_crash(store.set, operator.external_id_key)))
    elif point is CrashPoint.MID_POLL:
        patches.append((operator, "poll_until_complete", _raise_before(point)))
    elif point is CrashPoint.BEFORE_DEFER:
        patches.append((operator, "defer", _raise_before(point)))
    elif point is CrashPoint.AFTER_DEFER:
        patches.append((operator, "defer", _defer_then_crash(operator.defer)))
    elif point is CrashPoint.AFTER_JOB_SUCCEEDED:
        # Sync: the poll finished (job succeeded). Deferrable: the trigger fired success and the
        # resumed worker died before execute_complete returned.
        patches.append(
            (operator, "poll_until_complete", _raise_after(operator.poll_until_complete, point))
        )
        patches.append((operator, "execute_complete", _raise_before(point)))
    for target, name, replacement in patches:
        object.__setattr__(target, name, replacement)
    try:
        yield
    finally:
        for target, name, _ in patches:
            target.__dict__.pop(name, None)
