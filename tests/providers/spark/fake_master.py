"""A fake Spark standalone REST submission server for unit tests, reachable two ways.

``mount(requests_mock, base_url)`` answers the operator's synchronous ``requests`` calls through
requests-mock; ``serve()`` answers real HTTP on 127.0.0.1 for the trigger's ``aiohttp`` calls
(requests-mock cannot see aiohttp). Both read and change the same drivers, so a test can submit
synchronously and wait in the trigger against one master. Replies have the shapes a Spark 4
master sends (``CreateSubmissionResponse``, ``SubmissionStatusResponse``,
``KillSubmissionResponse``).
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

SERVER_VERSION = "4.3.0"
WORKER_ID = "worker-20260101000000-127.0.0.1-7078"
ERROR_TRACE = "Exception from the cluster:\njava.io.FileNotFoundException: /apps/missing.py (No such file or directory)"


@dataclass
class FakeDriver:
    driver_id: str
    request: dict[str, Any]
    #: states reported by successive status calls; the last one repeats
    states: list[str]
    message: str | None = None
    status_calls: int = 0

    @property
    def state(self) -> str:
        return self.states[min(self.status_calls, len(self.states) - 1)]


@dataclass
class FakeSparkMaster:
    """Every new driver reports RUNNING ``running_polls`` times, then ``outcome`` (FINISHED)."""

    running_polls: int = 1
    outcome: str = "FINISHED"
    outcome_message: str | None = None
    standby: bool = False
    drivers: dict[str, FakeDriver] = field(default_factory=dict)
    creates: list[dict[str, Any]] = field(default_factory=list)
    kills: list[str] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count())
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ----------------------------------------------------------------- the three endpoints
    def create(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if self.standby:
                return 200, self._reply("CreateSubmissionResponse", success=False, message=self._not_alive("submit"))
            if body.get("action") != "CreateSubmissionRequest" or not body.get("mainClass"):
                return 400, self._reply("ErrorResponse", message="Malformed request: Main class is missing.")
            self.creates.append(body)
            driver_id = f"driver-20260101000000-{next(self._ids):04d}"
            states = ["RUNNING"] * self.running_polls + [self.outcome]
            self.drivers[driver_id] = FakeDriver(driver_id, body, states, self.outcome_message)
            return 200, self._reply(
                "CreateSubmissionResponse",
                success=True,
                submissionId=driver_id,
                message=f"Driver successfully submitted as {driver_id}",
            )

    def status(self, driver_id: str) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if self.standby:
                return 200, self._reply(
                    "SubmissionStatusResponse",
                    submissionId=driver_id,
                    success=False,
                    message="Exception from the cluster:\njava.lang.Exception: "
                    + self._not_alive("request driver status"),
                )
            driver = self.drivers.get(driver_id)
            if driver is None:
                return 200, self._reply("SubmissionStatusResponse", submissionId=driver_id, success=False)
            state = driver.state
            driver.status_calls += 1
            reply = self._reply(
                "SubmissionStatusResponse",
                submissionId=driver_id,
                success=True,
                driverState=state,
                workerId=WORKER_ID,
                workerHostPort="127.0.0.1:7078",
            )
            if driver.message and state in ("ERROR", "FAILED", "KILLED"):
                reply["message"] = driver.message
            return 200, reply

    def kill(self, driver_id: str) -> tuple[int, dict[str, Any]]:
        with self._lock:
            driver = self.drivers.get(driver_id)
            if driver is None or driver.state not in ("SUBMITTED", "RUNNING", "RELAUNCHING"):
                return 200, self._reply(
                    "KillSubmissionResponse",
                    submissionId=driver_id,
                    success=False,
                    message=f"Driver {driver_id} has already finished or does not exist",
                )
            self.kills.append(driver_id)
            driver.states = ["KILLED"]
            driver.status_calls = 0
            return 200, self._reply(
                "KillSubmissionResponse",
                submissionId=driver_id,
                success=True,
                message=f"Kill request for {driver_id} submitted",
            )

    # ----------------------------------------------------------------- helpers for tests
    def finish(self, driver_id: str, state: str = "FINISHED", message: str | None = None) -> None:
        """Make ``driver_id`` report ``state`` from now on."""
        driver = self.drivers[driver_id]
        driver.states, driver.status_calls, driver.message = [state], 0, message

    def forget_all(self) -> None:
        """What a master restarted without recovery knows: nothing."""
        self.drivers.clear()

    @staticmethod
    def _not_alive(what: str) -> str:
        return f"Current state is not alive: STANDBY. Can only {what} in ALIVE state."

    @staticmethod
    def _reply(action: str, **fields: Any) -> dict[str, Any]:
        return {"action": action, "serverSparkVersion": SERVER_VERSION, **fields}

    def dispatch(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
        if method == "POST" and path == "/v1/submissions/create":
            return self.create(body or {})
        match = re.fullmatch(r"/v1/submissions/(status|kill)/([^/]+)", path)
        if match and (match.group(1), method) in (("status", "GET"), ("kill", "POST")):
            return getattr(self, match.group(1))(match.group(2))
        return 400, self._reply("ErrorResponse", message=f"Unknown path {path}")

    # ----------------------------------------------------------------- the two transports
    def mount(self, requests_mock: Any, base_url: str) -> None:
        """Answer ``requests`` calls to ``base_url`` through requests-mock."""

        def respond(request: Any, context: Any) -> dict[str, Any]:
            body = request.json() if request.body else None
            path = request.path_url.split("?", 1)[0]
            context.status_code, reply = self.dispatch(request.method, path, body)
            return reply

        pattern = re.compile(re.escape(base_url) + r"/v1/submissions/.*")
        for method in ("GET", "POST"):
            requests_mock.register_uri(method, pattern, json=respond)

    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve real HTTP on a free port of 127.0.0.1; yield its base URL."""
        from resumable_jobs.local.http_standin import serve_http

        with serve_http(lambda method, target, body: (*self.dispatch(method, target, body), {})) as url:
            yield url
