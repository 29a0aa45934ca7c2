"""The in-process transport for the fake Databricks workspace: an aiohttp server for the trigger.

The workspace model lives in :mod:`resumable_jobs.local.standins.databricks` (the production crash
suite serves the same model from a process of its own). Unit tests reach it through requests-mock
for the synchronous hook and through this server for the asynchronous calls of the real
``DatabricksExecutionTrigger``, which requests-mock cannot intercept.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

from resumable_jobs.local.standins.databricks import DatabricksWorkspace


class AsyncApiServer:
    """An aiohttp server on 127.0.0.1 (own thread) answering for whichever workspace is current."""

    def __init__(self) -> None:
        self.workspace: DatabricksWorkspace | None = None
        self._loop = asyncio.new_event_loop()
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self._runner: Any = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="fake-databricks-api", daemon=True)

    async def _answer(self, request: Any) -> Any:
        from aiohttp import web

        body: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            body.update(await request.json())
        if self.workspace is None:
            return web.json_response({"message": "no workspace"}, status=503)
        status_code, answer = self.workspace.handle(request.method, request.path, body)
        return web.json_response(answer, status=status_code)

    def start(self) -> AsyncApiServer:
        from aiohttp import web

        app = web.Application()
        app.router.add_route("*", "/api/2.2/jobs/{tail:.*}", self._answer)
        self._runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(self._runner.setup())
        self._loop.run_until_complete(web.SockSite(self._runner, self._sock).start())
        self._thread.start()
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    def connection_uri_json(self) -> str:
        return json.dumps(
            {
                "conn_type": "databricks",
                "host": "127.0.0.1",
                "port": self.port,
                "schema": "http",
                "password": "dapi-fake-token-0123456789",
            }
        )
