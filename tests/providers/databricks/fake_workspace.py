"""A fake Databricks Jobs API (2.2) that the real ``DatabricksHook`` and trigger talk to.

One state object answers two transports: ``requests-mock`` intercepts the synchronous hook's
``requests`` calls, and a small aiohttp server on 127.0.0.1 answers the asynchronous calls of the
real ``DatabricksExecutionTrigger``. Both see the same runs, so a run submitted through the sync
hook is the run the trigger polls.

Behaviour that matters for crash safety is modelled on the real service: ``idempotency_token``
deduplicates submissions (same token -> same run id), a run stays active for a number of
``runs/get`` reads before it terminates, a forgotten run answers 404, ``runs/cancel`` ends it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import socket
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

ACTIVE_READS = 3  # runs/get reads a run answers RUNNING before it terminates
TASK_ERROR = "ZeroDivisionError: division by zero"


@dataclass
class FakeRun:
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

    def read(self) -> dict[str, Any]:
        if self.life_cycle in ("PENDING", "RUNNING"):
            if self.active_reads > 0:
                self.active_reads -= 1
                self.life_cycle = "RUNNING"
            else:
                self.life_cycle = "TERMINATED"
                if self.result != "SUCCESS":
                    self.message = "Task etl failed with message: Workload failed."
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
class FakeWorkspace:
    """Runs and every request that changed something, in order."""

    runs: dict[int, FakeRun] = field(default_factory=dict)
    posts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    reads: int = 0
    fail_next: int = 0  # the next N new runs end FAILED
    jobs_by_name: dict[str, int] = field(default_factory=lambda: {"nightly": 7})
    _ids: Any = field(default_factory=lambda: itertools.count(1001))
    _lock: threading.Lock = field(default_factory=threading.Lock)

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
        run_id = next(self._ids)
        job_id = int(body.get("job_id", 7)) if endpoint == "run-now" else 7
        self.runs[run_id] = FakeRun(run_id, job_id, endpoint, body, token, **kwargs)
        return run_id

    def handle(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        endpoint = path.split("/api/2.2/jobs/", 1)[-1]
        with self._lock:
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
                return 200, run.read()
            if endpoint == "runs/get-output":
                return 200, {
                    "error": TASK_ERROR,
                    "metadata": {"run_id": int(body["run_id"])},
                }
            if endpoint == "runs/cancel":
                run = self.runs[int(body["run_id"])]
                run.life_cycle, run.result, run.active_reads = (
                    "TERMINATED",
                    "CANCELED",
                    0,
                )
                return 200, {}
            if endpoint == "runs/cancel-all":
                for run in self.runs.values():
                    if run.job_id == int(body["job_id"]) and run.life_cycle in (
                        "PENDING",
                        "RUNNING",
                    ):
                        run.life_cycle, run.result = "TERMINATED", "CANCELED"
                return 200, {}
            if endpoint == "runs/repair":
                run = self.runs[int(body["run_id"])]
                run.repairs += 1
                run.life_cycle, run.result, run.active_reads, run.message = (
                    "RUNNING",
                    "SUCCESS",
                    1,
                    "",
                )
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


class AsyncApiServer:
    """An aiohttp server on 127.0.0.1 (own thread) answering for whichever workspace is current."""

    def __init__(self) -> None:
        self.workspace: FakeWorkspace | None = None
        self._loop = asyncio.new_event_loop()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._runner: Any = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="fake-databricks-api", daemon=True)

    async def _answer(self, request: Any) -> Any:
        from aiohttp import web

        body: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            body.update(await request.json())
        if self.workspace is None:
            return web.json_response({"message": "no workspace"}, status=503)
        status_code, answer = self.workspace.handle(request.method, request.path, body)
        return web.json_response(answer, status=status_code)

    def start(self) -> AsyncApiServer:
        from aiohttp import web

        app = web.Application()
        app.router.add_route("*", "/api/2.2/jobs/{tail:.*}", self._answer)
        self._runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(self._runner.setup())
        self._loop.run_until_complete(web.SockSite(self._runner, self._sock).start())
        self._thread.start()
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def connection_uri_json(self) -> str:
        return json.dumps(
            {
                "conn_type": "databricks",
                "host": "127.0.0.1",
                "port": self.port,
                "schema": "http",
                "password": "dapi-fake-token-0123456789",
            }
        )
