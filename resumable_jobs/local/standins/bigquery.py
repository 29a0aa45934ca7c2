"""A BigQuery jobs API model that the real ``BigQueryHook``, client library and trigger talk to.

What it is for: the provider's unit tests and the production crash suite need a BigQuery that
answers where crash safety depends on it, without a Google account: ``jobs.insert`` with a job id
BigQuery already knows answers 409 "Already Exists" (which is how the operator closes the
submit-to-persist window), ``jobs.get`` reports RUNNING then DONE (with ``errorResult`` on
failure), an unknown id answers 404, ``jobs.cancel`` ends a job.

How it works: :class:`BigQueryJobs` answers ``handle(method, path, body)`` for
``/bigquery/v2/projects/<project>/jobs...`` and, for the stand-in process, ``POST /token``: the
OAuth token endpoint a service-account key's ``token_uri`` points at, so google-auth's real
credential refresh runs (the JWT assertion is accepted unchecked). Transports: requests-mock in
unit tests (:meth:`BigQueryJobs.install`), a real HTTP server in its own process for the crash
suite (:mod:`resumable_jobs.local.standins.server`; the client library and the trigger find it
through ``BIGQUERY_EMULATOR_HOST``). A job progresses by counted ``jobs.get`` reads by default
(``gets_until_done``) or, with ``hold_seconds`` set, stays RUNNING until released or until that
many seconds passed. Every request is logged with its time.

What it does not do: no query execution, tables, datasets or results; the token is not checked.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["API", "PROJECT", "BigQueryJob", "BigQueryJobs", "service_account_info"]

PROJECT = "test-project"
API = "https://bigquery.googleapis.com/bigquery/v2"
_JOB_PATH = re.compile(r"/bigquery/v2/projects/(?P<project>[^/]+)/jobs(?:/(?P<job>[^/?]+))?(?P<cancel>/cancel)?/?$")


@dataclass
class BigQueryJob:
    resource: dict[str, Any]
    gets_until_done: int
    error: dict[str, Any] | None = None
    hold_until: float | None = None
    released: bool = False
    created: float = 0.0
    ended: float | None = None

    @property
    def job_id(self) -> str:
        return self.resource["jobReference"]["jobId"]

    @property
    def state(self) -> str:
        return self.resource["status"]["state"]

    def finish(self, error: dict[str, Any] | None = None, now: float | None = None) -> None:
        self.resource["status"] = {"state": "DONE"}
        self.ended = time.time() if now is None else now
        if error:
            self.resource["status"]["errorResult"] = error
            self.resource["status"]["errors"] = [error]

    def advance(self, now: float) -> None:
        """Move the job on by one read at time ``now``."""
        if self.state == "DONE":
            return
        if self.hold_until is not None:
            if self.released or now >= self.hold_until:
                self.finish(self.error, now)
            return
        if self.gets_until_done <= 0:
            self.finish(self.error, now)
        self.gets_until_done -= 1

    def summary(self) -> dict[str, Any]:
        status = self.resource["status"]
        return {
            "id": self.job_id,
            "state": self.state,
            "error": (status.get("errorResult") or {}).get("reason"),
            "created": self.created,
            "ended": self.ended,
        }


@dataclass
class BigQueryJobs:
    """BigQuery's jobs.insert / jobs.get / jobs.cancel, with the 409 and 404 it answers."""

    location: str = "EU"
    #: GETs a job answers RUNNING before it reports DONE (when ``hold_seconds`` is None).
    gets_until_done: int = 1
    #: When set, new jobs stay RUNNING this long (or until released) instead of counting reads.
    hold_seconds: float | None = None
    #: Errors the next inserted jobs end with (one per job, in order).
    failures: list[dict[str, Any]] = field(default_factory=list)
    jobs: dict[str, BigQueryJob] = field(default_factory=dict)
    #: The job id carried by every jobs.insert POST, in order (409s included).
    insert_ids: list[str] = field(default_factory=list)
    insert_bodies: list[dict[str, Any]] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)
    clock: Callable[[], float] = time.time
    #: ``{"time", "method", "endpoint", "job_id"}`` for every API request, in order.
    requests: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.RLock = field(default_factory=threading.RLock)

    # ----------------------------------------------------------------- one entry point
    def handle(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if method == "POST" and path.rstrip("/") == "/token":
                return 200, {"access_token": "ya29.rj-local-standin", "expires_in": 3600, "token_type": "Bearer"}
            match = _JOB_PATH.match(path.split("?", 1)[0])
            if match is None:
                return 404, _error(404, f"no stand-in for {method} {path}", "notFound")
            job_id = match.group("job")
            self.requests.append({"time": self.clock(), "method": method, "endpoint": path, "job_id": job_id})
            if method == "POST" and match.group("cancel"):
                return self._cancel(job_id)
            if method == "POST" and job_id is None:
                return self._insert(body or {})
            if method == "GET" and job_id is not None:
                return self._get(job_id)
            return 404, _error(404, f"no stand-in for {method} {path}", "notFound")

    def _insert(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        job_id = body["jobReference"]["jobId"]
        self.insert_ids.append(job_id)
        self.insert_bodies.append(body)
        if job_id in self.jobs:
            return 409, _error(409, f"Already Exists: Job {PROJECT}:{self.location}.{job_id}", "duplicate")
        resource = {
            "kind": "bigquery#job",
            "id": f"{PROJECT}:{self.location}.{job_id}",
            "jobReference": {"projectId": PROJECT, "jobId": job_id, "location": self.location},
            "configuration": json.loads(json.dumps(body["configuration"])),
            "status": {"state": "RUNNING"},
        }
        query = resource["configuration"].get("query")
        if query is not None and "destinationTable" not in query:  # BigQuery's anonymous result table
            query["destinationTable"] = {"projectId": PROJECT, "datasetId": "_anon", "tableId": f"anon_{job_id[-6:]}"}
        error = self.failures.pop(0) if self.failures else None
        now = self.clock()
        hold_until = now + self.hold_seconds if self.hold_seconds is not None else None
        self.jobs[job_id] = BigQueryJob(resource, self.gets_until_done, error, hold_until=hold_until, created=now)
        return 200, resource

    def _get(self, job_id: str) -> tuple[int, dict[str, Any]]:
        job = self.jobs.get(job_id)
        if job is None:
            return 404, _error(404, f"Not found: Job {PROJECT}:{job_id}", "notFound")
        job.advance(self.clock())
        return 200, job.resource

    def _cancel(self, job_id: str) -> tuple[int, dict[str, Any]]:
        self.cancels.append(job_id)
        job = self.jobs.get(job_id)
        if job is None:
            return 404, _error(404, f"Not found: Job {PROJECT}:{job_id}", "notFound")
        if job.state != "DONE":
            job.finish(
                {"reason": "stopped", "message": "Job execution was cancelled: User requested cancellation"},
                self.clock(),
            )
        return 200, {"kind": "bigquery#jobCancelResponse", "job": job.resource}

    # ----------------------------------------------------------------- control surface
    def summaries(self) -> list[dict[str, Any]]:
        """Every job, oldest first (states brought up to date), for the crash suite's assertions."""
        with self._lock:
            now = self.clock()
            for job in self.jobs.values():
                if job.hold_until is not None:
                    job.advance(now)
            return [job.summary() for job in self.jobs.values()]

    def release(self, job_id: str) -> bool:
        """Let a held job finish (with its planned error, if any) at its next read."""
        with self._lock:
            job = self.jobs.get(str(job_id))
            if job is None:
                return False
            job.released = True
            return True

    # ----------------------------------------------------------------- requests-mock transport
    def install(self, mocker: Any) -> None:
        """Answer the client library's calls to BigQuery's public endpoint through requests-mock."""

        def respond(request: Any, context: Any) -> dict[str, Any]:
            body = request.json() if request.body else None
            context.status_code, answer = self.handle(request.method, request.path, body)
            return answer

        pattern = re.compile(re.escape(f"{API}/projects/{PROJECT}/jobs") + r".*")
        for method in ("GET", "POST"):
            mocker.register_uri(method, pattern, json=respond)

    # ----------------------------------------------------------------- test helpers
    @property
    def inserted_jobs(self) -> list[str]:
        """Distinct jobs BigQuery created (a 409 creates none)."""
        return list(self.jobs)

    def state(self, job_id: str) -> str:
        return self.jobs[job_id].state


def _error(code: int, message: str, reason: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "errors": [{"message": message, "reason": reason}]}}


def service_account_info(token_uri: str, project: str = PROJECT) -> dict[str, Any]:
    """A service-account key whose ``token_uri`` is the stand-in: google-auth's real refresh runs.

    The RSA key is generated on the spot; it signs the JWT assertion the stand-in accepts unchecked.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    return {
        "type": "service_account",
        "project_id": project,
        "private_key_id": "rj-local-standin",
        "private_key": pem,
        "client_email": f"rj-local@{project}.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": token_uri,
    }
