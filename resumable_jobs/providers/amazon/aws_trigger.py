"""The base of this package's AWS triggers: one describe call per poll through a shared aiobotocore client.

What it is for: waiting in the triggerer for an AWS job (a Redshift Data statement, a Batch job...)
the way the operator's synchronous poll does, at a cost a thousand deferred tasks can share: one
client per event loop, connection and service (:mod:`resumable_jobs.providers.amazon.aws_async`)
and one API call per job and poll, with no blocking call on the loop.

How it works: a subclass names its ``service``, reads one description (:meth:`AwsJobTrigger.describe`)
and classifies it (:meth:`AwsJobTrigger.classify`) with what the family's ``*_status`` module
already knows. :meth:`AwsJobTrigger.run` reads every ``poll_interval`` seconds and logs each change
of an active state once (the end at debug level: a thousand jobs ending together must not log a
thousand lines in one second); when the job is no longer active it fires the mixin's event
``{"status": "success" | "error", "external_id", "message"}`` (the message: the job's own reason
for a failure) - or, with ``upstream_id_key``, upstream's trigger's shape, which the operator
translates as it always did. A
transient error (throttling, 429/5xx, a timeout, an unreachable endpoint; botocore's own retries
already ran inside the call) is logged and the job read again at the next poll; the
:data:`MAX_TRANSIENT_ERRORS`-th in a row, or any other error (a refusal, an unknown job, a bad
connection), fires an error event naming the job and the cause. With ``max_attempts`` the trigger
gives up after that many reads of an active job (an error event, as upstream's waiters fail).
``on_kill`` (called by Airflow 3.3's triggerer when a user stops the deferred task) cancels the job
when ``cancel_on_kill`` is set, as upstream's triggers do.

What it does not do: submit, return results or read logs (the operator does that when it resumes),
or bound the wait by time (``max_attempts`` x ``poll_interval`` and the task's timeout do).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, ClassVar

from airflow.triggers.base import BaseTrigger, TriggerEvent

from resumable_jobs.providers.amazon.aws_async import AwsConnection, aws_client, error_code, is_transient
from resumable_jobs.providers.shared_clients import Lease

__all__ = ["MAX_TRANSIENT_ERRORS", "AwsJobTrigger", "JobState"]

#: Failed reads in a row (transient errors) after which the trigger fires an error event.
MAX_TRANSIENT_ERRORS = 5


@dataclass(frozen=True)
class JobState:
    """A description classified: the state's name, whether the job may still end well, and if it did."""

    state: str | None
    active: bool
    succeeded: bool
    message: str = ""


