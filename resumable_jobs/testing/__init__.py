"""Crash-safety conformance kit: test your own resumable operator against simulated crashes.

* :class:`InMemoryTaskStateStore` - a ``task_state_store`` as strict as Airflow's.
* :func:`make_context`, :class:`FakeTaskInstance` - a context with ``ti`` (retry and clear).
* :class:`CrashPoint`, :func:`crash_at` - a simulated worker death at a named point.
* :func:`run_crash_scenario`, :func:`assert_crash_safe` - the crash matrix.
* :func:`run_lifecycle_case`, :func:`assert_job_lifecycle` - the job-lifecycle table: the job is
  kept while a retry will follow it and cancelled when none will.
* :func:`run_cleared_task`, :func:`assert_clear_semantics` - a cleared task instance, whether the
  clear keeps ``task_state_store`` or discards it: one new job, the running one cancelled.
* :mod:`resumable_jobs.testing.fake_system` - a fake job system and a reference operator.
"""

from __future__ import annotations

from resumable_jobs.testing.clear import ClearBehaviour, ClearOutcome, assert_clear_semantics, run_cleared_task
from resumable_jobs.testing.context import DELETED, UNREACHABLE, FakeTaskInstance, make_context
from resumable_jobs.testing.crash import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    CrashPointNotReached,
    SimulatedWorkerCrash,
    crash_at,
)
from resumable_jobs.testing.lifecycle import (
    LifecycleCase,
    LifecycleOutcome,
    assert_job_lifecycle,
    run_lifecycle_case,
)
from resumable_jobs.testing.matrix import (
    ScenarioResult,
    assert_crash_safe,
    run_crash_scenario,
    run_trigger_until_event,
    run_try,
)
from resumable_jobs.testing.store import InMemoryTaskStateStore, StoreOperation

__all__ = [
    "DELETED",
    "ClearBehaviour",
    "ClearOutcome",
    "DEFERRABLE_POINTS",
    "SUBMIT_ONLY_POINTS",
    "SYNC_POINTS",
    "CrashPoint",
    "CrashPointNotReached",
    "FakeTaskInstance",
    "InMemoryTaskStateStore",
    "LifecycleCase",
    "LifecycleOutcome",
    "ScenarioResult",
    "SimulatedWorkerCrash",
    "StoreOperation",
    "UNREACHABLE",
    "assert_clear_semantics",
    "assert_crash_safe",
    "assert_job_lifecycle",
    "crash_at",
    "make_context",
    "run_cleared_task",
    "run_crash_scenario",
    "run_lifecycle_case",
    "run_trigger_until_event",
    "run_try",
]
