"""The triggerer side of ``SnowflakeSqlApiOperator(deferrable=True)``: upstream's trigger, off the loop.

What it is for: waiting for the persisted statement handles in the triggerer without ever blocking
its event loop, which one triggerer shares with up to a thousand other triggers.

How it works: upstream's ``SnowflakeSqlApiTrigger`` already takes the handles as a parameter,
polls them in order, fires ``{"status": "success", "statement_query_ids": [...]}`` or ``{"status":
"error", "message": ...}``, and cancels them in ``on_kill`` when a user stops the deferred task;
all of that is kept. What is not: to read one status, upstream's hook first builds the request's
headers synchronously inside ``run()`` - the connection lookup and, with an OAuth connection, a
``requests`` call that refreshes the access token (with ``azure_conn_id``, on every poll). This
subclass builds the URL and headers in a worker thread (``asyncio.to_thread``) and only the
``aiohttp`` GET runs on the loop. It serialises under its own class path with upstream's kwargs.

What it does not do: submit or cancel statements on its own (``on_kill`` is upstream's, already run
in a thread), or change upstream's event shapes.
"""

from __future__ import annotations

import asyncio
from typing import Any

from airflow.providers.snowflake.triggers.snowflake_trigger import SnowflakeSqlApiTrigger

__all__ = ["SnowflakeStatementsTrigger"]


class SnowflakeStatementsTrigger(SnowflakeSqlApiTrigger):
    """Upstream's ``SnowflakeSqlApiTrigger`` whose status reads never block the event loop (see the module docstring)."""

    def serialize(self) -> tuple[str, dict[str, Any]]:
        _, kwargs = super().serialize()
        return f"{type(self).__module__}.{type(self).__qualname__}", kwargs

    async def get_query_status(self, query_id: str, hook: Any = None) -> dict[str, Any]:
        """One statement's status: headers built in a thread, the GET on the loop."""
        if hook is None:
            from resumable_jobs.providers.snowflake.imports import sql_api_hook_class

            hook = sql_api_hook_class()(self.snowflake_conn_id, self.token_life_time, self.token_renewal_delta)
        header, params, url = await asyncio.to_thread(hook.get_request_url_header_params, query_id)
        status_code, answer = await hook._make_api_call_with_retries_async("GET", url, header, params)
        return hook._process_response(status_code, answer)
