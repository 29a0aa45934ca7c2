"""A task instance and context just real enough to run an operator's ``execute`` in a test.

The core mixin reads ``task_state_store`` and, when present, ``ti`` (``try_number``,
``max_tries``, ``task_id``, ``map_index``); operators push XComs through ``ti``. This module
gives exactly those, plus the two transitions a crash test needs: the next try of the same task
instance (a retry) and a clear (Airflow raises ``max_tries`` when it clears a task instance).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from resumable_jobs.testing.store import InMemoryTaskStateStore


@dataclass
class FakeTaskInstance:
    """The fields of ``RuntimeTaskInstance`` the package uses, and an XCom dict."""

    task_id: str = "resumable_task"
    dag_id: str = "resumable_dag"
    run_id: str = "manual__2026-01-01T00:00:00+00:00"
    try_number: int = 1
    max_tries: int = 1
    map_index: int = -1
    xcom: dict[str, Any] = field(default_factory=dict)

    def xcom_push(self, key: str, value: Any) -> None:
        self.xcom[key] = value

    def xcom_pull(self, task_ids: Any = None, key: str = "return_value", **_: Any) -> Any:
        return self.xcom.get(key)

    def next_try(self) -> FakeTaskInstance:
        """The retry Airflow schedules after a failed try: same instance, ``try_number + 1``."""
        return replace(self, try_number=self.try_number + 1, xcom={})

    def cleared(self, *, retries: int | None = None) -> FakeTaskInstance:
        """The try Airflow runs after a clear: ``max_tries`` becomes ``try_number + retries``."""
        retries = self.max_tries if retries is None else retries
        return replace(self, try_number=self.try_number + 1, max_tries=self.try_number + retries, xcom={})


def make_context(
    store: InMemoryTaskStateStore | None = None,
    ti: FakeTaskInstance | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A context dict with ``task_state_store`` and ``ti`` (either may be left out)."""
    context: dict[str, Any] = {"params": {}}
    if store is not None:
        context["task_state_store"] = store
    if ti is not None:
        context["ti"] = ti
        context["task_instance"] = ti
        context["map_index"] = ti.map_index
    context.update(extra)
    return context
