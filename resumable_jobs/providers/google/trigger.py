"""The triggerer side of ``BigQueryInsertJobOperator(deferrable=True)``: wait for a BigQuery job, natively async.

What it is for: waiting for the persisted job in the triggerer, where one event loop holds up to a
thousand deferred tasks. Upstream's ``BigQueryInsertJobTrigger`` reads each status through the
synchronous client library inside asgiref's ``sync_to_async`` - one thread shared by every such
call of the process - and builds a hook, credentials and a client library ``Client`` for every
read: a triggerer gets about 18 reads a second out of it, whatever the number of jobs.

How it works: :class:`BigQueryJobTrigger` takes upstream's arguments (``conn_id``, ``job_id``,
``project_id``, ``location``, ``poll_interval``, ``impersonation_chain``, ``cancel_on_kill``; and
``dataset_id`` / ``table_id``, which upstream keeps but does not use) and fires upstream's events
with the job id in both: ``{"status": "success", "job_id", "message"}`` and ``{"status": "error",
"job_id", "message"}``, which the operator's ``execute_complete`` resumes from. Every trigger of
one event loop, connection and impersonation chain shares one session and one access token
(:mod:`resumable_jobs.providers.google.access`: credentials built and refreshed in a thread once
per half token life). Each poll is ``GET /bigquery/v2/projects/<project>/jobs/<id>?location=<location>``
with a per-call timeout (:data:`REQUEST_TIMEOUT`); a ``DONE`` job with an ``errorResult`` fails
with BigQuery's reason and message (:func:`resumable_jobs.providers.google.status.failure_message`).
Each active state is logged once at info level, not once per read; the end only at debug level
(its event says it, and a thousand jobs may end in the same second). With ``cancel_on_kill`` (upstream's default) a user
killing the deferred task cancels the job, as upstream's trigger does: through ``on_kill`` on
Airflow >= 3.3; before, when the trigger is cancelled and upstream's own ``safe_to_cancel`` says
the task is no longer deferred.

Errors: a 400/401/403/404 answer and credentials that cannot be built end the wait with an
``error`` event naming the job and the cause (the operator reads the job once more and fails the
try; its retry follows or replaces the job). Transient failures - 5xx, 429, a timeout, a refused
connection, an unreadable answer - are retried on the next poll; after ``max_consecutive_errors``
(5) failed reads in a row the wait ends with an ``error`` event saying the job may still run.

What it does not do: it never inserts a job, and it does not bound the wait (``execution_timeout``
does, as with upstream's trigger). It serialises no secret.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from typing import Any, ClassVar
from urllib.parse import quote

from resumable_jobs.providers.google import status
from resumable_jobs.providers.shared_clients import Lease, import_off_loop

try:  # the trigger base class is importable from core in 3.x; the SDK path is the fallback
    from airflow.triggers.base import BaseTrigger, TriggerEvent
except ImportError:  # pragma: no cover
    from airflow.sdk.bases.trigger import BaseTrigger, TriggerEvent  # type: ignore[no-redef]

__all__ = ["MAX_CONSECUTIVE_ERRORS", "REQUEST_TIMEOUT", "BigQueryJobTrigger"]

#: Seconds one status read (or the cancel call) may take.
REQUEST_TIMEOUT = 60.0
#: Failed status reads in a row tolerated before the wait ends with an error event.
MAX_CONSECUTIVE_ERRORS = 5
_TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})


class _Refused(Exception):
    """A read BigQuery refused, or credentials that cannot be used: not retried."""


class _Transient(Exception):
    """A read that may succeed on the next poll."""


class BigQueryJobTrigger(BaseTrigger):
    """Poll one BigQuery job until it is ``DONE`` and fire upstream's event (see the module docstring)."""

    client_modules: ClassVar[tuple[str, ...]] = (
        "aiohttp",
        "resumable_jobs.providers.google.access",
        "airflow.providers.google.common.hooks.base_google",
        "google.auth.transport.requests",
    )

    def __init__(
        self,
        conn_id: str,
        job_id: str | None,
        project_id: str,
        location: str | None,
        dataset_id: str | None = None,
        table_id: str | None = None,
        poll_interval: float = 4.0,
        impersonation_chain: str | Sequence[str] | None = None,
        cancel_on_kill: bool = True,
        max_consecutive_errors: int = MAX_CONSECUTIVE_ERRORS,
    ) -> None:
        super().__init__()
        self.conn_id = conn_id
        self.job_id = job_id
        self.project_id = project_id
        self.location = location
        self.dataset_id = dataset_id
        self.table_id = table_id
        self.poll_interval = float(poll_interval)
        self.impersonation_chain = impersonation_chain
        self.cancel_on_kill = bool(cancel_on_kill)
        self.max_consecutive_errors = int(max_consecutive_errors)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "conn_id": self.conn_id,
                "job_id": self.job_id,
                "project_id": self.project_id,
                "location": self.location,
                "dataset_id": self.dataset_id,
                "table_id": self.table_id,
                "poll_interval": self.poll_interval,
                "impersonation_chain": self.impersonation_chain,
                "cancel_on_kill": self.cancel_on_kill,
                "max_consecutive_errors": self.max_consecutive_errors,
            },
        )

    def _api(self) -> Any:
        from resumable_jobs.providers.google.access import google_api

        return google_api(self.conn_id, self.impersonation_chain)

    async def run(self) -> AsyncIterator[TriggerEvent]:
        """Read the job every ``poll_interval`` seconds until it is ``DONE`` (see the module docstring)."""
        await import_off_loop(*self.client_modules)
        errors: list[str] = []
        last_state = None
        async with self._api() as lease:
            try:
                while True:
                    try:
                        job = await self._read(lease)
                    except _Refused as refused:
                        yield self._event("error", f"BigQuery job {self.job_id}: {refused}")
                        return
                    except _Transient as error:
                        errors.append(str(error))
                        self.log.warning("Reading BigQuery job %s failed: %s", self.job_id, error)
                        if len(errors) >= self.max_consecutive_errors:
                            yield self._event(
                                "error",
                                f"could not read the status of BigQuery job {self.job_id} {len(errors)} times in "
                                f"a row (last: {errors[-1]}); the job may still be running",
                            )
                            return
                    else:
                        errors.clear()
                        job_status = job.get("status") or {}
                        state = status.job_status(job_status.get("state"), job_status.get("errorResult"))
                        if state != last_state:  # once per state; an end is in the event
                            log = self.log.info if status.is_active(state) else self.log.debug
                            log("BigQuery job %s is %s", self.job_id, state)
                            last_state = state
                        if status.is_succeeded(state):
                            yield self._event("success", "Job completed")
                            return
                        if not status.is_active(state):
                            message = status.failure_message(
                                str(self.job_id), job_status.get("errorResult"), job_status.get("errors")
                            )
                            yield self._event("error", message)
                            return
                    await asyncio.sleep(self.poll_interval)
            except asyncio.CancelledError:
                if self.cancel_on_kill and not _has_on_kill() and await self._legacy_safe_to_cancel():
                    await self._cancel(lease)
                raise

    async def on_kill(self) -> None:
        """A user killed the deferred task (Airflow >= 3.3): cancel the job when ``cancel_on_kill``, as upstream."""
        if self.job_id and self.cancel_on_kill:
            await import_off_loop(*self.client_modules)
            async with self._api() as lease:
                await self._cancel(lease)

    async def _cancel(self, lease: Lease) -> None:
        import aiohttp

        try:
            async with lease.use() as api:
                url = f"{self._job_url(api)}/cancel"
                async with api.session.post(
                    url,
                    params=self._params(),
                    headers=api.headers,
                    timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT),
                ) as response:
                    response.raise_for_status()
            self.log.info("Asked BigQuery to cancel job %s", self.job_id)
        except Exception as error:
            self.log.error("Could not cancel BigQuery job %s: %s", self.job_id, error)
            raise

    async def _legacy_safe_to_cancel(self) -> bool:
        """Before Airflow 3.3: upstream's own check that the task is no longer deferred (not a triggerer restart)."""
        from airflow.providers.google.cloud.triggers.bigquery import BigQueryInsertJobTrigger

        upstream = BigQueryInsertJobTrigger(
            **{k: v for k, v in self.serialize()[1].items() if k != "max_consecutive_errors"}
        )
        upstream.task_instance = getattr(self, "task_instance", None)
        try:
            return await upstream.safe_to_cancel()
        except Exception as error:  # noqa: BLE001 - unknown: keep the job, as a restart would want
            self.log.warning("Could not tell whether BigQuery job %s should be cancelled: %s", self.job_id, error)
            return False

    async def _read(self, lease: Lease) -> dict[str, Any]:
        """The job resource, read once through the shared session."""
        import aiohttp

        from resumable_jobs.providers.google.access import GoogleCredentialsError

        try:
            async with lease.use() as api:
                url = self._job_url(api)
                async with api.session.get(
                    url,
                    params=self._params(),
                    headers=api.headers,
                    timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT),
                ) as response:
                    if response.status in _TRANSIENT_STATUSES:
                        raise _Transient(f"HTTP {response.status} from {url}")
                    if response.status >= 400:
                        raise _Refused(
                            f"BigQuery refused the status read with HTTP {response.status}: "
                            f"{_message(await response.text())}"
                        )
                    answer = await response.json(content_type=None)
        except GoogleCredentialsError as error:
            raise _Refused(str(error)) from error
        except (_Refused, _Transient):
            raise
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:
            raise _Transient(f"{type(error).__name__}: {error}") from error
        if not isinstance(answer, dict):
            raise _Transient(f"an answer that is no job: {str(answer)[:200]}")
        return answer

    def _job_url(self, api: Any) -> str:
        return f"{api.base_url}/bigquery/v2/projects/{quote(str(self.project_id), safe='')}/jobs/{quote(str(self.job_id), safe='')}"

    def _params(self) -> dict[str, str]:
        return {"location": self.location} if self.location else {}

    def _event(self, outcome: str, message: str) -> TriggerEvent:
        return TriggerEvent({"status": outcome, "job_id": self.job_id, "message": message})


def _has_on_kill() -> bool:
    """Whether the triggerer calls ``on_kill`` on a user's kill (Airflow >= 3.3)."""
    return callable(getattr(BaseTrigger, "on_kill", None))


def _message(text: str) -> str:
    """BigQuery's error message (``error.message``), else the start of the answer."""
    try:
        return str(json.loads(text)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return text[:200]
