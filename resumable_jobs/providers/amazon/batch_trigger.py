"""The triggerer side of ``BatchOperator(deferrable=True)``: DescribeJobs through a shared client.

What it is for: waiting for an AWS Batch job in the triggerer at the cost of one DescribeJobs per
poll, where upstream's ``BatchJobTrigger`` builds a hook, a session and a client (and a waiter)
per trigger.

How it works: :class:`BatchJobStatusTrigger` is an
:class:`~resumable_jobs.providers.amazon.aws_trigger.AwsJobTrigger` of the ``batch`` service;
statuses are classified by :mod:`resumable_jobs.providers.amazon.status`.

What it does not do: follow CloudWatch logs or publish log links (the operator does when it resumes).
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError
from resumable_jobs.providers.amazon import status
from resumable_jobs.providers.amazon.aws_async import call
from resumable_jobs.providers.amazon.aws_trigger import AwsJobTrigger, JobState
from resumable_jobs.providers.shared_clients import Lease

__all__ = ["BatchJobStatusTrigger"]


class BatchJobStatusTrigger(AwsJobTrigger):
    """Wait for an AWS Batch job; fire upstream's ``BatchJobTrigger`` event when it SUCCEEDED or FAILED.

    What it is for: ``BatchOperator``'s deferrable wait, with upstream's ``BatchJobTrigger`` kwargs
    (``job_id``, ``waiter_delay``, ``waiter_max_attempts`` and the connection).

    How it works: every ``waiter_delay`` seconds one DescribeJobs through the loop's shared
    ``batch`` client; SUBMITTED to RUNNING are active, SUCCEEDED succeeds, FAILED is an error. The
    event is upstream's shape (``{"status", "job_id", "message"}``), so the operator builds a
    failure's message (exit code, log location and link) as it did from upstream's trigger. After
    ``waiter_max_attempts`` reads of an active job, an error event (upstream's waiter gives up there
    too). Transient errors are read again at the next poll, up to
    :data:`~resumable_jobs.providers.amazon.aws_trigger.MAX_TRANSIENT_ERRORS` in a row.

    What it does not do: cancel the job on kill (upstream's ``BatchJobTrigger`` does not either).
    """

    service = "batch"
    noun = "AWS Batch job"
    upstream_id_key = "job_id"

    def __init__(self, job_id: str, waiter_delay: int = 5, waiter_max_attempts: int = 720, **connection: Any) -> None:
        super().__init__(external_id=job_id, poll_interval=waiter_delay, max_attempts=waiter_max_attempts, **connection)
        self.job_id = job_id
        self.waiter_delay = waiter_delay
        self.waiter_max_attempts = waiter_max_attempts

    def job_kwargs(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "waiter_delay": self.waiter_delay,
            "waiter_max_attempts": self.waiter_max_attempts,
        }

    async def describe(self, lease: Lease) -> dict[str, Any]:
        answer = await call(lease, "describe_jobs", jobs=[self.job_id])
        for job in answer.get("jobs") or []:
            if self.job_id in (job.get("jobId"), job.get("jobArn")):
                return job
        raise JobNotFoundError(self.job_id, "DescribeJobs does not return it (expired, or another account/region)")

    def classify(self, description: dict[str, Any]) -> JobState:
        state = description.get("status")
        if status.is_succeeded(state):
            return JobState(state, active=False, succeeded=True, message="job succeeded")
        if status.is_active(state):
            return JobState(state, active=True, succeeded=False)
        return JobState(state, active=False, succeeded=False, message=status.failure_summary(description))
