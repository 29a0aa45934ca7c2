"""The triggerer side of ``EmrContainerOperator(deferrable=True)``: DescribeJobRun through a shared client.

What it is for: waiting for an EMR on EKS job run in the triggerer at the cost of one
DescribeJobRun per poll, where upstream's ``EmrContainerTrigger`` builds a hook, a session, a
client and a waiter per trigger.

How it works: :class:`EmrContainerJobRunTrigger` is an
:class:`~resumable_jobs.providers.amazon.aws_trigger.AwsJobTrigger` of the ``emr-containers``
service taking upstream's kwargs; states are classified by
:mod:`resumable_jobs.providers.amazon.emr_status`. It fires the mixin's event (``{"status",
"external_id", "message"}``, a failure's message from the run's failure reason), which the
operator's ``execute_complete`` takes as it is; upstream's events (a task deferred before the
upgrade) are still translated there.

What it does not do: push links or lineage (the operator does when it resumes).
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.providers.amazon import emr_status
from resumable_jobs.providers.amazon.aws_async import call
from resumable_jobs.providers.amazon.aws_trigger import AwsJobTrigger, JobState
from resumable_jobs.providers.shared_clients import Lease

__all__ = ["EmrContainerJobRunTrigger"]


class EmrContainerJobRunTrigger(AwsJobTrigger):
    """Wait for an EMR on EKS job run; fire the mixin's event when it ends.

    What it is for: ``EmrContainerOperator``'s deferrable wait, with upstream's
    ``EmrContainerTrigger`` kwargs (``virtual_cluster_id``, ``job_id``, ``waiter_delay``,
    ``waiter_max_attempts`` - unbounded when not given, as upstream's - ``cancel_on_kill`` and the
    connection).

    How it works: every ``waiter_delay`` seconds one DescribeJobRun through the loop's shared
    ``emr-containers`` client; PENDING, SUBMITTED and RUNNING are active, COMPLETED succeeds,
    anything else is an error with the run's ``failureReason`` and ``stateDetails``. With
    ``cancel_on_kill``, a user stopping the deferred task cancels the run (CancelJobRun) through
    ``on_kill`` (Airflow 3.3), as upstream's trigger does.

    What it does not do: cancel on older Airflow (upstream's ``EmrContainerTrigger`` does not either).
    """

    service = "emr-containers"
    noun = "EMR on EKS job run"

    def __init__(
        self,
        virtual_cluster_id: str,
        job_id: str,
        waiter_delay: int = 30,
        waiter_max_attempts: int | None = None,
        cancel_on_kill: bool = True,
        **connection: Any,
    ) -> None:
        super().__init__(
            external_id=job_id,
            poll_interval=waiter_delay,
            max_attempts=waiter_max_attempts,
            cancel_on_kill=cancel_on_kill,
            **connection,
        )
        self.virtual_cluster_id = virtual_cluster_id
        self.job_id = job_id
        self.waiter_delay = waiter_delay
        self.waiter_max_attempts = waiter_max_attempts

    @property
    def job_label(self) -> str:
        return f"{self.noun} {self.job_id!r} of virtual cluster {self.virtual_cluster_id!r}"

    def job_kwargs(self) -> dict[str, Any]:
        return {
            "virtual_cluster_id": self.virtual_cluster_id,
            "job_id": self.job_id,
            "waiter_delay": self.waiter_delay,
            "waiter_max_attempts": self.waiter_max_attempts,
            "cancel_on_kill": self.cancel_on_kill,
        }

    async def describe(self, lease: Lease) -> dict[str, Any]:
        answer = await call(lease, "describe_job_run", virtualClusterId=self.virtual_cluster_id, id=self.job_id)
        return answer["jobRun"]

    def classify(self, description: dict[str, Any]) -> JobState:
        state = description.get("state")
        if state == emr_status.CONTAINERS_SUCCEEDED:
            return JobState(state, active=False, succeeded=True, message="job run completed")
        if state in emr_status.CONTAINERS_ACTIVE:
            return JobState(state, active=True, succeeded=False)
        return JobState(state, active=False, succeeded=False, message=emr_status.container_failure_summary(description))

    async def cancel(self, lease: Lease) -> None:
        await call(lease, "cancel_job_run", virtualClusterId=self.virtual_cluster_id, id=self.job_id)
        self.log.info("Cancelled %s", self.job_label)
