"""The triggerer side of ``SnowflakeSqlApiOperator(deferrable=True)``: upstream's trigger, off the loop.

What it is for: waiting for the persisted statement handles in the triggerer without ever blocking
its event loop, which one triggerer shares with up to a thousand other triggers.

How it works: upstream's ``SnowflakeSqlApiTrigger`` takes the handles as a parameter and fires
``{"status": "success", "statement_query_ids": [...]}`` or ``{"status": "error", "message": ...}``;
this subclass keeps those events, its kwargs, upstream's hook for authentication, retries and the
reading of a finished statement's answer, and upstream's ``on_kill`` (cancel the statements when a
user stops the deferred task). What it changes is the cost of a poll, which upstream pays once per
statement and poll: building the request's headers synchronously inside ``run()`` (a connection
lookup, loading the private key and signing a JWT - with an OAuth connection, a ``requests`` call),
opening a new ``aiohttp`` session, and logging the whole answer. Here every trigger of one event
loop and connection shares one set of headers - built in a worker thread by upstream's hook, and
rebuilt after :data:`HEADER_REUSE` or the JWT's renewal time, whichever is shorter - and one
``aiohttp`` session (:mod:`resumable_jobs.providers.shared_clients`); a poll is only the GET on the
loop, and a running statement is logged once at info level, its success at debug level (upstream's
hook logs every answer in full at info level; when a thousand jobs end in the same second, a
thousand log lines - each shipped to the triggerer's supervisor and written to a task log - stall
the loop for most of a second). It serialises under its own class path with upstream's kwargs.

What it does not do: avoid importing upstream's trigger module - it subclasses it, so the module
is imported where the trigger is (in the triggerer, and inside ``build_trigger``), never when a
DAG file is parsed. Nor does it submit or cancel statements on its own (``on_kill`` is upstream's,
already run in a thread), or change upstream's event shapes and messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from airflow.providers.snowflake.triggers.snowflake_trigger import SnowflakeSqlApiTrigger
from airflow.triggers.base import TriggerEvent
from tenacity import AsyncRetrying

from resumable_jobs.providers.shared_clients import Lease, shared_client, shared_http_session

__all__ = ["HEADER_REUSE", "SnowflakeStatementsTrigger"]

#: The longest the built headers are reused: an OAuth access token may live shorter than the
#: key-pair JWT (whose renewal time, ``token_renewal_delta``, bounds the reuse too).
HEADER_REUSE = timedelta(minutes=5)

_RUNNING = {"status": "running", "message": "Query statements are still running"}


class SnowflakeStatementsTrigger(SnowflakeSqlApiTrigger):
    """Upstream's ``SnowflakeSqlApiTrigger`` whose status reads never block the event loop (see the module docstring)."""

    def serialize(self) -> tuple[str, dict[str, Any]]:
        _, kwargs = super().serialize()
        return f"{type(self).__module__}.{type(self).__qualname__}", kwargs

    async def run(self) -> AsyncIterator[TriggerEvent]:
        """Read each statement in turn until it ends; fire upstream's events (see the module docstring)."""
        try:
            async with self._clients() as clients:
                for query_id in self.query_ids:
                    while True:
                        statement_status = await self._read(query_id, *clients)
                        if statement_status["status"] != "running":
                            break
                        await asyncio.sleep(self.poll_interval)
                    if statement_status["status"] == "error":
                        yield TriggerEvent(statement_status)
                        return
            yield TriggerEvent({"status": "success", "statement_query_ids": self.query_ids})
        except Exception as error:  # noqa: BLE001 - upstream's contract: any failure becomes an error event
            yield TriggerEvent({"status": "error", "message": str(error)})

    async def get_query_status(self, query_id: str, hook: Any = None) -> dict[str, Any]:
        """One statement's status, as upstream's method answers it (``hook`` is not needed: the shared one is used)."""
        async with self._clients() as clients:
            return await self._read(query_id, *clients)

    @contextlib.asynccontextmanager
    async def _clients(self) -> AsyncIterator[tuple[Lease, Lease]]:
        """This loop's shared ``aiohttp`` session and shared request headers for the connection, held meanwhile."""
        life, renewal = _seconds(self.token_life_time), _seconds(self.token_renewal_delta)
        key = ("snowflake-sql-api", self.snowflake_conn_id, life, renewal)
        requests = shared_client(
            key,
            lambda: _request_template(self.snowflake_conn_id, self.token_life_time, self.token_renewal_delta),
            max_age=max(0.0, min(HEADER_REUSE.total_seconds(), renewal)),
        )
        async with shared_http_session(key) as sessions, requests as templates:
            yield sessions, templates

    async def _read(self, query_id: str, sessions: Lease, templates: Lease) -> dict[str, Any]:
        async with templates.use() as (hook, headers, statements_url):
            url, params = f"{statements_url}/{query_id}", {"requestId": str(uuid.uuid4())}
            async with sessions.use() as session:
                async for attempt in AsyncRetrying(**hook.retry_config):
                    with attempt:
                        async with session.get(url, headers=headers, params=params) as response:
                            if hook._should_raise_for_status(response.status):
                                response.raise_for_status()
                            status_code, answer = response.status, await response.json()
            if status_code == 202:  # still running: upstream's "running" status, without logging every poll
                self._log_running_once(query_id)
                return dict(_RUNNING)
            if status_code == 200:  # succeeded: upstream's "success" status, without logging the whole result
                self.log.debug("Snowflake statement %s succeeded", query_id)
                single = [answer["statementHandle"]] if answer.get("statementHandle") else []
                handles = answer.get("statementHandles") or single
                return {"status": "success", "message": answer["message"], "statement_handles": handles}
            return hook._process_response(status_code, answer)  # failed: upstream's error message

    def _log_running_once(self, query_id: str) -> None:
        logged = self.__dict__.setdefault("_logged_running", set())
        if query_id not in logged:
            logged.add(query_id)
            self.log.info("Snowflake statement %s is running; checking every %s s", query_id, self.poll_interval)


def _seconds(value: Any) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


@contextlib.asynccontextmanager
async def _request_template(conn_id: str, token_life_time: Any, token_renewal_delta: Any) -> AsyncIterator[Any]:
    """``(hook, headers, statements URL)`` for one connection, built in a worker thread (connection, key, JWT)."""

    def build() -> tuple[Any, dict[str, Any], str]:
        from resumable_jobs.providers.snowflake.imports import sql_api_hook_class

        hook = sql_api_hook_class()(conn_id, token_life_time, token_renewal_delta)
        headers, _, url = hook.get_request_url_header_params("-")
        return hook, headers, url.rpartition("/")[0]

    yield await asyncio.to_thread(build)
