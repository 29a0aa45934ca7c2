"""The triggerer side of ``RedshiftDataOperator(deferrable=True)``: DescribeStatement through a shared client.

What it is for: waiting for a Redshift Data statement in the triggerer at the cost of one
DescribeStatement per poll, where upstream's ``RedshiftDataTrigger`` builds a hook, a session and
an aiobotocore client for every status read.

How it works: :class:`RedshiftDataStatementTrigger` is an
:class:`~resumable_jobs.providers.amazon.aws_trigger.AwsJobTrigger` of the ``redshift-data``
service; statuses are classified by :mod:`resumable_jobs.providers.amazon.redshift_status`.

What it does not do: read results (the operator does when it resumes).
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.providers.amazon import redshift_status as status
from resumable_jobs.providers.amazon.aws_async import call
from resumable_jobs.providers.amazon.aws_trigger import AwsJobTrigger, JobState
from resumable_jobs.providers.shared_clients import Lease

__all__ = ["RedshiftDataStatementTrigger"]


class RedshiftDataStatementTrigger(AwsJobTrigger):
    """Wait for a Redshift Data statement; fire the mixin's event when it is FINISHED, FAILED or ABORTED.

    What it is for: ``RedshiftDataOperator``'s deferrable wait (upstream's ``RedshiftDataTrigger``
    kwargs, minus ``task_id``, which only named the task in upstream's error message).

    How it works: every ``poll_interval`` seconds one DescribeStatement through the loop's shared
    ``redshift-data`` client; SUBMITTED, PICKED and STARTED are active, FINISHED succeeds, FAILED
    and ABORTED fire an error event with the statement's error (the failing sub-statement's for a
    batch). Transient errors are read again at the next poll, up to
    :data:`~resumable_jobs.providers.amazon.aws_trigger.MAX_TRANSIENT_ERRORS` in a row. With
    ``cancel_on_kill`` (the default, as upstream's), a user stopping the deferred task cancels the
    statement (CancelStatement).

    What it does not do: limit the number of polls (upstream's trigger does not either).
    """

    service = "redshift-data"
    noun = "Redshift Data statement"

    def __init__(self, statement_id: str, poll_interval: float, cancel_on_kill: bool = True, **connection: Any) -> None:
        super().__init__(
            external_id=statement_id, poll_interval=poll_interval, cancel_on_kill=cancel_on_kill, **connection
        )
        self.statement_id = statement_id

    def job_kwargs(self) -> dict[str, Any]:
        return {
            "statement_id": self.statement_id,
            "poll_interval": self.poll_interval,
            "cancel_on_kill": self.cancel_on_kill,
        }

    async def describe(self, lease: Lease) -> dict[str, Any]:
        return await call(lease, "describe_statement", Id=self.statement_id)

    def classify(self, description: dict[str, Any]) -> JobState:
        state = description.get("Status")
        if status.is_succeeded(state):
            return JobState(state, active=False, succeeded=True, message="statement finished")
        if status.is_active(state):
            return JobState(state, active=True, succeeded=False)
        return JobState(state, active=False, succeeded=False, message=status.failure_summary(description))

    async def cancel(self, lease: Lease) -> None:
        answer = await call(lease, "cancel_statement", Id=self.statement_id)
        if answer.get("Status"):
            self.log.info("Cancelled %s", self.job_label)
        else:
            self.log.warning("The Data API declined to cancel %s; it may have finished already", self.job_label)
