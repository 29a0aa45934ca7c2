"""AWS Batch test transports.

* ``moto_batch``: moto's in-process ``mock_aws`` with ``{"batch": {"use_docker": False}}`` - a
  real Batch API (queue, definition, SubmitJob, ListJobs filters, tags, DescribeJobs,
  TerminateJob) behind the real ``BatchClientHook``. In that mode moto marks every job SUCCEEDED
  at submission (FAILED when ``MOTO_SIMPLE_BATCH_FAIL_AFTER=0``) and never shows it active.
* ``stubbed_batch``: botocore's ``Stubber`` on a real boto3 Batch client, handed to the real
  ``BatchClientHook``; used where a job must stay SUBMITTED...RUNNING for a while. Each stubbed
  response is queued in the order the operator calls the API, so an unexpected extra SubmitJob
  fails the test.
* ``batch_trigger_in_process``: moto's in-process mock does not serve aiobotocore. The fixture
  replaces upstream's ``BatchJobTrigger.run`` for the test with a stand-in that evaluates the same
  ``batch_job_complete`` waiter synchronously and fires the same event shapes
  (``{"status": "success", "job_id": ...}`` / ``{"status": "error", "message": ..., "job_id": ...}``),
  and our ``BatchJobStatusTrigger.describe`` with the same DescribeJobs through boto3 (the rest of
  our trigger runs as it is; its aiobotocore path is tested against a local server in
  ``test_batch_trigger.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.providers.amazon.aws_env import fake_aws_env

REGION = "eu-west-1"
ACCOUNT = "123456789012"
QUEUE = "rj-queue"
DEFINITION = "rj-definition"
JOB_NAME = "nightly-etl"
QUEUE_ARN = f"arn:aws:batch:{REGION}:{ACCOUNT}:job-queue/{QUEUE}"
DEFINITION_ARN = f"arn:aws:batch:{REGION}:{ACCOUNT}:job-definition/{DEFINITION}:1"


@pytest.fixture(scope="session", autouse=True)
def _airflow_builds_its_first_operator():
    """Airflow 3.0 imports its serialization modules when a process builds its first operator, and they warn
    about Airflow's own deprecated names; build one here, so that a test asserting that an operator warns
    nothing sees only what the operator warns, whichever test runs first."""
    import warnings

    from airflow.sdk import BaseOperator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        BaseOperator(task_id="first_operator_of_the_session")


@pytest.fixture
def aws_env(monkeypatch):
    """Fake credentials and a region, so no test can reach a real AWS account."""
    fake_aws_env(monkeypatch, REGION, unset=("AWS_ENDPOINT_URL", "MOTO_SIMPLE_BATCH_FAIL_AFTER"))


@dataclass
class MotoBatch:
    client: Any
    queue: str = QUEUE
    definition: str = DEFINITION

    def jobs(self) -> list[dict[str, Any]]:
        """Every job in the queue (all statuses), described, oldest first."""
        summaries = self.client.list_jobs(jobQueue=self.queue, filters=[{"name": "JOB_NAME", "values": ["*"]}])
        ids = [s["jobId"] for s in summaries["jobSummaryList"]]
        described = self.client.describe_jobs(jobs=ids)["jobs"] if ids else []
        return sorted(described, key=lambda job: job["createdAt"])

    def job_ids(self) -> list[str]:
        return [job["jobId"] for job in self.jobs()]

    def describe(self, job_id: str) -> dict[str, Any]:
        return self.client.describe_jobs(jobs=[job_id])["jobs"][0]


@pytest.fixture
def moto_batch(aws_env):
    """A Batch queue and job definition in moto (in-process, no Docker: jobs SUCCEED at submit)."""
    import boto3
    from moto import mock_aws

    with mock_aws(config={"batch": {"use_docker": False}}):
        iam = boto3.client("iam", region_name=REGION)
        role = iam.create_role(RoleName="rj-batch-role", AssumeRolePolicyDocument=json.dumps({}))["Role"]["Arn"]
        client = boto3.client("batch", region_name=REGION)
        environment = client.create_compute_environment(
            computeEnvironmentName="rj-compute", type="UNMANAGED", state="ENABLED", serviceRole=role
        )
        client.create_job_queue(
            jobQueueName=QUEUE,
            state="ENABLED",
            priority=1,
            computeEnvironmentOrder=[{"order": 1, "computeEnvironment": environment["computeEnvironmentArn"]}],
        )
        client.register_job_definition(
            jobDefinitionName=DEFINITION,
            type="container",
            containerProperties={"image": "busybox", "vcpus": 1, "memory": 128, "command": ["echo", "hello"]},
        )
        yield MotoBatch(client)


@dataclass
class StubbedBatch:
    client: Any
    stubber: Any
    submitted: list[str] = field(default_factory=list)

    def expect_submit(self, job_id: str) -> None:
        from botocore.stub import ANY

        self.stubber.add_response(
            "submit_job",
            {"jobArn": f"arn:aws:batch:{REGION}:{ACCOUNT}:job/{job_id}", "jobName": JOB_NAME, "jobId": job_id},
            {"jobName": JOB_NAME, "jobQueue": QUEUE, "jobDefinition": DEFINITION, "parameters": {}, "tags": ANY},
        )
        self.submitted.append(job_id)

    def expect_describe(self, job_id: str, status: str, times: int = 1, **details: Any) -> None:
        for _ in range(times):
            self.stubber.add_response(
                "describe_jobs", {"jobs": [job_detail(job_id, status, **details)]}, {"jobs": [job_id]}
            )


def job_detail(job_id: str, status: str, *, reason: str | None = None, exit_code: int | None = None) -> dict:
    """A DescribeJobs entry shaped like AWS's for a container job logging to CloudWatch."""
    container: dict[str, Any] = {
        "logStreamName": f"{DEFINITION}/default/{job_id}",
        "logConfiguration": {"logDriver": "awslogs", "options": {"awslogs-group": "/rj/batch"}},
    }
    if exit_code is not None:
        container["exitCode"] = exit_code
    detail: dict[str, Any] = {
        "jobArn": f"arn:aws:batch:{REGION}:{ACCOUNT}:job/{job_id}",
        "jobName": JOB_NAME,
        "jobId": job_id,
        "jobQueue": QUEUE_ARN,
        "status": status,
        "createdAt": 1_700_000_000_000,
        "startedAt": 1_700_000_001_000,
        "jobDefinition": DEFINITION_ARN,
        "container": container,
    }
    if reason:
        detail["statusReason"] = reason
    return detail


