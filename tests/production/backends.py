"""The external systems a production drill runs jobs on, seen the same way by every scenario.

A scenario asks a backend three things: which jobs exist (so it can count the ones its run
started and read their end states), how to let a held job finish, and what the operator logs
while it polls one. Spark is the real local standalone cluster, AWS Batch is moto_server,
Databricks and BigQuery are the HTTP stand-ins in processes of their own.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Job:
    id: Any
    state: str


class Backend:
    name: str
    #: The state a job reports while it runs, and its state after each kind of end.
    running = "RUNNING"
    succeeded: str
    cancelled: frozenset[str]
    #: Whether a job can be caught RUNNING (moto finishes Batch jobs inside SubmitJob).
    holds_jobs = True

    def conf(self, run_id: str) -> dict[str, Any]:
        """What the DAG run needs in ``dag_run.conf``."""
        return {}

    def jobs(self) -> list[Job]:
        raise NotImplementedError

    def release(self, run_id: str, job: Job) -> None:
        """Let a held job finish successfully."""

    def poll_line(self, job: Job) -> str:
        """A fragment the synchronous poll logs while the job runs."""
        raise NotImplementedError

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        """End jobs a failed scenario left running, so the next scenario starts clean."""


class SparkBackend(Backend):
    name = "spark"
    succeeded = "FINISHED"
    cancelled = frozenset({"KILLED"})

    def __init__(self, cluster: Any, release_dir: Path) -> None:
        self.cluster = cluster
        self.release_dir = release_dir

    def conf(self, run_id: str) -> dict[str, Any]:
        return {"release": str(self.release_dir / run_id)}

    def jobs(self) -> list[Job]:
        return [Job(d["id"], d["state"]) for d in self.cluster.list_drivers()]

    def release(self, run_id: str, job: Job | None = None) -> None:
        (self.release_dir / run_id).touch()

    def poll_line(self, job: Job) -> str:
        return f"Spark driver {job.id} is RUNNING"

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        active = {d["id"] for d in self.cluster.active_drivers()}
        if any(job.id in active for job in jobs):
            self.cluster.kill_active_drivers()


class StandinBackend(Backend):
    def __init__(self, standin: Any) -> None:
        self.standin = standin

    def release(self, run_id: str, job: Job) -> None:
        self.standin.release(job.id)

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        for job in jobs:
            with contextlib.suppress(Exception):
                self.standin.release(job.id)


class DatabricksBackend(StandinBackend):
    name = "databricks"
    succeeded = "SUCCESS"
    cancelled = frozenset({"CANCELED"})

    def jobs(self) -> list[Job]:
        return [Job(run["id"], run["result"] or run["state"]) for run in self.standin.jobs()]

    def poll_line(self, job: Job) -> str:
        return f"Databricks run {job.id} is RUNNING; checking again"


class BigQueryBackend(StandinBackend):
    name = "bigquery"
    succeeded = "DONE"
    cancelled = frozenset({"DONE:stopped"})

    def jobs(self) -> list[Job]:
        return [
            Job(job["id"], f"DONE:{job['error']}" if job["state"] == "DONE" and job["error"] else job["state"])
            for job in self.standin.jobs()
        ]

    def poll_line(self, job: Job) -> str:
        return f"BigQuery job {job.id} is RUNNING; checking again"


class BatchBackend(Backend):
    name = "batch"
    succeeded = "SUCCEEDED"
    cancelled = frozenset({"FAILED"})
    holds_jobs = False

    def __init__(self, moto: Any) -> None:
        self.moto = moto

    def jobs(self) -> list[Job]:
        return [Job(job["jobId"], job["status"]) for job in self.moto.list_jobs()]


class EmrBackend(Backend):
    """EMR Serverless / EMR on EKS in moto_server, runs held RUNNING by moto's state manager.

    Held and released through moto's documented endpoint (``/moto-api/state-manager/
    set-transition``), which reaches the moto_server process where our models run: ``hold`` as
    each drill starts (the backend object is shared by the drills of one session parameter, so
    the hold is set per drill, in :meth:`conf`), ``immediate`` to let the held run finish.
    """

    cancelled = frozenset({"CANCELLED"})
    model: str

    def __init__(self, moto: Any, resources: dict[str, str]) -> None:
        self.moto = moto
        self.resources = resources

    def conf(self, run_id: str) -> dict[str, Any]:
        self._set_progression("hold")  # the drill's run starts held; release() lets it finish
        return {}

    def _set_progression(self, progression: str) -> None:
        import json
        import urllib.request

        body = json.dumps({"model_name": self.model, "transition": {"progression": progression}}).encode()
        request = urllib.request.Request(
            f"{self.moto.endpoint_url}/moto-api/state-manager/set-transition", data=body, method="POST"
        )
        urllib.request.urlopen(request, timeout=10).read()

    def release(self, run_id: str, job: Job | None = None) -> None:
        self._set_progression("immediate")


class EmrServerlessBackend(EmrBackend):
    name = "emr_serverless"
    succeeded = "SUCCESS"
    model = "emr-serverless::job-run"

    def jobs(self) -> list[Job]:
        client = self.moto.client("emr-serverless")
        try:
            runs = client.list_job_runs(applicationId=self.resources["application"])["jobRuns"]
        except client.exceptions.ResourceNotFoundException:  # moto, before the application's first run
            return []
        return [Job(run["id"], run["state"]) for run in runs]

    def poll_line(self, job: Job) -> str:
        return f"EMR Serverless job run {job.id} is RUNNING"


class EmrContainersBackend(EmrBackend):
    name = "emr_containers"
    succeeded = "COMPLETED"
    model = "emr-containers::job-run"

    def jobs(self) -> list[Job]:
        client = self.moto.client("emr-containers")
        runs = client.list_job_runs(virtualClusterId=self.resources["virtual_cluster"])["jobRuns"]
        return [Job(run["id"], run["state"]) for run in runs]

    def poll_line(self, job: Job) -> str:
        return f"EMR on EKS job run {job.id} is RUNNING"
