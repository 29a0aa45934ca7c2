"""A local AWS Batch endpoint for the end-to-end tests and the demo: ``moto_server`` on 127.0.0.1.

What it is for: giving a real Airflow run (separate task processes, a real SIGKILL) a Batch API
to submit to, without an AWS account and without Docker. The tasks reach it through an ordinary
Airflow ``aws`` connection whose ``endpoint_url`` points at the server, so the operator, the
Amazon provider's ``BatchClientHook`` and boto3 run unchanged; only the far end is moto.

How it works: :class:`LocalMotoServer` starts ``python -m moto.server`` on a free 127.0.0.1 port
(through :mod:`resumable_jobs.local.moto_models`, which first adds what moto does not model of
the services we test) in a process group of its own (so stopping it leaves nothing behind, and several servers - one
per test module, the demo, another engineer's run - never share a port or state), waits until
the server answers, switches Batch to moto's Docker-free backend (``POST /moto-api/config`` with
``{"batch": {"use_docker": false}}``; server mode reads that setting on every Batch request), and
creates an IAM service role, an UNMANAGED compute environment, a job queue and a container job
definition with fake credentials in ``us-east-1``.

How moto progresses Batch jobs (moto 5.x, read from ``moto/batch`` and ``moto/batch_simple``):

* Without Docker, SubmitJob does all the work inside the request: it creates the job and marks it
  finished before answering. DescribeJobs therefore never shows the job active - it is
  SUCCEEDED as soon as SubmitJob returns. The only knob is the environment variable
  ``MOTO_SIMPLE_BATCH_FAIL_AFTER`` *of the moto_server process*: when set, SubmitJob sleeps that
  many seconds - other clients meanwhile see the job SUBMITTED (RUNNING under an ``immediate``
  state-manager transition), but the submitter has no job id yet - and the job ends FAILED. So
  it can neither keep a job RUNNING after SubmitJob returned nor make a long job succeed. This
  class removes the variable from the server's environment.
* moto's state manager (``/moto-api/state-manager/set-transition``, model ``batch::job``,
  default: advance one status per internal step) only paces SUBMITTED -> ... -> RUNNING in the
  Docker backend, whose per-job thread then starts a container. The Docker-free backend assigns
  the final status directly, bypassing the transitions, so no transition configuration keeps a
  job RUNNING there. With the Docker backend but no Docker daemon (this environment has the CLI,
  not the daemon), the job ends FAILED when the container cannot start.
* Consequently a "kill the worker while the job runs" crash cannot be staged against
  ``moto_server``. What it does stage faithfully is the window between SubmitJob returning and
  the job id being persisted - the job exists, tagged with the submission token, and a retry must
  find it by that tag - and a crash after the job succeeded. The RUNNING cases are covered by the
  provider's unit tests, where botocore's ``Stubber`` scripts SUBMITTED...RUNNING answers.

Glue (``resumable_jobs.local.moto_models.glue``, installed in the server process): jobs are
created by the operator itself; :meth:`LocalMotoServer.hold_glue_runs` keeps new runs RUNNING
(through moto's own state-manager API), :meth:`LocalMotoServer.release_glue_job_run` ends one
(through the route the model adds), :meth:`LocalMotoServer.glue_job_runs` lists a job's runs.

What it does not do: it does not run job containers, emulate compute capacity, IAM permissions
or CloudWatch log streams, nor reset moto between users - every user of one server shares its
queue, so tests compare job ids before and after a run. It never reaches AWS: the credentials
are fake and every client it builds targets the local endpoint.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from resumable_jobs.local.processes import start_group, stop_group
from resumable_jobs.local.service import LocalService

if TYPE_CHECKING:
    import subprocess

__all__ = ["LocalMotoServer", "MotoServerError"]

FAKE_ACCESS_KEY = "testing"
FAKE_SECRET_KEY = "testing"
_DESCRIBE_BATCH_SIZE = 100
#: Variables that would change what moto_server does (or which account it believes it serves).
_SCRUBBED_PREFIXES = ("AWS_", "MOTO_")


class MotoServerError(RuntimeError):
    """moto_server did not start, or refused the Batch setup."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LocalMotoServer(LocalService):
    """``moto_server`` with a ready Batch queue and job definition; see the module docstring.

    What it is for: ``with LocalMotoServer() as moto:`` then hand ``moto.airflow_connection_env()``
    to Airflow and ``moto.job_queue`` / ``moto.job_definition`` to the DAG; ``moto.list_jobs()``
    tells the test or the demo how many jobs were really submitted.

    How it works: the server is a child process group started with
    :func:`resumable_jobs.local.processes.start_group`; if it dies before answering (another
    process took the port in between), a new port is tried. The Batch resources are created
    through boto3 against :attr:`endpoint_url`.

    What it does not do: keep jobs RUNNING (moto cannot without Docker), isolate users of one
    server from each other, or clean up jobs: stopping the server discards everything.
    """

    def __init__(
        self,
        *,
        region: str = "us-east-1",
        job_queue: str = "rj-local-queue",
        job_definition: str = "rj-local-definition",
        python: str = sys.executable,
        workdir: Path | None = None,
        start_timeout: float = 60.0,
    ) -> None:
        self.region = region
        self.job_queue = job_queue
        self.job_definition = job_definition
        self.python = python
        self.start_timeout = start_timeout
        self._own_workdir = workdir is None
        self.workdir = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="rj-moto-"))
        self.port: int | None = None
        self._process: subprocess.Popen | None = None

    # ------------------------------------------------------------------ lifecycle

    @property
    def endpoint_url(self) -> str:
        if self.port is None:
            raise MotoServerError("the moto server is not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.workdir / "moto-server.log"

    def start(self, *, attempts: int = 3) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        for attempt in range(1, attempts + 1):
            self.port = _free_port()
            self._process = start_group(
                [self.python, "-m", "resumable_jobs.local.moto_models", "-H", "127.0.0.1", "-p", str(self.port)],
                env=self._server_env(),
                log_path=self.log_path,
            )
            if self._wait_until_answering():
                break
            stop_group(self._process)  # lost the port to someone else: try another one
            self._process = None
            if attempt == attempts:
                raise MotoServerError(f"moto_server did not start after {attempts} attempts; see {self.log_path}")
        self._use_docker_free_batch()
        self._create_batch_resources()

    def stop(self) -> None:
        if self._process is not None:
            stop_group(self._process)
            self._process = None
        if self._own_workdir and os.environ.get("RJ_KEEP_MOTO_LOGS") != "1":
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _server_env(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith(_SCRUBBED_PREFIXES)}
        env.update(
            AWS_ACCESS_KEY_ID=FAKE_ACCESS_KEY,
            AWS_SECRET_ACCESS_KEY=FAKE_SECRET_KEY,
            AWS_DEFAULT_REGION=self.region,
        )
        return env

    def _wait_until_answering(self) -> bool:
        """True once the server answers; False if it exited first (e.g. the port was taken)."""
        assert self._process is not None
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"{self.endpoint_url}/moto-api/config", timeout=2):
                    return True
            except OSError:  # URLError is an OSError: not listening yet
                time.sleep(0.2)
        raise MotoServerError(f"moto_server did not answer on port {self.port} within {self.start_timeout:.0f}s")

    def _use_docker_free_batch(self) -> None:
        request = urllib.request.Request(
            f"{self.endpoint_url}/moto-api/config",
            data=json.dumps({"batch": {"use_docker": False}}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            config = json.loads(response.read() or b"{}")
        if config.get("batch", {}).get("use_docker") is not False:
            raise MotoServerError(f"moto_server kept Docker-backed Batch: its config is now {config}")

    def _create_batch_resources(self) -> None:
        iam = self.client("iam")
        role = iam.create_role(
            RoleName="rj-local-batch-service-role",
            AssumeRolePolicyDocument=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {"Effect": "Allow", "Principal": {"Service": "batch.amazonaws.com"}, "Action": "sts:AssumeRole"}
                    ],
                }
            ),
        )["Role"]["Arn"]
        batch = self.client("batch")
        environment = batch.create_compute_environment(
            computeEnvironmentName="rj-local-compute", type="UNMANAGED", state="ENABLED", serviceRole=role
        )
        batch.create_job_queue(
            jobQueueName=self.job_queue,
            state="ENABLED",
            priority=1,
            computeEnvironmentOrder=[{"order": 1, "computeEnvironment": environment["computeEnvironmentArn"]}],
        )
        batch.register_job_definition(
            jobDefinitionName=self.job_definition,
            type="container",
            containerProperties={"image": "busybox", "vcpus": 1, "memory": 128, "command": ["echo", "hello"]},
        )

    # ------------------------------------------------------------------ clients and views
    def client(self, service: str) -> Any:
        """A boto3 client for ``service`` on this server, with the fake credentials."""
        import boto3

        return boto3.client(
            service,
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id=FAKE_ACCESS_KEY,
            aws_secret_access_key=FAKE_SECRET_KEY,
        )

    def airflow_connection_env(self, conn_id: str = "aws_default") -> dict[str, str]:
        """``AIRFLOW_CONN_<ID>`` for an ``aws`` connection that targets this server."""
        connection = {
            "conn_type": "aws",
            "login": FAKE_ACCESS_KEY,
            "password": FAKE_SECRET_KEY,
            "extra": {"endpoint_url": self.endpoint_url, "region_name": self.region},
        }
        return {f"AIRFLOW_CONN_{conn_id.upper()}": json.dumps(connection)}

    def list_jobs(self) -> list[dict[str, Any]]:
        """Every job in :attr:`job_queue`, whatever its status, as DescribeJobs entries, oldest first.

        ListJobs without a filter returns only RUNNING jobs; a JOB_NAME filter (here the wildcard
        ``*``) makes it return every status, which is what counting submissions needs.
        """
        batch = self.client("batch")
        request: dict[str, Any] = {"jobQueue": self.job_queue, "filters": [{"name": "JOB_NAME", "values": ["*"]}]}
        ids: list[str] = []
        while True:
            page = batch.list_jobs(**request)
            ids += [summary["jobId"] for summary in page.get("jobSummaryList") or []]
            if not page.get("nextToken"):
                break
            request["nextToken"] = page["nextToken"]
        ids = list(dict.fromkeys(ids))
        jobs: list[dict[str, Any]] = []
        for start in range(0, len(ids), _DESCRIBE_BATCH_SIZE):
            jobs += batch.describe_jobs(jobs=ids[start : start + _DESCRIBE_BATCH_SIZE]).get("jobs") or []
        return sorted(jobs, key=lambda job: (job.get("createdAt") or 0, job["jobId"]))

    def job_status(self, job_id: str) -> str | None:
        jobs = self.client("batch").describe_jobs(jobs=[job_id]).get("jobs") or []
        return jobs[0].get("status") if jobs else None

    # ------------------------------------------------------------------ Glue (resumable_jobs.local.moto_models.glue)
    def glue_job_runs(self, job_name: str) -> list[dict[str, Any]]:
        """Every run of Glue job ``job_name`` (all states) as GetJobRuns pages them; none if no such job."""
        glue = self.client("glue")
        request: dict[str, Any] = {"JobName": job_name}
        runs: list[dict[str, Any]] = []
        try:
            while True:
                page = glue.get_job_runs(**request)
                runs += page.get("JobRuns") or []
                if not page.get("NextToken"):
                    return runs
                request["NextToken"] = page["NextToken"]
        except glue.exceptions.EntityNotFoundException:
            return []

    def hold_glue_runs(self, hold: bool = True) -> None:
        """New Glue runs stay RUNNING until released (False: moto's default, SUCCEEDED at once), through
        moto's own state-manager API."""
        if hold:
            self._post(
                "/moto-api/state-manager/set-transition",
                {"model_name": "glue::job_run", "transition": {"progression": "held"}},
            )
        else:
            self._post("/moto-api/state-manager/unset-transition", {"model_name": "glue::job_run"})

    def pace_glue_runs(self, reads: int) -> None:
        """moto's ``manual`` progression: a new run reads STARTING ``reads`` times, RUNNING as often, then SUCCEEDED."""
        self._post(
            "/moto-api/state-manager/set-transition",
            {"model_name": "glue::job_run", "transition": {"progression": "manual", "times": reads}},
        )

    def release_glue_job_run(self, run_id: str, state: str = "SUCCEEDED") -> dict[str, Any]:
        """End a held Glue run in ``state`` (the route the Glue model adds to moto's API); its GetJobRun entry."""
        from resumable_jobs.local.moto_models.glue import RELEASE_ROUTE

        return self._post(RELEASE_ROUTE, {"JobRunId": run_id, "JobRunState": state}).get("JobRun", {})

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.endpoint_url}{path}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            payload = response.read()
        return json.loads(payload) if payload.strip() else {}
