"""The trigger's ResourceManager client: the synchronous client's calls and rules, on ``aiohttp``.

What it is for: a YARN trigger reads its application's report inside the triggerer's event loop,
next to up to a thousand other triggers, so the read must never block the loop - and must mean
exactly what the worker's read means.

How it works: :class:`AsyncResourceManagerClient` asks each ResourceManager in turn (HA) with the
shared session of a :class:`~resumable_jobs.providers.shared_clients.Lease`, and hands every
answer to the synchronous client's
:func:`~resumable_jobs.providers.spark.yarn.rm_client.read_answer`, so a standby's redirect, a
plain-text page, the RM's ``NotFoundException`` and a refusal are read the same way on both
sides. With ``kerberos=True`` an RM that answers 401 ``WWW-Authenticate: Negotiate`` is asked
again with a SPNEGO token (:func:`~resumable_jobs.providers.spark.credentials.negotiate_header`,
made in a thread: it may ask the KDC); the RM's ``hadoop.auth`` cookie, kept by the shared
session, spares the following calls a token.

What it does not do: only reads (the trigger neither lists nor kills); no custom ``yarn_rm_auth``
(it cannot be serialised to the triggerer); it does not check the RM's mutual-authentication token.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from resumable_jobs.providers.spark.yarn.rm_client import (
    APPS_PATH,
    RmReply,
    application_report,
    no_active_rm,
    read_answer,
)

__all__ = ["AsyncResourceManagerClient"]


class AsyncResourceManagerClient:
    """Read YARN application reports through one or more ResourceManagers (HA), without blocking."""

    def __init__(self, urls: Sequence[str], lease: Any, *, kerberos: bool = False, timeout: float = 30.0) -> None:
        self.urls = [str(u).rstrip("/") for u in urls]
        self.lease = lease
        self.kerberos = kerberos
        self.timeout = timeout

    async def application(self, app_id: str) -> dict[str, Any]:
        """The ``app`` report of ``app_id``; ``JobNotFoundError`` when the RM does not know it."""
        return application_report(await self._call("GET", f"{APPS_PATH}/{app_id}", not_found_id=app_id))

    async def _call(self, method: str, path: str, *, not_found_id: str | None = None) -> dict[str, Any]:
        import aiohttp

        candidates = list(self.urls)
        failures: list[str] = []
        for base in candidates:
            try:
                reply = await self._request(base, method, path)
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as error:
                failures.append(f"{base}: {type(error).__name__}: {error}")
                continue
            answer = read_answer(reply, candidates, failures, not_found_id=not_found_id)
            if answer is not None:
                return answer
        raise no_active_rm(method, path, failures)

    async def _request(self, base: str, method: str, path: str) -> RmReply:
        import aiohttp

        url = f"{base}{path}"
        headers = {"Accept": "application/json"}
        timeout = aiohttp.ClientTimeout(total=self.timeout)
        async with self.lease.use() as session:
            for attempt in (1, 2):
                async with session.request(
                    method, url, headers=headers, allow_redirects=False, timeout=timeout
                ) as response:
                    text = await response.text(errors="replace")
                    challenge = response.headers.get("WWW-Authenticate", "")
                    if response.status == 401 and self.kerberos and attempt == 1 and "negotiate" in challenge.lower():
                        from resumable_jobs.providers.spark.credentials import negotiate_header

                        headers["Authorization"] = await asyncio.to_thread(negotiate_header, url)
                        continue
                    return RmReply(
                        base, method, path, response.status, response.headers.get("Location"), _object(text), text
                    )
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns on its second pass


def _object(text: str) -> dict[str, Any] | None:
    try:
        reply = json.loads(text)
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None
