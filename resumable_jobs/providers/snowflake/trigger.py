"""The triggerer side of ``SnowflakeSqlApiOperator(deferrable=True)``: upstream's trigger, off the loop.

What it is for: waiting for the persisted statement handles in the triggerer without ever blocking
its event loop, which one triggerer shares with up to a thousand other triggers.

How it works: upstream's ``SnowflakeSqlApiTrigger`` already takes the handles as a parameter,
polls them in order, fires ``{"status": "success", "statement_query_ids": [...]}`` or ``{"status":
"error", "message": ...}``, and cancels them in ``on_kill`` when a user stops the deferred task;
all of that is kept. What is not: to read one status, upstream's hook first builds the request's
headers synchronously inside ``run()`` - the connection lookup and, with an OAuth connection, a
``requests`` call that refreshes the access token (with ``azure_conn_id``, on every poll). This
subclass builds each statement's URL and headers in a worker thread (``asyncio.to_thread``) once
and reuses them for :data:`HEADER_REUSE` (or the JWT's renewal time, if shorter), so a poll is only
the ``aiohttp`` GET on the loop: a thousand triggers do not queue a thread hop per poll in the
loop's small default pool. It serialises under its own class path with upstream's kwargs.

What it does not do: avoid importing upstream's trigger module - it subclasses it, so the module
is imported where the trigger is (in the triggerer, and inside ``build_trigger``), never when a
DAG file is parsed. Nor does it submit or cancel statements on its own (``on_kill`` is upstream's, already run
in a thread), or change upstream's event shapes.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

from airflow.providers.snowflake.triggers.snowflake_trigger import SnowflakeSqlApiTrigger

__all__ = ["HEADER_REUSE", "SnowflakeStatementsTrigger"]

#: The longest a statement's built headers are reused: an OAuth access token may live shorter than
#: the key-pair JWT (whose renewal time, ``token_renewal_delta``, bounds the reuse too).
HEADER_REUSE = timedelta(minutes=5)


class SnowflakeStatementsTrigger(SnowflakeSqlApiTrigger):
    """Upstream's ``SnowflakeSqlApiTrigger`` whose status reads never block the event loop (see the module docstring)."""

    def serialize(self) -> tuple[str, dict[str, Any]]:
        _, kwargs = super().serialize()
        return f"{type(self).__module__}.{type(self).__qualname__}", kwargs

    async def get_query_status(self, query_id: str, hook: Any = None) -> dict[str, Any]:
        """One statement's status: the GET on the loop, with headers built off it (see the module docstring)."""
        if hook is None:
            from resumable_jobs.providers.snowflake.imports import sql_api_hook_class

            hook = sql_api_hook_class()(self.snowflake_conn_id, self.token_life_time, self.token_renewal_delta)
        header, params, url = await self._request_for(query_id, hook)
        status_code, answer = await hook._make_api_call_with_retries_async("GET", url, header, params)
        return hook._process_response(status_code, answer)

    async def _request_for(self, query_id: str, hook: Any) -> tuple[dict[str, Any], dict[str, Any], str]:
        """``(headers, params, url)`` of one statement's status read, rebuilt in a thread when stale."""
        built = self.__dict__.setdefault("_built_requests", {})
        cached = built.get(query_id)
        if cached is not None and time.monotonic() - cached[0] < self._reuse_seconds():
            return cached[1]
        request = await asyncio.to_thread(hook.get_request_url_header_params, query_id)
        built[query_id] = (time.monotonic(), request)
        return request

    def _reuse_seconds(self) -> float:
        renewal = self.token_renewal_delta
        renewal_seconds = renewal.total_seconds() if isinstance(renewal, timedelta) else float(renewal)
        return max(0.0, min(HEADER_REUSE.total_seconds(), renewal_seconds))
