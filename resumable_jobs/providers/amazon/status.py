"""AWS Batch job statuses, and what each one means to the resumable mixin.

What it is for: one place that maps a DescribeJobs answer onto the decision table - which
statuses a retry reconnects to, which one means "return the result", and what to tell the user
when a job failed.

How it works: Batch moves a job through SUBMITTED, PENDING, RUNNABLE, STARTING and RUNNING to
SUCCEEDED or FAILED. The first five are *active* (a retry reconnects), SUCCEEDED is the only
success, and everything else ends the generation (FAILED, or a status a later API version adds).
:func:`describe_job` asks DescribeJobs for one id and raises :class:`JobNotFoundError` when the
answer does not contain it (Batch forgets finished jobs after a while, and ids from another
account or region are unknown too).

What it does not do: it does not wait, retry or sleep; polling belongs to the operator. It does
not interpret array-job children: the parent's status is the one that counts.
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError

__all__ = [
    "ACTIVE_STATUSES",
    "FAILED",
    "NOT_STARTED_STATUSES",
    "SUCCEEDED",
    "describe_job",
    "failure_summary",
    "is_active",
    "is_succeeded",
    "log_location",
]

SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"
#: Statuses in which the job may still finish: a retry reconnects to it instead of submitting.
ACTIVE_STATUSES = frozenset({"SUBMITTED", "PENDING", "RUNNABLE", "STARTING", "RUNNING"})
#: Active statuses before a container started (no log stream yet).
NOT_STARTED_STATUSES = frozenset({"SUBMITTED", "PENDING", "RUNNABLE"})


def is_active(status: str | None) -> bool:
    return status in ACTIVE_STATUSES


def is_succeeded(status: str | None) -> bool:
    return status == SUCCEEDED


def describe_job(client: Any, job_id: str) -> dict[str, Any]:
    """Return DescribeJobs' entry for ``job_id``; raise :class:`JobNotFoundError` if Batch has none.

    Errors from the API itself (throttling, credentials, network) propagate: the mixin must not
    mistake an unreachable service for a forgotten job and submit a duplicate.
    """
    jobs = client.describe_jobs(jobs=[job_id]).get("jobs") or []
    for job in jobs:
        if job.get("jobId") == job_id or job.get("jobArn") == job_id:
            return job
    raise JobNotFoundError(job_id, "DescribeJobs does not return it (expired, or another account/region)")


def log_location(awslogs: dict[str, str] | None) -> str | None:
    """A readable CloudWatch location from the hook's ``get_job_awslogs_info`` answer."""
    if not awslogs:
        return None
    return (
        f"CloudWatch Logs group {awslogs.get('awslogs_group')!r}, stream "
        f"{awslogs.get('awslogs_stream_name')!r} in {awslogs.get('awslogs_region')}"
    )


def failure_summary(job: dict[str, Any], logs: str | None = None) -> str:
    """One sentence on why ``job`` did not succeed: its status, statusReason, the last attempt's
    container exit code and reason, and where its logs are (when known)."""
    job_id = job.get("jobId")
    status = job.get("status")
    parts = [f"AWS Batch job {job_id!r} ({job.get('jobName')}) ended {status}"]
    reason = job.get("statusReason")
    if reason:
        parts.append(f"statusReason: {reason}")
    attempts = job.get("attempts") or []
    container = (attempts[-1].get("container") if attempts else None) or job.get("container") or {}
    if container.get("exitCode") is not None:
        parts.append(f"exit code {container['exitCode']}")
    if container.get("reason"):
        parts.append(f"container reason: {container['reason']}")
    if logs:
        parts.append(f"logs: {logs}")
    return "; ".join(parts)
