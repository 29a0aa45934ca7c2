"""A Databricks Jobs API (2.2) workspace model that the real ``DatabricksHook`` and trigger talk to.

What it is for: the provider's unit tests and the production crash suite need a Databricks that
behaves like the real service where crash safety depends on it, without an account:
``idempotency_token`` deduplicates submissions (same token -> same run id), a forgotten run answers
404, ``runs/cancel`` ends a run, ``runs/get`` reports the life-cycle and result states the hook
parses.

How it works: :class:`DatabricksWorkspace` answers ``handle(method, path, body)`` for
``/api/2.2/jobs/...`` and is reached through any transport - ``requests-mock`` in unit tests
(:meth:`DatabricksWorkspace.install`), a real HTTP server in a process of its own for the crash
suite (:mod:`resumable_jobs.local.standins.server`). A run progresses in one of two ways: by
default it answers RUNNING for a number of ``runs/get`` reads (``active_reads``), which suits
in-process tests that count reads; with ``hold_seconds`` set it stays RUNNING until released
(:meth:`DatabricksWorkspace.release`) or until that many seconds passed, which suits separate
processes where nobody can predict the number of reads. Every request is logged with its time
(:attr:`DatabricksWorkspace.requests`), so a benchmark can count status calls.

What it does not do: no clusters, notebooks, permissions or output beyond one failed task's error;
job settings are only what ``run-now`` by name needs.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["ACTIVE_READS", "TASK_ERROR", "DatabricksRun", "DatabricksWorkspace", "page_url"]

ACTIVE_READS = 3  # runs/get reads a run answers RUNNING before it terminates
TASK_ERROR = "ZeroDivisionError: division by zero"


@dataclass
class DatabricksRun:
    """One run: its request, its token, and how it progresses (reads or held time)."""

    run_id: int
    job_id: int
    endpoint: str
    body: dict[str, Any]
    token: str | None
    result: str = "SUCCESS"
    active_reads: int = ACTIVE_READS
    life_cycle: str = "PENDING"
    message: str = ""
    repairs: int = 0
    #: Held runs (``hold_seconds`` mode): RUNNING until released or until this clock time.
    hold_until: float | None = None
    released: bool = False
    created: float = 0.0
    ended: float | None = None

    def advance(self, now: float) -> None:
        """Move the run on by one read at time ``now``."""
        if self.life_cycle not in ("PENDING", "RUNNING"):
            return
        if self.hold_until is not None:
            if not self.released and now < self.hold_until:
                self.life_cycle = "RUNNING"
                return
        elif self.active_reads > 0:
            self.active_reads -= 1
            self.life_cycle = "RUNNING"
            return
        self.life_cycle = "TERMINATED"
        self.ended = now
        if self.result != "SUCCESS":
            self.message = "Task etl failed with message: Workload failed."

    def read(self, now: float | None = None) -> dict[str, Any]:
        self.advance(time.time() if now is None else now)
        return self.describe()

    @property
    def active(self) -> bool:
        return self.life_cycle in ("PENDING", "RUNNING")

    def summary(self) -> dict[str, Any]:
        """What the crash suite asserts on: id, token, state, result and times."""
        return {
            "id": self.run_id,
            "endpoint": self.endpoint,
            "token": self.token,
            "state": self.life_cycle,
            "result": self.result if self.life_cycle == "TERMINATED" else None,
            "created": self.created,
            "ended": self.ended,
        }

    def describe(self) -> dict[str, Any]:
        """The ``runs/get`` answer for the run as it is now."""
        state: dict[str, Any] = {
            "life_cycle_state": self.life_cycle,
            "state_message": self.message,
        }
        if self.life_cycle == "TERMINATED":
            state["result_state"] = self.result
        task_state = {"life_cycle_state": self.life_cycle}
        if self.life_cycle == "TERMINATED":
            task_state["result_state"] = self.result
        return {
            "run_id": self.run_id,
            "job_id": self.job_id,
            "run_page_url": page_url(self.run_id),
            "state": state,
            "tasks": [
                {
                    "task_key": "etl",
                    "run_id": self.task_run_id,
                    "attempt_number": self.repairs,
                    "state": task_state,
                }
            ],
            "repair_history": [{"type": "ORIGINAL", "id": self.run_id}]
            + [{"type": "REPAIR", "id": 9000 + i} for i in range(self.repairs)],
        }

    @property
    def task_run_id(self) -> int:
        return self.run_id * 100 + 1


def page_url(run_id: int) -> str:
    return f"https://dbc-fake.cloud.databricks.com/?o=42#job/7/run/{run_id}"


@dataclass
class DatabricksWorkspace:
    """Runs, every request that changed something, and every request with its time."""

    runs: dict[int, DatabricksRun] = field(default_factory=dict)
    posts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reads: int = 0
    fail_next: int = 0  # the next N new runs end FAILED
    jobs_by_name: dict[str, int] = field(default_factory=lambda: {"nightly": 7})
    #: ``runs/get`` reads a new run answers RUNNING before it terminates (when not held).
    active_reads: int = ACTIVE_READS
    #: When set, new runs are held RUNNING this long (or until released) instead of counting reads.
    hold_seconds: float | None = None
    clock: Callable[[], float] = time.time
    #: ``{"time", "method", "endpoint", "run_id"}`` for every API request, in order.
    requests: list[dict[str, Any]] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1001))
    _lock: threading.RLock = field(default_factory=threading.RLock)

    # ------------------------------------------------------------- the stand-in's control surface
    def summaries(self) -> list[dict[str, Any]]:
        """Every run, oldest first, as :meth:`DatabricksRun.summary` dicts (states brought up to date)."""
        with self._lock:
            now = self.clock()
            for run in self.runs.values():
                if run.hold_until is not None:
                    run.advance(now)
            return [run.summary() for run in self.runs.values()]

    def release(self, run_id: int) -> bool:
        """Let a held run finish (with its planned result) at its next read; False if unknown."""
        with self._lock:
            run = self.runs.get(int(run_id))
            if run is None:
                return False
            run.released = True
            return True

    # ------------------------------------------------------------- what tests assert on
    def started(self, endpoint: str | None = None) -> list[dict[str, Any]]:
        """Bodies of the POSTs that ask for a run (runs/submit and run-now)."""
        wanted = (endpoint,) if endpoint else ("runs/submit", "run-now")
        return [body for ep, body in self.posts if ep in wanted]

    def tokens(self, endpoint: str | None = None) -> list[str | None]:
        return [body.get("idempotency_token") for body in self.started(endpoint)]

    def calls(self, endpoint: str) -> list[dict[str, Any]]:
        return [body for ep, body in self.posts if ep == endpoint]

    def forget(self, run_id: int) -> None:
        self.runs.pop(run_id, None)

    def add_run(
        self,
        *,
        result: str = "SUCCESS",
        active_reads: int = ACTIVE_READS,
        endpoint: str = "runs/submit",
    ) -> int:
        """A run that something else (the upstream operator, an earlier deployment) started."""
        return self._new_run(endpoint, {}, None, result=result, active_reads=active_reads)

    # ------------------------------------------------------------- the API
    def _new_run(self, endpoint: str, body: dict[str, Any], token: str | None, **kwargs: Any) -> int:
        kwargs.setdefault("active_reads", self.active_reads)
        run_id = next(self._ids)
        job_id = int(body.get("job_id", 7)) if endpoint == "run-now" else 7
        now = self.clock()
        hold_until = now + self.hold_seconds if self.hold_seconds is not None else None
        self.runs[run_id] = DatabricksRun(
            run_id, job_id, endpoint, body, token, hold_until=hold_until, created=now, **kwargs
        )
        return run_id

    def handle(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        endpoint = path.split("/api/2.2/jobs/", 1)[-1]
        with self._lock:
            self.requests.append(
                {"time": self.clock(), "method": method, "endpoint": endpoint, "run_id": body.get("run_id")}
            )
            if method == "POST":
                self.posts.append((endpoint, body))
            if endpoint in ("runs/submit", "run-now"):
                token = body.get("idempotency_token")
                for run in self.runs.values():
                    if token is not None and run.token == token:
                        return 200, {"run_id": run.run_id}
                result = "SUCCESS"
                if self.fail_next:
                    self.fail_next -= 1
                    result = "FAILED"
                return 200, {"run_id": self._new_run(endpoint, body, token, result=result)}
            if endpoint == "runs/get":
                self.reads += 1
                run = self.runs.get(int(body["run_id"]))
                if run is None:
                    return 404, {
                        "error_code": "RESOURCE_DOES_NOT_EXIST",
                        "message": f"Run {body['run_id']} does not exist.",
                    }
                return 200, run.read(self.clock())
            if endpoint == "runs/get-output":
                return 200, {
                    "error": TASK_ERROR,
                    "metadata": {"run_id": int(body["run_id"])},
                }
            if endpoint == "runs/cancel":
                run = self.runs[int(body["run_id"])]
                if run.active:
                    run.life_cycle, run.result, run.active_reads, run.ended = "TERMINATED", "CANCELED", 0, self.clock()
                return 200, {}
            if endpoint == "runs/cancel-all":
                for run in self.runs.values():
                    if run.job_id == int(body["job_id"]) and run.life_cycle in (
                        "PENDING",
                        "RUNNING",
                    ):
                        run.life_cycle, run.result, run.ended = "TERMINATED", "CANCELED", self.clock()
                return 200, {}
            if endpoint == "runs/repair":
                run = self.runs[int(body["run_id"])]
                run.repairs += 1
                run.life_cycle, run.result, run.active_reads, run.message, run.ended = "RUNNING", "SUCCESS", 1, "", None
                return 200, {"repair_id": 9000 + run.repairs}
            if endpoint == "update":
                return 200, {}
            if endpoint == "list":
                name = body.get("name")
                jobs = [
                    {"job_id": job_id, "settings": {"name": n}} for n, job_id in self.jobs_by_name.items() if n == name
                ]
                return 200, {"jobs": jobs}
        return 404, {
            "error_code": "ENDPOINT_NOT_FOUND",
            "message": f"no fake for {method} {path}",
        }

    # ------------------------------------------------------------- transports
    def install(self, requests_mock: Any, base_url: str) -> None:
        """Route the sync hook's requests for ``base_url`` to this workspace."""

        def callback(request: Any, context: Any) -> dict[str, Any]:
            if request.method == "GET":
                query = parse_qs(urlsplit(request.url).query)
                body = {key: values[-1] for key, values in query.items()}
            else:
                body = request.json() if request.body else {}
            context.status_code, answer = self.handle(request.method, urlsplit(request.url).path, body)
            return answer

        every_path = re.compile(re.escape(base_url) + ".*")
        for method in ("GET", "POST"):
            requests_mock.register_uri(method, every_path, json=callback)
