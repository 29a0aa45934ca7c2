"""A task instance and context just real enough to run an operator's ``execute`` in a test.

The core mixin reads ``task_state_store`` and, when present, ``ti`` (``try_number``,
``max_tries``, ``task_id``, ``map_index``, and ``stats_tags`` for the metric tags); operators push XComs through ``ti``; ``on_kill`` asks
the Execution API for the task instance's own state (``ti.get_task_states``). This module gives
exactly those - the API's answer is a field you set - plus the two transitions a crash test
needs: the next try of the same task instance (a retry) and a clear (Airflow raises
``max_tries`` when it clears a task instance).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from resumable_jobs.testing.store import InMemoryTaskStateStore

#: ``FakeTaskInstance.api_state`` values that are not a state: the task instance was deleted, or
#: the API server does not answer.
DELETED = "<deleted>"
UNREACHABLE = "<unreachable>"


@dataclass
class FakeTaskInstance:
    """The fields of ``RuntimeTaskInstance`` the package uses, an XCom dict, and the API's answer.

    ``api_state`` is what the Execution API says this task instance's state is: ``"running"``
    (a worker shutting down), ``"failed"``/``"success"``/``"skipped"`` (marked while running),
    ``"restarting"`` (cleared while running), :data:`DELETED`, or :data:`UNREACHABLE` (the call
    raises); ``api_delay`` seconds pass before the answer (a slow API server).
    """

    task_id: str = "resumable_task"
    dag_id: str = "resumable_dag"
    run_id: str = "manual__2026-01-01T00:00:00+00:00"
    try_number: int = 1
    max_tries: int = 1
    map_index: int = -1
    xcom: dict[str, Any] = field(default_factory=dict)
    api_state: str | None = "running"
    api_delay: float = 0.0
    api_calls: int = 0
    #: The team of a multi-team deployment (None: no teams), as the DAG run carries it.
    team_name: str | None = None

    @property
    def stats_tags(self) -> dict[str, str]:
        """``RuntimeTaskInstance.stats_tags``: the tags Airflow puts on this task's metrics."""
        tags = {"dag_id": self.dag_id, "task_id": self.task_id}
        if self.team_name:
            tags["team_name"] = self.team_name
        return tags

    def xcom_push(self, key: str, value: Any) -> None:
        self.xcom[key] = value

    def xcom_pull(self, task_ids: Any = None, key: str = "return_value", **_: Any) -> Any:
        return self.xcom.get(key)

    def get_task_states(self, dag_id: str, map_index: int | None = None, **filters: Any) -> dict[str, Any]:
        """The Execution API's ``GET /task-instances/states`` answer for this task instance."""
        self.api_calls += 1
        if self.api_delay:
            time.sleep(self.api_delay)
        if self.api_state == UNREACHABLE:
            raise ConnectionError("the API server is unreachable")
        if self.api_state == DELETED:
            return {self.run_id: {}}
        key = self.task_id if self.map_index < 0 else f"{self.task_id}_{self.map_index}"
        return {self.run_id: {key: self.api_state}}

    def next_try(self) -> FakeTaskInstance:
        """The retry Airflow schedules after a failed try: same instance, ``try_number + 1``."""
        return replace(self, try_number=self.try_number + 1, xcom={}, api_calls=0)

    def cleared(self, *, retries: int | None = None) -> FakeTaskInstance:
        """The try Airflow runs after a clear: ``max_tries`` becomes ``try_number + retries``."""
        retries = self.max_tries if retries is None else retries
        return replace(
            self, try_number=self.try_number + 1, max_tries=self.try_number + retries, xcom={}, api_calls=0
        )


@dataclass(frozen=True)
class FakeDag:
    """The ``dag`` of a context, as far as operators read it: its id (pod labels, links)."""

    dag_id: str


def make_context(
    store: InMemoryTaskStateStore | None = None,
    ti: FakeTaskInstance | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A context dict with ``task_state_store`` and ``ti`` (either may be left out).

    With a ``ti`` it also carries ``run_id`` and ``dag`` (an object with ``dag_id``), which
    operators that label what they create with the task instance read (KubernetesPodOperator).
    """
    context: dict[str, Any] = {"params": {}}
    if store is not None:
        context["task_state_store"] = store
    if ti is not None:
        context["ti"] = ti
        context["task_instance"] = ti
        context["map_index"] = ti.map_index
        context["run_id"] = ti.run_id
        context["dag"] = FakeDag(ti.dag_id)
    context.update(extra)
    return context
