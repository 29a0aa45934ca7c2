"""The handful of Airflow REST API calls a crash drill makes, as a user or an operator would.

What it is for: the production crash suite triggers runs, watches task instances, reads XComs,
marks a running task failed and clears a finished one through Airflow's public REST API
(``/api/v2``), so every state it asserts is the state Airflow itself reports - not a row read
behind the api-server's back.

How it works: :class:`AirflowRest` wraps ``urllib`` JSON calls (:func:`resumable_jobs.local.net.http_json`)
for one api-server. The deployment runs the simple auth manager with
``simple_auth_manager_all_admins``, so no token is needed. The ``wait_for_*`` helpers poll until
a state is reached and fail fast, with the states seen, when the run ended in another one.

What it does not do: it covers only what the drills need, not the API; it holds no credentials.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable, Collection
from typing import Any

from resumable_jobs.local.net import HttpError, http_json, wait_until

__all__ = ["AirflowRest", "RunEndedError"]

FINISHED_RUN_STATES = frozenset({"success", "failed"})


class RunEndedError(AssertionError):
    """The DAG run ended while a drill was still waiting for one of its task's states."""


def _q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


class AirflowRest:
    """A small client for one api-server's ``/api/v2`` (see the module docstring)."""

    def __init__(self, base_url: str, *, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        return http_json(method, f"{self.base_url}/api/v2{path}", body, timeout=self.timeout)

    # ----------------------------------------------------------------- deployment
    def health(self) -> dict[str, Any]:
        return self._call("GET", "/monitor/health")

    def healthy(self, *components: str) -> bool:
        """True when the api-server answers and each named component reports ``healthy``."""
        report = self.health()
        return all((report.get(name) or {}).get("status") == "healthy" for name in components)

    def dag(self, dag_id: str) -> dict[str, Any] | None:
        try:
            return self._call("GET", f"/dags/{_q(dag_id)}")
        except HttpError as error:
            if error.status == 404:
                return None
            raise

    def wait_for_dags(self, dag_ids: Collection[str], *, timeout: float = 300.0) -> None:
        """Wait until the dag-processor has parsed every DAG in ``dag_ids``."""
        for dag_id in dag_ids:
            wait_until(lambda d=dag_id: self.dag(d), timeout=timeout, what=f"DAG {dag_id} to be parsed")

    # ----------------------------------------------------------------- runs
    def trigger(self, dag_id: str, run_id: str, conf: dict[str, Any] | None = None) -> str:
        body = {"dag_run_id": run_id, "logical_date": None, "conf": conf or {}}
        return self._call("POST", f"/dags/{_q(dag_id)}/dagRuns", body)["dag_run_id"]

    def dag_run(self, dag_id: str, run_id: str) -> dict[str, Any]:
        return self._call("GET", f"/dags/{_q(dag_id)}/dagRuns/{_q(run_id)}")

    def wait_for_run(
        self, dag_id: str, run_id: str, *, states: Collection[str] = FINISHED_RUN_STATES, timeout: float = 600.0
    ) -> str:
        run = wait_until(
            lambda: (r := self.dag_run(dag_id, run_id))["state"] in states and r,
            timeout=timeout,
            what=f"DAG run {dag_id}/{run_id} to reach {sorted(states)}",
            interval=1.0,
        )
        return run["state"]

    # ----------------------------------------------------------------- task instances
    def task_instance(self, dag_id: str, run_id: str, task_id: str) -> dict[str, Any]:
        return self._call("GET", f"/dags/{_q(dag_id)}/dagRuns/{_q(run_id)}/taskInstances/{_q(task_id)}")

    def tries(self, dag_id: str, run_id: str, task_id: str) -> list[dict[str, Any]]:
        """Every try of the task instance Airflow recorded (earlier tries and the current one)."""
        path = f"/dags/{_q(dag_id)}/dagRuns/{_q(run_id)}/taskInstances/{_q(task_id)}/tries"
        return list(self._call("GET", path).get("task_instances") or [])

    def wait_for_task(
        self,
        dag_id: str,
        run_id: str,
        task_id: str,
        predicate: Callable[[dict[str, Any]], bool],
        *,
        what: str,
        timeout: float = 300.0,
    ) -> dict[str, Any]:
        """Poll the task instance until ``predicate(ti)``; fail at once if the run ended first."""

        def reached() -> dict[str, Any] | None:
            ti = self.task_instance(dag_id, run_id, task_id)
            if predicate(ti):
                return ti
            run_state = self.dag_run(dag_id, run_id)["state"]
            if run_state in FINISHED_RUN_STATES:
                raise RunEndedError(
                    f"DAG run {dag_id}/{run_id} ended {run_state} while waiting for {task_id} to be {what}; "
                    f"the task is {ti.get('state')} (try {ti.get('try_number')})"
                )
            return None

        return wait_until(reached, timeout=timeout, what=f"{dag_id}/{run_id}/{task_id} to be {what}", interval=0.5)

    def set_task_state(self, dag_id: str, run_id: str, task_id: str, state: str) -> None:
        """Mark the task instance ``state`` (e.g. ``failed``), as the UI's "Mark as" does."""
        path = f"/dags/{_q(dag_id)}/dagRuns/{_q(run_id)}/taskInstances/{_q(task_id)}"
        self._call("PATCH", path, {"new_state": state})

    def clear_task(self, dag_id: str, run_id: str, task_id: str) -> None:
        """Clear one finished task instance so the scheduler runs it again."""
        body = {"dry_run": False, "only_failed": False, "task_ids": [task_id], "dag_run_id": run_id}
        self._call("POST", f"/dags/{_q(dag_id)}/clearTaskInstances", body)

    def events(self, dag_id: str, run_id: str, event: str) -> list[dict[str, Any]]:
        """Audit-log entries named ``event`` for the run (e.g. ``heartbeat timeout``, written by the scheduler)."""
        query = urllib.parse.urlencode({"dag_id": dag_id, "run_id": run_id, "event": event, "limit": 100})
        return list(self._call("GET", f"/eventLogs?{query}").get("event_logs") or [])

    def xcom(self, dag_id: str, run_id: str, task_id: str, key: str = "return_value") -> Any:
        """The deserialized XCom value, or None when there is none."""
        path = f"/dags/{_q(dag_id)}/dagRuns/{_q(run_id)}/taskInstances/{_q(task_id)}/xcomEntries/{_q(key)}"
        try:
            return self._call("GET", f"{path}?deserialize=true").get("value")
        except HttpError as error:
            if error.status == 404:
                return None
            raise
