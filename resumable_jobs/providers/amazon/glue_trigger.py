"""The triggerer side of ``GlueJobOperator(deferrable=True)``: GetJobRun through a shared client.

What it is for: waiting for an AWS Glue job run in the triggerer at the cost of one GetJobRun per
poll, where upstream's ``GlueJobCompleteTrigger`` builds a hook, a session, a client and a waiter
per trigger.

How it works: :class:`GlueJobRunTrigger` is an
:class:`~resumable_jobs.providers.amazon.aws_trigger.AwsJobTrigger` of the ``glue`` service; states
are classified by :mod:`resumable_jobs.providers.amazon.glue_status`.

What it does not do: forward the run's CloudWatch logs (``verbose=True``): for that the operator
still defers to upstream's ``GlueJobCompleteTrigger``, which does.
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.providers.amazon import glue_status as status
from resumable_jobs.providers.amazon.aws_async import call
from resumable_jobs.providers.amazon.aws_trigger import AwsJobTrigger, JobState
from resumable_jobs.providers.shared_clients import Lease

__all__ = ["GlueJobRunTrigger"]


class GlueJobRunTrigger(AwsJobTrigger):
    """Wait for an AWS Glue job run; fire upstream's ``GlueJobCompleteTrigger`` event when it ends.

    What it is for: ``GlueJobOperator``'s deferrable wait without ``verbose``, with upstream's
    ``GlueJobCompleteTrigger`` kwargs (``job_name``, ``run_id``, ``waiter_delay``,
    ``waiter_max_attempts`` and the connection).

    How it works: every ``waiter_delay`` seconds one GetJobRun through the loop's shared ``glue``
    client; every non-terminal state is active, SUCCEEDED succeeds, FAILED, STOPPED, TIMEOUT, ERROR
    and EXPIRED are errors. The event is upstream's shape (``{"status", "run_id", "message"}``), so
    the operator builds a failure's message from the run as it did. After ``waiter_max_attempts``
    reads of an active run, an error event (upstream's waiter gives up there too). Transient errors
    are read again at the next poll, up to
    :data:`~resumable_jobs.providers.amazon.aws_trigger.MAX_TRANSIENT_ERRORS` in a row.

    What it does not do: forward logs (see the module docstring), or stop the run on kill
    (upstream's trigger does not either).
    """

    service = "glue"
    noun = "AWS Glue job run"
    upstream_id_key = "run_id"

    def __init__(
        self, job_name: str, run_id: str, waiter_delay: int = 60, waiter_max_attempts: int = 75, **connection: Any
    ) -> None:
        super().__init__(external_id=run_id, poll_interval=waiter_delay, max_attempts=waiter_max_attempts, **connection)
        self.job_name = job_name
        self.run_id = run_id
        self.waiter_delay = waiter_delay
        self.waiter_max_attempts = waiter_max_attempts

    @property
    def job_label(self) -> str:
        return f"{self.noun} {self.run_id!r} of job {self.job_name!r}"

    def job_kwargs(self) -> dict[str, Any]:
        return {
            "job_name": self.job_name,
            "run_id": self.run_id,
            "waiter_delay": self.waiter_delay,
            "waiter_max_attempts": self.waiter_max_attempts,
        }

    async def describe(self, lease: Lease) -> dict[str, Any]:
        answer = await call(lease, "get_job_run", JobName=self.job_name, RunId=self.run_id)
        return answer["JobRun"]

    def classify(self, description: dict[str, Any]) -> JobState:
        state = description.get("JobRunState")
        if status.is_succeeded(state):
            return JobState(state, active=False, succeeded=True, message="job run succeeded")
        if status.is_active(state):
            return JobState(state, active=True, succeeded=False)
        return JobState(state, active=False, succeeded=False, message=status.failure_summary(description))
