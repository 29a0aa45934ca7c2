"""The external systems a production drill runs jobs on, seen the same way by every scenario.

A scenario asks a backend three things: which jobs exist (so it can count the ones its run
started and read their end states), how to let a held job finish, and what the operator logs
while it polls one. Spark is the real local standalone cluster, AWS Batch is moto_server,
Databricks, BigQuery and dbt Cloud are the HTTP stand-ins in processes of their own.
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

    def before_run(self, run_id: str) -> None:
        """Get ready to hold the job of the run about to start (called before it is triggered)."""

    def jobs(self) -> list[Job]:
        raise NotImplementedError

    def release(self, run_id: str, job: Job) -> None:
        """Let a held job finish successfully."""

    def poll_line(self, job: Job) -> str:
        """A fragment the synchronous poll logs while the job runs."""
        raise NotImplementedError

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        """End jobs a failed scenario left running, so the next scenario starts clean."""

    def returned(self, job: Job) -> Any:
        """What the task returns (its XCom) when it succeeded with ``job``: the job id by default."""
        return job.id


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


class DbtCloudBackend(StandinBackend):
    name = "dbt_cloud"
    succeeded = "SUCCESS"
    cancelled = frozenset({"CANCELLED"})

    def jobs(self) -> list[Job]:
        return [Job(run["id"], run["state"]) for run in self.standin.jobs()]

    def poll_line(self, job: Job) -> str:
        return f"dbt Cloud run {job.id} is RUNNING; checking again"


class BatchBackend(Backend):
    name = "batch"
    succeeded = "SUCCEEDED"
    cancelled = frozenset({"FAILED"})
    holds_jobs = False

    def __init__(self, moto: Any) -> None:
        self.moto = moto

    def jobs(self) -> list[Job]:
        return [Job(job["jobId"], job["status"]) for job in self.moto.list_jobs()]


class StatementHandles(tuple):
    """A request's statement handles: hashable (the drill keeps a set of job ids), yet shown like
    the list the operator logs, stores and returns, so log fields and XCom compare as text."""

    def __repr__(self) -> str:
        return repr(list(self))

    __str__ = __repr__


class SnowflakeBackend(StandinBackend):
    name = "snowflake"
    succeeded = "SUCCESS"
    cancelled = frozenset({"CANCELLED"})

    def jobs(self) -> list[Job]:
        return [Job(StatementHandles(request["handles"]), request["state"]) for request in self.standin.jobs()]

    def release(self, run_id: str, job: Job) -> None:
        self.standin.release(job.id[0])

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        for job in jobs:
            with contextlib.suppress(Exception):
                self.standin.release(job.id[0])

    def poll_line(self, job: Job) -> str:
        return f"Snowflake statements {list(job.id)} are running; checking again"


class GlueBackend(Backend):
    """AWS Glue in moto_server with ``resumable_jobs.local.moto_models.glue``: runs held RUNNING.

    Holding is moto's state-manager transition ``{"progression": "held"}`` for ``glue::job_run``
    (set once, through moto's own API); a drill releases its run through the route the model adds
    (``LocalMotoServer.release_glue_job_run``), from the test process into the server process.
    """

    name = "glue"
    succeeded = "SUCCEEDED"
    cancelled = frozenset({"STOPPED", "STOPPING"})
    job_name = "rj-prod-glue"

    def __init__(self, moto: Any) -> None:
        self.moto = moto
        moto.hold_glue_runs(True)

    def jobs(self) -> list[Job]:
        return [Job(run["Id"], run["JobRunState"]) for run in self.moto.glue_job_runs(self.job_name)]

    def release(self, run_id: str, job: Job | None) -> None:
        if job is not None:
            self.moto.release_glue_job_run(job.id)

    def poll_line(self, job: Job) -> str:
        return f"AWS Glue job {self.job_name!r} run {job.id} is RUNNING"

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        for job in jobs:
            with contextlib.suppress(Exception):
                self.moto.release_glue_job_run(job.id, "STOPPED")
class RedshiftBackend(Backend):
    """The Redshift Data API in moto_server with our model: statements are held STARTED from the
    start of a drill's run until :meth:`release`, through moto's state manager. (The backend object
    lives as long as the session's parameter, so holding happens per run, not per object.)"""

    name = "redshift"
    running = "STARTED"
    succeeded = "FINISHED"
    cancelled = frozenset({"ABORTED"})

    def __init__(self, moto: Any) -> None:
        self.moto = moto

    def before_run(self, run_id: str) -> None:
        from resumable_jobs.local.moto_models.redshift_data import hold_statements

        hold_statements(self.moto.endpoint_url)

    def jobs(self) -> list[Job]:
        client = self.moto.client("redshift-data")
        request: dict[str, Any] = {"Status": "ALL"}
        jobs: list[Job] = []
        while True:
            page = client.list_statements(**request)
            jobs += [Job(statement["Id"], statement["Status"]) for statement in page["Statements"]]
            if not page.get("NextToken"):
                return list(reversed(jobs))  # oldest first
            request["NextToken"] = page["NextToken"]

    def release(self, run_id: str, job: Job | None = None) -> None:
        from resumable_jobs.local.moto_models.redshift_data import release_statements

        release_statements(self.moto.endpoint_url)

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        self.release("")

    def poll_line(self, job: Job) -> str:
        return f"Redshift Data statement {job.id} is STARTED"

    def returned(self, job: Job) -> str:
        return str([job.id])  # upstream's return value: the list of statement ids


class PodId(str):
    """A pod's stored identity as the operator logs it (the text of its dict): hashable, shown as logged."""

    app_id: str = ""

    def __repr__(self) -> str:
        return str(self)


class KubernetesBackend(Backend):
    """The Kubernetes API stand-in: every pod ever created, with its phase now, or DELETED."""

    name = "kubernetes"
    running = "Running"
    succeeded = "Succeeded"
    cancelled = frozenset({"DELETED"})

    def __init__(self, api: Any) -> None:
        self.api = api

    def jobs(self) -> list[Job]:
        found = []
        for body in list(self.api.created):
            meta = body["metadata"]
            pod_id = PodId(str({"namespace": meta["namespace"], "name": meta["name"], "uid": meta["uid"]}))
            pod_id.app_id = f"{meta['namespace']}:{meta['name']}"
            found.append(Job(pod_id, self.api.phase_of(pod_id.app_id) or "DELETED"))
        return found

    def release(self, run_id: str, job: Job) -> None:
        with contextlib.suppress(KeyError):
            self.api.finish(job.id.app_id, "Succeeded", 0)

    def poll_line(self, job: Job) -> str:
        return "Pod has reached Running phase"

    def cancel_leftovers(self, jobs: list[Job]) -> None:
        for job in jobs:
            namespace, _, name = job.id.app_id.partition(":")
            self.api.dispatch("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}", None)

    def returned(self, job: Job) -> Any:
        return None  # upstream's return value without do_xcom_push
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
