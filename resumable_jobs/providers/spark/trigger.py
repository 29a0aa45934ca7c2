"""The triggerer side of ``SparkSubmitOperator(deferrable=True)``: wait for a driver without a worker.

What it is for: polling a Spark standalone driver's status from the triggerer while the task is
deferred, and firing one event when the driver is terminal.

How it works: ``run()`` GETs ``/v1/submissions/status/<id>`` every ``poll_interval`` seconds with
``aiohttp`` (imported inside ``run``, so loading this module for (de)serialisation costs nothing),
on one session shared by every standalone trigger of the triggerer for the same masters
(:mod:`resumable_jobs.providers.shared_clients`), not one session per trigger, reading replies with the same
:func:`~resumable_jobs.providers.spark.status.parse_status_reply` the worker uses. It fires the
mixin's event shape ``{"status": "success" | "error", "external_id": <driver id>, "message": ...}``:
success for FINISHED; error for FAILED/KILLED/ERROR (with the master's message), for an id the
master does not know, and after ``max_consecutive_errors`` failed polls in a row. An error event
fails the try; the retry asks the master again and defers to the same driver while it still runs.

What it does not do: it never submits or kills a driver, and it holds no credentials (the
serialised kwargs are the REST URLs and the driver id).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError
from resumable_jobs.providers.shared_clients import Lease, import_off_loop, shared_http_session
from resumable_jobs.providers.spark.rest_client import API_PREFIX
from resumable_jobs.providers.spark.status import DriverStatus, MasterNotAliveError, parse_status_reply

try:  # the trigger base class is importable from core in 3.x; the SDK path is the fallback
    from airflow.triggers.base import BaseTrigger, TriggerEvent
except ImportError:  # pragma: no cover
    from airflow.sdk.bases.trigger import BaseTrigger, TriggerEvent  # type: ignore[no-redef]

__all__ = ["SparkDriverTrigger"]


class SparkDriverTrigger(BaseTrigger):
    """Poll one Spark standalone driver until it is terminal (see the module docstring)."""

    def __init__(
        self,
        driver_id: str,
        rest_urls: Sequence[str],
        poll_interval: float = 10.0,
        request_timeout: float = 30.0,
        max_consecutive_errors: int = 5,
    ) -> None:
        super().__init__()
        self.driver_id = driver_id
        self.rest_urls = [str(u).rstrip("/") for u in rest_urls]
        self.poll_interval = float(poll_interval)
        self.request_timeout = float(request_timeout)
        self.max_consecutive_errors = int(max_consecutive_errors)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "driver_id": self.driver_id,
                "rest_urls": list(self.rest_urls),
                "poll_interval": self.poll_interval,
                "request_timeout": self.request_timeout,
                "max_consecutive_errors": self.max_consecutive_errors,
            },
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        await import_off_loop("aiohttp")
        import aiohttp

        errors: list[str] = []
        last_state = None
        async with shared_http_session(("spark-rest", tuple(self.rest_urls))) as lease:
            while True:
                try:
                    status = await self._status(lease)
                except JobNotFoundError as missing:
                    yield self._event("error", f"{missing}; it may have been lost in a master restart")
                    return
                except (aiohttp.ClientError, asyncio.TimeoutError, ValueError, MasterNotAliveError) as error:
                    errors.append(f"{type(error).__name__}: {error}")
                    self.log.warning("Polling Spark driver %s failed: %s", self.driver_id, errors[-1])
                    if len(errors) >= self.max_consecutive_errors:
                        yield self._event(
                            "error",
                            f"could not read the status of Spark driver {self.driver_id} "
                            f"{len(errors)} times in a row (last: {errors[-1]}); the driver may still run",
                        )
                        return
                else:
                    errors.clear()
                    if status.terminal:
                        if status.succeeded:
                            yield self._event("success", f"Spark driver {self.driver_id} FINISHED")
                        else:
                            yield self._event("error", status.describe())
                        return
                    if status.state != last_state:  # each state once, as the synchronous poll logs
                        self.log.info("Spark driver %s is %s", self.driver_id, status.state)
                        last_state = status.state
                await asyncio.sleep(self.poll_interval)

    async def _status(self, lease: Lease) -> DriverStatus:
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=self.request_timeout)
        not_alive: MasterNotAliveError | None = None
        last_error: Exception | None = None
        for base in self.rest_urls:
            url = f"{base}{API_PREFIX}/status/{self.driver_id}"
            try:
                async with lease.use() as session, session.get(url, timeout=timeout) as response:
                    reply = await response.json(content_type=None)
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:  # try the next master
                last_error = error
                continue
            try:
                return parse_status_reply(self.driver_id, reply)
            except MasterNotAliveError as error:
                not_alive = error
        if not_alive is not None:
            raise not_alive
        assert last_error is not None
        raise last_error

    def _event(self, status: str, message: str) -> TriggerEvent:
        return TriggerEvent({"status": status, "external_id": self.driver_id, "message": message})
