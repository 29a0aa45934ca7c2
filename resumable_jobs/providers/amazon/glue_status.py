"""AWS Glue job run states, and what each one means to the resumable mixin.

What it is for: one place that maps a GetJobRun answer onto the decision table - which states a
retry follows, which one means "return the result", and what to tell the user when a run ended
otherwise.

How it works: Glue moves a run through STARTING, RUNNING (WAITING for Flex runs waiting for
capacity) to SUCCEEDED, FAILED, TIMEOUT, ERROR or EXPIRED; BatchStopJobRun passes it through
STOPPING to STOPPED. Every state that is not terminal is *active*: a retry follows that run
(a STOPPING run still holds one of the job's concurrency slots, so submitting beside it would
only be refused). SUCCEEDED is the only success: STOPPED is a failure here, as in upstream's
operator (a console stop cannot be told apart from our own cancel). :func:`describe_run` raises
:class:`JobNotFoundError` when Glue no longer knows the run (runs are kept for a limited time).

What it does not do: it does not wait, retry or sleep; polling belongs to the operator.
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError

__all__ = [
    "SUCCEEDED",
    "TERMINAL_STATES",
    "describe_run",
    "failure_summary",
    "is_active",
    "is_succeeded",
]

SUCCEEDED = "SUCCEEDED"
#: States a run never leaves.
TERMINAL_STATES = frozenset({SUCCEEDED, "FAILED", "STOPPED", "TIMEOUT", "ERROR", "EXPIRED"})


def is_active(state: str | None) -> bool:
    return state is not None and state not in TERMINAL_STATES


def is_succeeded(state: str | None) -> bool:
    return state == SUCCEEDED


def describe_run(client: Any, job_name: str, run_id: str) -> dict[str, Any]:
    """GetJobRun's ``JobRun`` for ``run_id``; :class:`JobNotFoundError` if Glue does not know it.

    A deleted job counts as not found too (its runs went with it). Other errors (throttling,
    credentials, network) propagate: the mixin
    must not mistake an unreachable service for a forgotten run and start a duplicate.
    """
    try:
        return client.get_job_run(JobName=job_name, RunId=run_id)["JobRun"]
    except client.exceptions.EntityNotFoundException as missing:  # the run, or its whole job, is gone
        raise JobNotFoundError(run_id, f"GetJobRun of job {job_name!r} does not know it: {missing}") from missing


def failure_summary(run: dict[str, Any]) -> str:
    """One sentence on why ``run`` did not succeed: its state, error message and log group."""
    parts = [f"AWS Glue job run {run.get('Id')!r} of job {run.get('JobName')!r} ended {run.get('JobRunState')}"]
    if run.get("ErrorMessage"):
        parts.append(f"ErrorMessage: {run['ErrorMessage']}")
    if run.get("Attempt"):
        parts.append(f"attempt {run['Attempt']}")
    if run.get("LogGroupName"):
        parts.append(f"logs: CloudWatch Logs group {run['LogGroupName']!r}, stream {run.get('Id')!r}")
    return "; ".join(parts)
