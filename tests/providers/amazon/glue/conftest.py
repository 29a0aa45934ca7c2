"""AWS Glue test transports: moto with ``resumable_jobs.local.moto_models.glue`` installed.

* ``moto_glue``: moto's in-process ``mock_aws`` behind the real ``GlueJobHook`` (job creation,
  StartJobRun with ``Arguments``, GetJobRun(s), our BatchStopJobRun). By default moto shows a run
  SUCCEEDED at the first read; ``moto_glue.hold()`` keeps new runs RUNNING until
  ``moto_glue.release(run_id, state)``; ``moto_glue.pace(reads)`` uses moto's own ``manual``
  progression (STARTING for ``reads`` GetJobRun calls, RUNNING for as many, then SUCCEEDED).
* ``glue_trigger_in_process``: upstream's ``GlueJobCompleteTrigger.run`` needs aiobotocore, which moto's
  in-process mock does not serve; the fixture replaces ``run`` with one that evaluates the same
  ``job_complete`` waiter synchronously and fires the same events (``{"status": "success",
  "run_id": ...}`` / ``{"status": "error", "message": ..., "run_id": ...}``), and our
  ``GlueJobRunTrigger.describe`` with the same GetJobRun through boto3. The real triggers are
  exercised against moto_server in ``test_glue_moto_server.py`` (ours) and ``test_glue_trigger.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

REGION = "eu-west-1"
ACCOUNT = "123456789012"
JOB = "nightly-glue-etl"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/rj-glue-role"
SCRIPT = "s3://rj-scripts/etl.py"


@dataclass
class MotoGlue:
    client: Any
    job_name: str = JOB

    def runs(self, job_name: str | None = None) -> list[dict[str, Any]]:
        """Every run of the job moto knows (all states), as GetJobRuns returns them; none if no job."""
        request: dict[str, Any] = {"JobName": job_name or self.job_name}
        runs: list[dict[str, Any]] = []
        try:
            while True:
                page = self.client.get_job_runs(**request)
                runs += page.get("JobRuns") or []
                if not page.get("NextToken"):
                    return runs
                request["NextToken"] = page["NextToken"]
        except self.client.exceptions.EntityNotFoundException:
            return []

    def run_ids(self) -> list[str]:
        return [run["Id"] for run in self.runs()]

    def state(self, run_id: str) -> str:
        return self.client.get_job_run(JobName=self.job_name, RunId=run_id)["JobRun"]["JobRunState"]

    def settled_state(self, run_id: str) -> str:
        """The run's state once a stop went through (a stopped run reads STOPPING once, then STOPPED)."""
        state = self.state(run_id)
        return self.state(run_id) if state == "STOPPING" else state

    def hold(self) -> None:
        from resumable_jobs.local.moto_models import glue

        glue.hold_new_runs()

    def release(self, run_id: str, state: str = "SUCCEEDED") -> None:
        from resumable_jobs.local.moto_models import glue

        glue.release_job_run(run_id, state)

    def pace(self, reads: int) -> None:
        from moto.moto_api import state_manager

        state_manager.set_transition("glue::job_run", {"progression": "manual", "times": reads})

    def create_job(self, max_concurrent_runs: int = 1, name: str | None = None) -> None:
        self.client.create_job(
            Name=name or self.job_name,
            Role=ROLE_ARN,
            Command={"Name": "glueetl", "ScriptLocation": SCRIPT},
            ExecutionProperty={"MaxConcurrentRuns": max_concurrent_runs},
        )


@pytest.fixture
def moto_glue(aws_env):
    """In-process moto with the Glue model installed; the state manager is reset afterwards."""
    import boto3
    from moto import mock_aws
    from moto.moto_api import state_manager

    from resumable_jobs.local.moto_models import glue

    glue.install()
    state_manager.unset_transition("glue::job_run")
    try:
        with mock_aws():
            yield MotoGlue(boto3.client("glue", region_name=REGION))
    finally:
        state_manager.unset_transition("glue::job_run")


@pytest.fixture
def glue_trigger_in_process(monkeypatch):
    """Let ``GlueJobCompleteTrigger`` fire without aiobotocore (see the module docstring)."""
    from airflow.providers.amazon.aws.triggers.glue import GlueJobCompleteTrigger
    from airflow.triggers.base import TriggerEvent
    from botocore.exceptions import WaiterError

    async def run(self):
        waiter = self.hook().get_waiter(self.waiter_name)
        try:
            waiter.wait(**self.waiter_args, WaiterConfig={"Delay": 0, "MaxAttempts": max(1, self.attempts)})
        except WaiterError as error:
            yield TriggerEvent(
                {"status": "error", "message": f"{self.failure_message}: {error}", "run_id": self.run_id}
            )
        else:
            yield TriggerEvent({"status": "success", "run_id": self.run_id})

    monkeypatch.setattr(GlueJobCompleteTrigger, "run", run)

    # Ours reads through aiobotocore as well: only its transport is replaced (its events are its own).
    from resumable_jobs.providers.amazon.glue_trigger import GlueJobRunTrigger

    async def describe(self, lease):
        import boto3

        client = boto3.client("glue", region_name=self.region_name or REGION)
        return client.get_job_run(JobName=self.job_name, RunId=self.run_id)["JobRun"]

    monkeypatch.setattr(GlueJobRunTrigger, "describe", describe)
