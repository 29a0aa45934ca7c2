"""The triggerer side of ``DbtCloudRunJobOperator(deferrable=True)``: wait for a dbt Cloud run, natively async.

What it is for: waiting for the persisted run in the triggerer, where one event loop holds up to a
thousand deferred tasks. Upstream's ``DbtCloudRunJobTrigger`` opens an ``aiohttp`` session - a TCP
connection and a TLS handshake - and reads the connection for every status read, and logs every
read; at a thousand runs that is more than the loop can do on time. This trigger reads the same
status at the cost of one GET on a kept-alive connection.

How it works: :class:`DbtCloudRunTrigger` takes upstream's arguments (``conn_id``, ``run_id``,
``end_time``, ``poll_interval``, ``account_id``, ``hook_params``, ``execution_deadline``) and fires
upstream's events - ``{"status": "success" | "error" | "cancelled" | "timeout", "message", "run_id"}``
- which the operator's ``execute_complete`` resumes from. Every trigger of one event loop and
connection shares one :class:`DbtCloudClient` (:mod:`resumable_jobs.providers.shared_clients`):
the connection is read once (asynchronously, through the ``common.compat`` provider's
``get_async_connection``), and one ``aiohttp`` session carries the ``Authorization: Token``
header, the tenant's base URL, the account (``account_id``, else the connection's login) and the
connection's ``proxies``; it is rebuilt after :data:`CONNECTION_REUSE`, so a rotated token is
picked up. TLS is verified as upstream's hook does it: aiohttp's default verifying context (the
system's roots, or ``SSL_CERT_FILE``). Each poll is ``GET https://<tenant>/api/v2/accounts/<account>/runs/<run>/``
with a per-call timeout (``hook_params["timeout_seconds"]``, else :data:`DEFAULT_REQUEST_TIMEOUT`);
its ``data.status`` is classified by :mod:`resumable_jobs.providers.dbt.status` (an unknown status
counts as running). Each active status is logged once at info level, not once per read; the end
only at debug level (its event says it, and a thousand runs may end in the same second).

Errors: a 401/403/404 or another 4xx answer, and a connection that cannot be read (missing, no
token, no account), end the wait with an ``error`` event naming the run and the cause (the
operator fails the try; its retry asks dbt Cloud and follows or replaces the run). Transient
failures - 5xx, 429, a timeout, a refused or reset connection, an unreadable answer - are retried
on the next poll; after ``max(max_consecutive_errors, hook_params["retry_limit"])`` failed reads in
a row (5 by default) the wait ends with an ``error`` event that says the run may still be running.
``end_time`` (the operator's ``timeout``) and ``execution_deadline`` (its ``execution_timeout``)
end the wait as upstream's trigger does: an ``error`` event, and a ``timeout`` event upon which the
operator cancels the run.

What it does not do: it never triggers or cancels a run (upstream's trigger does not either), and
it does not retry inside one poll (``hook_params``' ``retry_delay`` / ``retry_args`` are not used:
the next poll is the retry). It serialises no secret: only ids, times and ``hook_params``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, ClassVar

from resumable_jobs.providers.dbt import status
from resumable_jobs.providers.shared_clients import Lease, import_off_loop, shared_client

try:  # the trigger base class is importable from core in 3.x; the SDK path is the fallback
    from airflow.triggers.base import BaseTrigger, TriggerEvent
except ImportError:  # pragma: no cover
    from airflow.sdk.bases.trigger import BaseTrigger, TriggerEvent  # type: ignore[no-redef]

__all__ = [
    "CONNECTION_REUSE",
    "DEFAULT_REQUEST_TIMEOUT",
    "MAX_CONSECUTIVE_ERRORS",
    "DbtCloudClient",
    "DbtCloudRunError",
    "DbtCloudRunTrigger",
]

#: Seconds one read of the connection (token, tenant, account) and its session serve, at most.
CONNECTION_REUSE = 600.0
#: Seconds one status read may take when ``hook_params`` sets no ``timeout_seconds``.
DEFAULT_REQUEST_TIMEOUT = 60.0
#: Failed status reads in a row tolerated before the wait ends with an error event.
MAX_CONSECUTIVE_ERRORS = 5
_DEFAULT_TENANT = "cloud.getdbt.com"
_TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})


class DbtCloudRunError(Exception):
    """A status read dbt Cloud refused, or a connection that cannot be used; not retried."""


class _Transient(Exception):
    """A status read that may succeed on the next poll."""


@dataclass(frozen=True)
class DbtCloudClient:
    """What every status read of one connection needs: the session, the tenant's URL, the account, the proxy."""

    session: Any
    base_url: str
    account_id: int | None
    proxy: str | None