@pytest.fixture
def stubbed_batch(aws_env, monkeypatch):
    """A real boto3 Batch client under botocore's Stubber, used by the real BatchClientHook."""
    import boto3
    from airflow.providers.amazon.aws.hooks.batch_client import BatchClientHook
    from botocore.stub import Stubber

    client = boto3.client("batch", region_name=REGION)
    monkeypatch.setattr(BatchClientHook, "conn", property(lambda self: client))
    with Stubber(client) as stubber:
        stubbed = StubbedBatch(client, stubber)
        yield stubbed


@pytest.fixture
def batch_trigger_in_process(monkeypatch):
    """Let ``BatchJobTrigger`` fire without aiobotocore (see the module docstring)."""
    from airflow.providers.amazon.aws.triggers.batch import BatchJobTrigger
    from airflow.triggers.base import TriggerEvent
    from botocore.exceptions import WaiterError

    async def run(self):
        job_id = self.return_value
        waiter = self.hook().get_waiter(self.waiter_name)
        try:
            waiter.wait(**self.waiter_args, WaiterConfig={"Delay": 0, "MaxAttempts": max(1, self.attempts)})
        except WaiterError as error:
            yield TriggerEvent({"status": "error", "message": f"{self.failure_message}: {error}", self.return_key: job_id})
        else:
            yield TriggerEvent({"status": "success", self.return_key: job_id})

    monkeypatch.setattr(BatchJobTrigger, "run", run)

    # Ours reads through aiobotocore as well: only its transport is replaced (its events are its own).
    from resumable_jobs.providers.amazon import status
    from resumable_jobs.providers.amazon.batch_trigger import BatchJobStatusTrigger

    async def describe(self, lease):
        import boto3

        return status.describe_job(boto3.client("batch", region_name=self.region_name or REGION), self.job_id)

    monkeypatch.setattr(BatchJobStatusTrigger, "describe", describe)


@pytest.fixture
def moto_batch_long_jobs(moto_batch, monkeypatch):
    """``moto_batch`` whose jobs stay RUNNING for ``RUNNING_DESCRIBES`` DescribeJobs, then SUCCEED.

    moto without Docker finishes a job inside SubmitJob; the job-lifecycle tests need one that is
    still running when the try ends, and a TerminateJob that really stops it (FAILED, with the
    reason), as AWS does.
    """
    from moto.batch.models import Job
    from moto.batch.utils import JobStatus
    from moto.batch_simple.models import BatchSimpleBackend

    def start_and_keep_running(self, include_start_attempt, job):
        import datetime as dt

        self.backend._jobs[job.job_id] = job
        job.job_started_at = dt.datetime.now()
        job.log_stream_name = job._stream_name
        job._start_attempt()
        job.status = JobStatus.RUNNING
        job.rj_describes_left = RUNNING_DESCRIBES

    describe, terminate = Job.describe, Job.terminate

    def describe_and_progress(self):
        left = getattr(self, "rj_describes_left", None)
        if left is not None and not self.job_stopped:
            if left <= 0:
                self._mark_stopped(success=True)
            self.rj_describes_left = left - 1
        return describe(self)

    def terminate_and_stop(self, reason):
        terminate(self, reason)
        self._mark_stopped(success=False)

    monkeypatch.setattr(BatchSimpleBackend, "_mark_job_as_finished", start_and_keep_running)
    monkeypatch.setattr(Job, "describe", describe_and_progress)
    monkeypatch.setattr(Job, "terminate", terminate_and_stop)
    return moto_batch


RUNNING_DESCRIBES = 6


# EMR Serverless / EMR on EKS behind moto's ThreadedMotoServer (see emr_fixtures.py).
from tests.providers.amazon.emr_fixtures import emr_aws, moto_endpoint, serverless_app, virtual_cluster  # noqa: F401
