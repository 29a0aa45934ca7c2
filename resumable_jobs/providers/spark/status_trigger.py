"""The triggerer side for YARN and Kubernetes: wait for an application without holding a worker.

What it is for: ``deferrable=True`` on YARN and Kubernetes. The trigger reads the application's
status with the worker's status mapping and the same reading of the system's answers (the
ResourceManager's HA and error rules, the Kubernetes API's error classes), so a status means the
same on both sides - but natively asynchronous, because one triggerer runs up to a thousand
triggers in one event loop and a read in a thread pool serves only a few of them at a time.

How it works: :class:`ApplicationStatusTrigger` holds the subclass's :meth:`~ApplicationStatusTrigger.connect`
(a lease on a client shared by every trigger of the loop for the same connection, see
:mod:`resumable_jobs.providers.shared_clients`) while it runs, awaits
:meth:`~ApplicationStatusTrigger.read_status` every ``poll_interval`` seconds (nothing in it may
block the loop), logs each state once (a line per poll and trigger is what a thousand triggers
cannot afford), and fires the mixin's event shape once:
``{"status": "success" | "error", "external_id": <id>, "message": ...}`` - success when the
application succeeded; error when it ended otherwise, when the system no longer knows it, and
after ``max_consecutive_errors`` failed reads in a row. An error event fails the try; the retry
asks again and defers to the same application while it still runs.

What it does not do: it never submits or cancels, and it serialises no credentials (only URLs,
ids and connection ids; secrets are looked up in the triggerer).
"""

from __future__ import annotations

import asyncio
from abc import abstractmethod
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.mixin.errors import JobNotFoundError
from resumable_jobs.providers.shared_clients import import_off_loop

try:  # the trigger base class is importable from core in 3.x; the SDK path is the fallback
    from airflow.triggers.base import BaseTrigger, TriggerEvent
except ImportError:  # pragma: no cover
    from airflow.sdk.bases.trigger import BaseTrigger, TriggerEvent  # type: ignore[no-redef]

if TYPE_CHECKING:
    from resumable_jobs.providers.spark.cluster_manager import ApplicationStatus

__all__ = ["ApplicationStatusTrigger"]


class ApplicationStatusTrigger(BaseTrigger):
    """Poll one application until it is terminal (see the module docstring)."""

    #: Modules :meth:`read_status` needs, imported off the event loop before the first read.
    client_modules: ClassVar[tuple[str, ...]] = ()
    #: How messages name the application ("YARN application", "Spark driver pod").
    noun: ClassVar[str] = "Spark application"
    lost_hint: ClassVar[str] = "a retry submits a new application"

    def __init__(self, app_id: str, poll_interval: float = 10.0, max_consecutive_errors: int = 5) -> None:
        super().__init__()
        self.app_id = app_id
        self.poll_interval = float(poll_interval)
        self.max_consecutive_errors = int(max_consecutive_errors)

    @abstractmethod
    def connect(self) -> AbstractAsyncContextManager[Any]:
        """The client this trigger reads through, held while it runs (a lease on a shared client)."""

    @abstractmethod
    async def read_status(self, client: Any) -> ApplicationStatus:
        """Read the status once through ``client`` (never blocking the loop); ``JobNotFoundError`` when the
        system does not know it."""

    @abstractmethod
    def transient_errors(self) -> tuple[type[Exception], ...]:
        """Exceptions of :meth:`read_status` that mean "try again"."""

    @abstractmethod
    def serialized_kwargs(self) -> dict[str, Any]:
        """The constructor arguments besides the three of this class."""

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "app_id": self.app_id,
                **self.serialized_kwargs(),
                "poll_interval": self.poll_interval,
                "max_consecutive_errors": self.max_consecutive_errors,
            },
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        await import_off_loop(*self.client_modules)
        async with self.connect() as client:
            errors: list[str] = []
            transient = self.transient_errors()
            last_state = None
            while True:
                try:
                    status = await self.read_status(client)
                except JobNotFoundError as missing:
                    yield self._event("error", f"{missing}; {self.lost_hint}")
                    return
                except transient as error:
                    errors.append(f"{type(error).__name__}: {error}")
                    self.log.warning("Polling %s %s failed: %s", self.noun, self.app_id, errors[-1])
                    if len(errors) >= self.max_consecutive_errors:
                        yield self._event(
                            "error",
                            f"could not read the status of {self.noun} {self.app_id} {len(errors)} times in a row "
                            f"(last: {errors[-1]}); the application may still run",
                        )
                        return
                else:
                    errors.clear()
                    if status.terminal:
                        if status.succeeded:
                            yield self._event("success", f"{self.noun} {self.app_id} {status.state}")
                        else:
                            yield self._event("error", status.describe())
                        return
                    if status.state != last_state:  # each state once, as the synchronous poll logs
                        self.log.info("%s %s is %s", self.noun, self.app_id, status.state)
                        last_state = status.state
                await asyncio.sleep(self.poll_interval)

    def _event(self, status: str, message: str) -> TriggerEvent:
        return TriggerEvent({"status": status, "external_id": self.app_id, "message": message})
