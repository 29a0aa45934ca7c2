"""A BigQuery jobs API behind requests-mock, reached through the real hook and client.

The operator talks to BigQuery through the upstream ``BigQueryHook`` and google-cloud-bigquery's
``Client``; only the HTTP transport is replaced. Anonymous credentials stand in for a service
account, and a connection from the environment stands in for the Airflow metadata database.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

PROJECT = "test-project"
API = "https://bigquery.googleapis.com/bigquery/v2"
_JOBS = re.escape(f"{API}/projects/{PROJECT}/jobs")


@dataclass
class FakeJob:
    resource: dict[str, Any]
    gets_until_done: int
    error: dict[str, Any] | None = None

    @property
    def state(self) -> str:
        return self.resource["status"]["state"]

    def finish(self, error: dict[str, Any] | None = None) -> None:
        self.resource["status"] = {"state": "DONE"}
        if error:
            self.resource["status"]["errorResult"] = error
            self.resource["status"]["errors"] = [error]


@dataclass
class FakeBigQuery:
    """BigQuery's jobs.insert / jobs.get / jobs.cancel, with the 409 and 404 it answers."""

    location: str = "EU"
    #: GETs a job answers RUNNING before it reports DONE.
    gets_until_done: int = 1
    #: Errors the next inserted jobs end with (one per job, in order).
    failures: list[dict[str, Any]] = field(default_factory=list)
    jobs: dict[str, FakeJob] = field(default_factory=dict)
    #: The job id carried by every jobs.insert POST, in order (409s included).
    insert_ids: list[str] = field(default_factory=list)
    insert_bodies: list[dict[str, Any]] = field(default_factory=list)
    cancels: list[str] = field(default_factory=list)

    def install(self, mocker: Any) -> None:
        mocker.post(re.compile(rf"{_JOBS}/(?P<job>[^/?]+)/cancel"), json=self._cancel)
        mocker.post(re.compile(rf"{_JOBS}(\?|$)"), json=self._insert)
        mocker.get(re.compile(rf"{_JOBS}/(?P<job>[^/?]+)"), json=self._get)

    # ----------------------------------------------------------------- API
    def _insert(self, request: Any, context: Any) -> dict[str, Any]:
        body = request.json()
        job_id = body["jobReference"]["jobId"]
        self.insert_ids.append(job_id)
        self.insert_bodies.append(body)
        if job_id in self.jobs:
            context.status_code = 409
            return _error(409, f"Already Exists: Job {PROJECT}:{self.location}.{job_id}", "duplicate")
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
        self.jobs[job_id] = FakeJob(resource, self.gets_until_done, error)
        return resource

    def _get(self, request: Any, context: Any) -> dict[str, Any]:
        job = self.jobs.get(self._job_id(request))
        if job is None:
            context.status_code = 404
            return _error(404, f"Not found: Job {PROJECT}:{self._job_id(request)}", "notFound")
        if job.state != "DONE":
            if job.gets_until_done <= 0:
                job.finish(job.error)
            job.gets_until_done -= 1
        return job.resource

    def _cancel(self, request: Any, context: Any) -> dict[str, Any]:
        job_id = self._job_id(request)
        self.cancels.append(job_id)
        job = self.jobs[job_id]
        job.finish({"reason": "stopped", "message": "Job execution was cancelled: User requested cancellation"})
        return {"kind": "bigquery#jobCancelResponse", "job": job.resource}

    @staticmethod
    def _job_id(request: Any) -> str:
        return request.path.rstrip("/").split("/jobs/")[1].split("/")[0]

    # ----------------------------------------------------------------- test helpers
    @property
    def inserted_jobs(self) -> list[str]:
        """Distinct jobs BigQuery created (a 409 creates none)."""
        return list(self.jobs)

    def state(self, job_id: str) -> str:
        return self.jobs[job_id].state


def _error(code: int, message: str, reason: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "errors": [{"message": message, "reason": reason}]}}


@pytest.fixture
def bigquery(monkeypatch):
    """The fake BigQuery, reachable through ``BigQueryHook`` with the default connection."""
    import requests_mock
    from airflow.providers.google.cloud.hooks.bigquery import BigQueryHook
    from google.auth.credentials import AnonymousCredentials

    monkeypatch.setenv(
        "AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT",
        json.dumps({"conn_type": "google_cloud_platform", "extra": {"project": PROJECT, "use_legacy_sql": False}}),
    )
    monkeypatch.setattr(BigQueryHook, "get_credentials_and_project_id", lambda self: (AnonymousCredentials(), PROJECT))
    fake = FakeBigQuery()
    with requests_mock.Mocker(case_sensitive=True) as mocker:
        fake.install(mocker)
        yield fake
