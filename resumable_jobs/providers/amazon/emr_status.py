"""EMR Serverless and EMR on EKS job-run states, and what each one means to the resumable mixin.

What it is for: one place that maps GetJobRun (EMR Serverless) and DescribeJobRun (EMR on EKS)
answers onto the decision table - which states a retry reconnects to, which one means "return
the result", and what to tell the user when a run did not succeed.

How it works: EMR Serverless runs move through SUBMITTED, PENDING, SCHEDULED, RUNNING (and QUEUED
when the application's queue is full) to SUCCESS, FAILED or CANCELLING/CANCELLED; EMR on EKS runs
through PENDING, SUBMITTED and RUNNING to COMPLETED, FAILED or CANCEL_PENDING/CANCELLED. The
non-terminal ones are *active*; the one success state is SUCCESS or COMPLETED; anything else ends
the generation. :func:`serverless_job_run` and :func:`container_job_run` raise
:class:`JobNotFoundError` when the service answers ResourceNotFoundException (a run of another
application, virtual cluster, account or region) and let every other error propagate, so an
unreachable service is never mistaken for a forgotten run.

What it does not do: wait, retry or sleep - polling belongs to the operators.
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError

__all__ = [
    "CONTAINERS_ACTIVE",
    "CONTAINERS_SUCCEEDED",
    "SERVERLESS_ACTIVE",
    "SERVERLESS_SUCCEEDED",
    "container_failure_summary",
    "container_job_run",
    "serverless_failure_summary",
    "serverless_job_run",
]

SERVERLESS_SUCCEEDED = "SUCCESS"
#: EMR Serverless states in which a run may still finish: a retry reconnects to it.
SERVERLESS_ACTIVE = frozenset({"SUBMITTED", "PENDING", "SCHEDULED", "RUNNING", "QUEUED"})
CONTAINERS_SUCCEEDED = "COMPLETED"
#: EMR on EKS states in which a run may still finish.
CONTAINERS_ACTIVE = frozenset({"PENDING", "SUBMITTED", "RUNNING"})


def _not_found(error: Exception) -> bool:
    response = getattr(error, "response", None) or {}
    return response.get("Error", {}).get("Code") == "ResourceNotFoundException"


def serverless_job_run(client: Any, application_id: str, job_run_id: str) -> dict[str, Any]:
    """GetJobRun's ``jobRun``; :class:`JobNotFoundError` when the service does not know the run."""
    try:
        return client.get_job_run(applicationId=application_id, jobRunId=job_run_id)["jobRun"]
    except Exception as error:
        if _not_found(error):
            raise JobNotFoundError(job_run_id, f"GetJobRun on application {application_id}: {error}") from error
        raise


def container_job_run(client: Any, virtual_cluster_id: str, job_run_id: str) -> dict[str, Any]:
    """DescribeJobRun's ``jobRun``; :class:`JobNotFoundError` when the service does not know the run."""
    try:
        return client.describe_job_run(virtualClusterId=virtual_cluster_id, id=job_run_id)["jobRun"]
    except Exception as error:
        if _not_found(error):
            raise JobNotFoundError(
                job_run_id, f"DescribeJobRun on virtual cluster {virtual_cluster_id}: {error}"
            ) from error
        raise


def serverless_failure_summary(run: dict[str, Any]) -> str:
    """One sentence on why an EMR Serverless run did not succeed."""
    parts = [f"EMR Serverless job run {run.get('jobRunId')!r} ({run.get('name')}) ended {run.get('state')}"]
    if run.get("stateDetails"):
        parts.append(f"stateDetails: {run['stateDetails']}")
    return "; ".join(parts)


def container_failure_summary(run: dict[str, Any]) -> str:
    """One sentence on why an EMR on EKS run did not succeed."""
    parts = [f"EMR on EKS job run {run.get('id')!r} ({run.get('name')}) ended {run.get('state')}"]
    if run.get("failureReason"):
        parts.append(f"failureReason: {run['failureReason']}")
    if run.get("stateDetails"):
        parts.append(f"stateDetails: {run['stateDetails']}")
    return "; ".join(parts)
