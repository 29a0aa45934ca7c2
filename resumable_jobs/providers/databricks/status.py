"""How a Databricks run's state maps onto the mixin's active / succeeded / ended outcomes.

A Databricks run carries two state fields: ``life_cycle_state`` (where the run is) and
``result_state`` (how it ended, once it ended). The mixin asks for one status string, so the two
are joined as ``"LIFE_CYCLE:RESULT"`` (``"RUNNING"`` while no result exists yet) and read back by
:func:`is_active` and :func:`is_succeeded`. Anything that is neither - ``TERMINATED:FAILED``,
``TERMINATED:CANCELED``, ``INTERNAL_ERROR``, ``SKIPPED`` - is a terminal failure, after which
a retry starts a new run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "ACTIVE_LIFE_CYCLE_STATES",
    "failure_message",
    "is_active",
    "is_succeeded",
    "status_of",
]

#: Life-cycle states in which the run may still finish: a retry reconnects to it.
ACTIVE_LIFE_CYCLE_STATES = frozenset({"PENDING", "QUEUED", "RUNNING", "TERMINATING", "BLOCKED", "WAITING_FOR_RETRY"})
_SUCCEEDED = ("TERMINATED", "SUCCESS")


def status_of(state: Mapping[str, Any] | None) -> str:
    """``{"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"}`` -> ``"TERMINATED:SUCCESS"``.

    A run without a result yet gives its life-cycle state alone (``"RUNNING"``).
    """
    state = state or {}
    life_cycle = state.get("life_cycle_state") or "UNKNOWN"
    result = state.get("result_state")
    return f"{life_cycle}:{result}" if result else life_cycle


def _split(status: str) -> tuple[str, str]:
    life_cycle, _, result = status.partition(":")
    return life_cycle, result


def is_active(status: str) -> bool:
    """True while the run is pending, queued, running, terminating, blocked or waiting for a retry."""
    return _split(status)[0] in ACTIVE_LIFE_CYCLE_STATES


def is_succeeded(status: str) -> bool:
    """True only for a run that terminated with result ``SUCCESS``."""
    return _split(status) == _SUCCEEDED


def failure_message(
    run_id: Any,
    state: Mapping[str, Any] | None,
    failed_tasks: Iterable[Mapping[str, Any]] = (),
) -> str:
    """The message a failed run raises with: its state, its message and each failed task's error."""
    state = state or {}
    life_cycle, result = _split(status_of(state))
    message = f"Databricks run {run_id} ended {life_cycle}"
    if result:
        message += f" with result {result}"
    if state.get("state_message"):
        message += f": {state['state_message']}"
    details = [
        f"{task.get('task_key', '?')} (run {task.get('run_id', '?')}): {task.get('error') or 'no error message'}"
        for task in failed_tasks
    ]
    if details:
        message += ". Failed tasks: " + "; ".join(details)
    return message