class DbtCloudRunTrigger(BaseTrigger):
    """Poll one dbt Cloud run until it ends and fire upstream's event (see the module docstring)."""

    client_modules: ClassVar[tuple[str, ...]] = ("aiohttp", "airflow.providers.common.compat.connection")

    def __init__(
        self,
        conn_id: str,
        run_id: int,
        end_time: float,
        poll_interval: float,
        account_id: int | None,
        hook_params: dict[str, Any] | None = None,
        execution_deadline: float | None = None,
        max_consecutive_errors: int = MAX_CONSECUTIVE_ERRORS,
    ) -> None:
        super().__init__()
        self.conn_id = conn_id
        self.run_id = run_id
        self.end_time = float(end_time)
        self.poll_interval = float(poll_interval)
        self.account_id = account_id
        self.execution_deadline = None if execution_deadline is None else float(execution_deadline)
        self.max_consecutive_errors = int(max_consecutive_errors)
        #: Only JSON values survive the trigger's serialisation (a tenacity object would not).
        self.hook_params = {k: v for k, v in (hook_params or {}).items() if _is_json(v)}

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "conn_id": self.conn_id,
                "run_id": self.run_id,
                "end_time": self.end_time,
                "poll_interval": self.poll_interval,
                "account_id": self.account_id,
                "hook_params": self.hook_params,
                "execution_deadline": self.execution_deadline,
                "max_consecutive_errors": self.max_consecutive_errors,
            },
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        """Read the run's status every ``poll_interval`` seconds until it ends (see the module docstring)."""
        await import_off_loop(*self.client_modules)
        tolerated = max(self.max_consecutive_errors, int(self.hook_params.get("retry_limit") or 1))
        errors: list[str] = []
        last_state = None
        async with shared_client(
            ("dbt-cloud", self.conn_id), lambda: _open_client(self.conn_id), max_age=CONNECTION_REUSE
        ) as lease:
            while True:
                try:
                    state = await self._read(lease)
                except DbtCloudRunError as refused:
                    yield self._event("error", f"dbt Cloud run {self.run_id}: {refused}")
                    return
                except _Transient as error:
                    errors.append(str(error))
                    self.log.warning("Reading dbt Cloud run %s failed: %s", self.run_id, error)
                    if len(errors) >= tolerated:
                        yield self._event(
                            "error",
                            f"could not read the status of dbt Cloud run {self.run_id} {len(errors)} times in a "
                            f"row (last: {errors[-1]}); the run may still be running",
                        )
                        return
                else:
                    errors.clear()
                    if state != last_state:  # once per state; an end is in the event (a thousand may end at once)
                        log = self.log.info if status.is_active(state) else self.log.debug
                        log("dbt Cloud run %s is %s", self.run_id, state)
                        last_state = state
                    if status.is_succeeded(state):
                        yield self._event("success", f"Job run {self.run_id} has completed successfully.")
                        return
                    if state == "CANCELLED":
                        yield self._event("cancelled", f"Job run {self.run_id} has been cancelled.")
                        return
                    if not status.is_active(state):
                        yield self._event("error", f"Job run {self.run_id} has failed (status {state}).")
                        return
                now = time.time()
                if self.execution_deadline is not None and self.execution_deadline <= now:
                    yield self._event("timeout", f"Job run {self.run_id} has timed out.")
                    return
                if self.end_time <= now:
                    yield self._event(
                        "error",
                        f"Job run {self.run_id} has not reached a terminal status within the configured timeout.",
                    )
                    return
                await asyncio.sleep(self.poll_interval)

    async def _read(self, lease: Lease) -> str:
        """The run's status name, read once through the shared client."""
        import aiohttp

        timeout = self.hook_params.get("timeout_seconds") or DEFAULT_REQUEST_TIMEOUT
        try:
            async with lease.use() as client:
                account = self.account_id if self.account_id is not None else client.account_id
                if account is None:
                    raise DbtCloudRunError(f"connection {self.conn_id!r} names no account (its login) and none given")
                url = f"{client.base_url}/api/v2/accounts/{account}/runs/{self.run_id}/"
                async with client.session.get(
                    url, proxy=client.proxy, timeout=aiohttp.ClientTimeout(total=float(timeout))
                ) as response:
                    if response.status in _TRANSIENT_STATUSES:
                        raise _Transient(f"HTTP {response.status} from {url}")
                    if response.status >= 400:
                        raise DbtCloudRunError(
                            f"dbt Cloud refused the status read with HTTP {response.status}: "
                            f"{_message(await response.text())} ({url})"
                        )
                    answer = await response.json(content_type=None)
        except (DbtCloudRunError, _Transient):
            raise
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as error:
            raise _Transient(f"{type(error).__name__}: {error}") from error
        try:
            return status.status_name(answer["data"]["status"])
        except (KeyError, TypeError) as error:
            raise _Transient(f"an answer without data.status: {str(answer)[:200]}") from error

    def _event(self, outcome: str, message: str) -> TriggerEvent:
        return TriggerEvent({"status": outcome, "message": message, "run_id": self.run_id})


@contextlib.asynccontextmanager
async def _open_client(conn_id: str) -> AsyncIterator[DbtCloudClient]:
    """Read the connection (asynchronously) and open the session every trigger of it shares."""
    import aiohttp
    from airflow.providers.common.compat.connection import get_async_connection, get_async_extra_dejson

    try:
        conn = await get_async_connection(conn_id)
    except Exception as error:
        raise DbtCloudRunError(f"could not read connection {conn_id!r}: {type(error).__name__}: {error}") from error
    if not conn.password:
        raise DbtCloudRunError(f"connection {conn_id!r} has no API token (its password)")
    extra = await get_async_extra_dejson(conn) if conn.extra else {}
    proxies = extra.get("proxies") or {}
    try:
        account = int(conn.login) if conn.login else None
    except ValueError as error:
        raise DbtCloudRunError(f"connection {conn_id!r}: the login {conn.login!r} is no account id") from error
    headers = {
        "Authorization": f"Token {conn.password}",
        "Content-Type": "application/json",
        "User-Agent": "airflow-provider-resumable-jobs",
    }
    connector = aiohttp.TCPConnector(limit=0)  # ssl=True: aiohttp's default verifying context, as upstream's hook
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:
        yield DbtCloudClient(session, f"https://{conn.host or _DEFAULT_TENANT}", account, proxies.get("https") or None)


def _message(text: str) -> str:
    """dbt Cloud's ``status.user_message`` of an error answer, else the start of the answer."""
    try:
        return str(json.loads(text)["status"]["user_message"])
    except (ValueError, KeyError, TypeError):
        return text[:200]


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