class AwsJobTrigger(BaseTrigger):
    """Wait for one AWS job through the loop's shared client; fire the mixin's event when it ends.

    What it is for: the base of each AWS family's trigger (see the module docstring).

    How it works: a subclass sets ``service`` (botocore's name) and ``noun``, implements
    :meth:`describe`, :meth:`classify` and :meth:`job_kwargs` (its own serialised kwargs), and
    :meth:`cancel` if the job can be cancelled. The connection kwargs are upstream's triggers'.

    What it does not do: decide what a result is (the operator's ``execute_complete`` does), or
    retry a refused call.
    """

    service: ClassVar[str]
    noun: ClassVar[str]
    #: When set, events take upstream's trigger's shape (``{"status", <this key>: id, "message"}``),
    #: for an operator whose ``execute_complete`` builds its error from the job (log links...).
    upstream_id_key: ClassVar[str | None] = None

    def __init__(
        self,
        *,
        external_id: Any,
        poll_interval: float,
        max_attempts: int | None = None,
        cancel_on_kill: bool = False,
        aws_conn_id: str | None = "aws_default",
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: dict | None = None,
    ) -> None:
        super().__init__()
        self.external_id = external_id
        self.poll_interval = poll_interval
        self.max_attempts = max_attempts
        self.cancel_on_kill = cancel_on_kill
        self.aws_conn_id = aws_conn_id
        self.region_name = region_name
        self.verify = verify
        self.botocore_config = botocore_config

    # ----------------------------------------------------------------- what a subclass provides
    def job_kwargs(self) -> dict[str, Any]:
        """The subclass's own ``__init__`` kwargs (the job's id under its name, its timing)."""
        raise NotImplementedError

    async def describe(self, lease: Lease) -> dict[str, Any]:
        """One describe call for the job through ``lease``."""
        raise NotImplementedError

    def classify(self, description: dict[str, Any]) -> JobState:
        raise NotImplementedError

    async def cancel(self, lease: Lease) -> None:
        """Cancel the job (``on_kill`` with ``cancel_on_kill``); by default there is nothing to cancel."""

    # ----------------------------------------------------------------- the trigger
    def serialize(self) -> tuple[str, dict[str, Any]]:
        kwargs = {
            **self.job_kwargs(),
            "aws_conn_id": self.aws_conn_id,
            "region_name": self.region_name,
            "verify": self.verify,
            "botocore_config": self.botocore_config,
        }
        return f"{type(self).__module__}.{type(self).__qualname__}", kwargs

    @property
    def connection(self) -> AwsConnection:
        return AwsConnection.of(self.aws_conn_id, self.region_name, self.verify, self.botocore_config)

    @property
    def job_label(self) -> str:
        return f"{self.noun} {self.external_id!r}"

    async def run(self) -> AsyncIterator[TriggerEvent]:
        async with aws_client(self.connection, self.service) as lease:
            event = await self._wait(lease)
        yield TriggerEvent(event)

    async def _wait(self, lease: Lease) -> dict[str, Any]:
        failures, reads, last_state = 0, 0, None
        while True:
            try:
                description = await self.describe(lease)
            except Exception as error:  # noqa: BLE001 - every failure is either another poll or an error event
                failures += 1
                if not is_transient(error) or failures >= MAX_TRANSIENT_ERRORS:
                    return self._event("error", self._error_message(error, failures))
                self.log.warning(
                    "Could not read %s (failed reads in a row: %s; the wait ends at %s): %s",
                    self.job_label,
                    failures,
                    MAX_TRANSIENT_ERRORS,
                    _describe_error(error),
                )
                await asyncio.sleep(self.poll_interval)
                continue
            failures, reads = 0, reads + 1
            state = self.classify(description)
            if not state.active:
                # At debug level: when a thousand jobs end in the same second, a thousand info lines
                # (each shipped to the supervisor and a task log) would stall the loop; the event says it.
                self.log.debug("%s is %s", self.job_label, state.state)
                return self._event("success" if state.succeeded else "error", state.message)
            if state.state != last_state:
                self.log.info("%s is %s; reading it every %s s", self.job_label, state.state, self.poll_interval)
                last_state = state.state
            if self.max_attempts is not None and reads >= self.max_attempts:
                return self._event(
                    "error",
                    f"{self.job_label} was still {state.state} after {reads} status reads, "
                    f"{self.poll_interval} s apart (the operator's max attempts)",
                )
            await asyncio.sleep(self.poll_interval)

    def _event(self, status: str, message: str) -> dict[str, Any]:
        return {"status": status, self.upstream_id_key or "external_id": self.external_id, "message": message}

    def _error_message(self, error: BaseException, failures: int) -> str:
        if is_transient(error):
            return f"could not read {self.job_label} {failures} times in a row; last error: {_describe_error(error)}"
        return f"could not read {self.job_label}: {_describe_error(error)}"

    async def on_kill(self) -> None:
        """Cancel the job when a user stops the deferred task and ``cancel_on_kill`` is set (Airflow 3.3+)."""
        if not self.cancel_on_kill:
            return
        self.log.info("Cancelling %s: the deferred task was stopped", self.job_label)
        try:
            async with aws_client(self.connection, self.service) as lease:
                await self.cancel(lease)
        except Exception as error:  # noqa: BLE001 - the kill goes on; say the job may still run
            self.log.warning("Could not cancel %s; it may still be running: %s", self.job_label, _describe_error(error))


def _describe_error(error: BaseException) -> str:
    code = error_code(error)
    text = str(error) or type(error).__name__
    return text if code is None or code in text else f"{code}: {text}"
