"""The triggerer side of ``EmrServerlessStartJobOperator(deferrable=True)``: GetJobRun through a shared client.

What it is for: waiting for an EMR Serverless job run in the triggerer at the cost of one GetJobRun
per poll, where upstream's ``EmrServerlessStartJobTrigger`` builds a hook, a session, a client and a
waiter per trigger.

How it works: :class:`EmrServerlessJobRunTrigger` is an
:class:`~resumable_jobs.providers.amazon.aws_trigger.AwsJobTrigger` of the ``emr-serverless``
service taking upstream's kwargs; states are classified by
:mod:`resumable_jobs.providers.amazon.emr_status`. It fires the mixin's event (``{"status",
"external_id", "message"}``, a failure's message from the run's state details), which the
operator's ``execute_complete`` takes as it is; upstream's events (a task deferred before the
upgrade) are still translated there.

What it does not do: push links or lineage (the operator does when it resumes).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from resumable_jobs.providers.amazon import emr_status
from resumable_jobs.providers.amazon.aws_async import call
from resumable_jobs.providers.amazon.aws_trigger import AwsJobTrigger, JobState
from resumable_jobs.providers.shared_clients import Lease

__all__ = ["EmrServerlessJobRunTrigger"]

#: What Airflow 3.3's triggerer passes to ``Task.cancel`` when a user stops a deferred task (it
#: then calls ``on_kill`` itself).
_USER_ACTION = "__airflow_user_action__"


class EmrServerlessJobRunTrigger(AwsJobTrigger):
    """Wait for an EMR Serverless job run; fire the mixin's event when it ends.

    What it is for: ``EmrServerlessStartJobOperator``'s deferrable wait, with upstream's
    ``EmrServerlessStartJobTrigger`` kwargs (``application_id``, ``job_id``, ``waiter_delay``,
    ``waiter_max_attempts``, ``cancel_on_kill`` and the connection).

    How it works: every ``waiter_delay`` seconds one GetJobRun through the loop's shared
    ``emr-serverless`` client; SUBMITTED, PENDING, SCHEDULED, RUNNING and QUEUED are active,
    SUCCESS succeeds, anything else is an error with the run's ``stateDetails``; after
    ``waiter_max_attempts`` reads of an active run, an error event. With ``cancel_on_kill``, a
    user stopping the deferred task cancels the run (CancelJobRun): through ``on_kill`` on
    Airflow 3.3, and - as upstream's trigger does on older Airflow - when the trigger is cancelled
    while its task instance is no longer deferred (a triggerer restart leaves it deferred: no cancel).

    What it does not do: read the run's logs or dashboards.
    """

    service = "emr-serverless"
    noun = "EMR Serverless job run"

    def __init__(
        self,
        application_id: str,
        job_id: str,
        waiter_delay: int = 30,
        waiter_max_attempts: int = 60,
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
        self.application_id = application_id
        self.job_id = job_id
        self.waiter_delay = waiter_delay
        self.waiter_max_attempts = waiter_max_attempts

    @property
    def job_label(self) -> str:
        return f"{self.noun} {self.job_id!r} of application {self.application_id!r}"

    def job_kwargs(self) -> dict[str, Any]:
        return {
            "application_id": self.application_id,
            "job_id": self.job_id,
            "waiter_delay": self.waiter_delay,
            "waiter_max_attempts": self.waiter_max_attempts,
            "cancel_on_kill": self.cancel_on_kill,
        }

    async def describe(self, lease: Lease) -> dict[str, Any]:
        answer = await call(lease, "get_job_run", applicationId=self.application_id, jobRunId=self.job_id)
        return answer["jobRun"]

    def classify(self, description: dict[str, Any]) -> JobState:
        state = description.get("state")
        if state == emr_status.SERVERLESS_SUCCEEDED:
            return JobState(state, active=False, succeeded=True, message="job run succeeded")
        if state in emr_status.SERVERLESS_ACTIVE:
            return JobState(state, active=True, succeeded=False)
        return JobState(
            state, active=False, succeeded=False, message=emr_status.serverless_failure_summary(description)
        )

    async def cancel(self, lease: Lease) -> None:
        await call(lease, "cancel_job_run", applicationId=self.application_id, jobRunId=self.job_id)
        self.log.info("Cancelled %s", self.job_label)

    async def run(self) -> AsyncIterator[Any]:
        try:
            async for event in super().run():
                yield event
        except asyncio.CancelledError as cancelled:
            user_action = bool(cancelled.args) and cancelled.args[0] == _USER_ACTION  # on_kill follows (3.3)
            if not user_action and self.cancel_on_kill and await self._task_left_deferred():
                await self.on_kill()
            raise

    async def _task_left_deferred(self) -> bool:
        """True when the task instance is no longer deferred: a user acted on it (False when unknown)."""
        ti = getattr(self, "task_instance", None)
        if ti is None:
            return False
        try:
            from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance
            from asgiref.sync import sync_to_async

            states = await sync_to_async(RuntimeTaskInstance.get_task_states)(
                dag_id=ti.dag_id, task_ids=[ti.task_id], run_ids=[ti.run_id], map_index=ti.map_index
            )
            return states[ti.run_id][ti.task_id] != "deferred"
        except Exception as error:  # noqa: BLE001 - unknown: keep the run (a restart must never cancel it)
            self.log.warning("Could not read the state of the task of %s; not cancelling it: %s", self.job_label, error)
            return False
