"""The two triggers of ``benchmarks/triggerer_capacity.py`` that are not a product's: the floor and the probe.

What it is for: the capacity benchmark runs these in a real triggerer next to the triggers it
measures. :class:`FloorTrigger` is the least a status poll can cost in Airflow's event loop - one
``aiohttp`` GET per interval on one session shared by every floor trigger of the loop, no
connection lookup, no parsing beyond a JSON field - so a product trigger is compared with it.
:class:`LoopLagProbe` measures how late the event loop wakes a sleeping coroutine (its lag is what
every other trigger of the loop suffers too) and reports the worst lag of each second to the
benchmark's stand-in server.

How it works: both are ordinary triggers, loaded by the triggerer from their classpath (the
benchmark puts the repository root on ``PYTHONPATH``). The floor fires ``{"status": "success"}``
once the stand-in answers ``DONE``; the probe fires once the stand-in tells it to stop.

What it does not do: nothing here is part of the package, and neither trigger is useful outside
the benchmark.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

__all__ = ["FloorTrigger", "LoopLagProbe"]

_SESSIONS: dict[int, list[Any]] = {}  # id of the loop -> [session, users]


@contextlib.asynccontextmanager
async def _session() -> AsyncIterator[Any]:
    """One ``aiohttp`` session per event loop (a session belongs to its loop), closed with its last user."""
    import aiohttp

    key = id(asyncio.get_running_loop())
    entry = _SESSIONS.get(key)
    if entry is None:
        entry = _SESSIONS[key] = [aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)), 0]
    entry[1] += 1
    try:
        yield entry[0]
    finally:
        entry[1] -= 1
        if entry[1] == 0:
            del _SESSIONS[key]
            await entry[0].close()


class FloorTrigger(BaseTrigger):
    """A bare ``aiohttp`` polling loop: GET ``<url>/floor/<job>`` every ``poll_interval`` until ``DONE``."""

    def __init__(self, job_id: str, url: str, poll_interval: float) -> None:
        super().__init__()
        self.job_id, self.url, self.poll_interval = job_id, url, float(poll_interval)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {"job_id": self.job_id, "url": self.url, "poll_interval": self.poll_interval},
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        async with _session() as session:
            while True:
                try:
                    async with session.get(f"{self.url}/floor/{self.job_id}") as response:
                        state = (await response.json()).get("state")
                except Exception as error:  # noqa: BLE001 - the floor keeps polling, as a product trigger would
                    state = f"error: {error}"
                if state == "DONE":
                    yield TriggerEvent({"status": "success", "external_id": self.job_id})
                    return
                await asyncio.sleep(self.poll_interval)


class LoopLagProbe(BaseTrigger):
    """Sleep ``tick`` seconds over and over; POST the worst oversleep of each second to ``<url>/_bench/probe``."""

    def __init__(self, url: str, tick: float = 0.05) -> None:
        super().__init__()
        self.url, self.tick = url, float(tick)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (f"{type(self).__module__}.{type(self).__qualname__}", {"url": self.url, "tick": self.tick})

    async def run(self) -> AsyncIterator[TriggerEvent]:
        async with _session() as session:
            async for event in self._watch(session):
                yield event
                return

    async def _watch(self, session: Any) -> AsyncIterator[TriggerEvent]:
        worst, reported = 0.0, time.monotonic()
        while True:
            started = time.monotonic()
            await asyncio.sleep(self.tick)
            now = time.monotonic()
            worst = max(worst, now - started - self.tick)
            if now - reported < 1.0:
                continue
            try:
                async with session.post(f"{self.url}/_bench/probe", json={"t": time.time(), "lag": worst}) as reply:
                    stop = (await reply.json()).get("stop")
            except Exception:  # noqa: BLE001 - a lost report is a gap in the figures, not a reason to stop
                stop = False
            worst, reported = 0.0, time.monotonic()
            if stop:
                yield TriggerEvent({"status": "success", "external_id": "probe"})
                return
