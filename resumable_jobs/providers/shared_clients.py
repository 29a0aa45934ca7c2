"""Network clients shared by every trigger of one event loop: one per loop and connection, not one per trigger.

What it is for: a triggerer runs up to a thousand triggers in one event loop. A client per trigger
(an ``aiohttp`` session, a Kubernetes ``ApiClient``) costs memory, sockets, TLS handshakes and a
connection lookup each; one client per connection, shared by the triggers that use it, costs
that once.

How it works: :func:`shared_client` is an async context manager a trigger holds for as long as it
runs; it yields a :class:`Lease`. ``async with lease.use() as client`` lends the current client for
one call. Clients live in a pool keyed by the running event loop *and* the caller's key (a session
belongs to the loop it was made in, so a second loop - a test's ``asyncio.run`` - gets its own).
The first call opens the client with ``opener()`` (any async context manager: ``aiohttp.ClientSession(...)``,
a hook's ``get_conn()``); with ``max_age`` a client older than that is retired - new calls get a
fresh one (a refreshed short-lived token), and the old one is closed when its last call returns.
When the last lease of a pool ends, its clients are closed and the pool is dropped, so nothing is
left open on a loop that goes away.

:func:`import_off_loop` imports a trigger's heavy client libraries (``kubernetes_asyncio``, a
provider's hook module) in a thread the first time, so that no trigger's first poll stalls the
loop for the import; later calls find them in ``sys.modules`` and return at once. A thread alone
is not enough: importing ``kubernetes_asyncio`` and the Kubernetes provider allocates a few hundred
thousand long-lived objects, and the garbage collector's full collections that those allocations
set off stop every thread, the loop's included (measured: 0.11-0.25 s stalls on the first poll,
0.01-0.03 s with the modules already imported or the collector off). So the collector is paused
while the thread imports, and what exists once it is done is frozen (``gc.freeze()``, as Airflow's
executors and DAG processor do before forking): later full collections no longer walk the
imported modules. The cost: cyclic garbage that exists at that instant is never collected - once
per process and set of modules. For the same reason the first :func:`shared_client` of a process
freezes what the process holds at that point (Airflow's modules, the triggerer's start-up objects),
even when nothing is left to import: a triggerer's full collections walked 320,000-360,000 objects,
0.15-0.18 s each with a thousand triggers, most of them objects that live as long as the process.

What it does not do: it does not retry, time out or authenticate (the opener and the callers do),
and it shares nothing between processes or loops.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Lease", "freeze_start_up_objects", "import_off_loop", "shared_client", "shared_http_session"]


@dataclass(eq=False)
class _Client:
    value: Any
    stack: contextlib.AsyncExitStack
    opened: float
    in_flight: int = 0
    retired: bool = False


@dataclass(eq=False)
class _Pool:
    opener: Callable[[], Any]
    max_age: float | None
    leases: int = 0
    current: _Client | None = None
    retiring: list[_Client] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


#: (id of the event loop, key) -> pool. The loop itself is kept in the pool's key tuple's owner
#: below, so an id reused by a later loop cannot pick up a dead loop's clients.
_POOLS: dict[tuple[int, Hashable], tuple[asyncio.AbstractEventLoop, _Pool]] = {}


class Lease:
    """A trigger's hold on a pool: lends the pool's current client for one call at a time."""

    def __init__(self, pool: _Pool) -> None:
        self._pool = pool

    @contextlib.asynccontextmanager
    async def use(self) -> AsyncIterator[Any]:
        client = await self._current()
        client.in_flight += 1
        try:
            yield client.value
        finally:
            client.in_flight -= 1
            if client.retired and client.in_flight == 0 and client in self._pool.retiring:
                self._pool.retiring.remove(client)
                await client.stack.aclose()

    async def _current(self) -> _Client:
        pool = self._pool
        client = pool.current
        if client is not None and pool.max_age is not None and time.monotonic() - client.opened > pool.max_age:
            client.retired = True
            pool.current = None
            if client.in_flight:
                pool.retiring.append(client)
            else:
                await client.stack.aclose()
        if pool.current is None:
            async with pool.lock:
                if pool.current is None:  # another call may have opened it while this one waited
                    stack = contextlib.AsyncExitStack()
                    value = await stack.enter_async_context(pool.opener())
                    pool.current = _Client(value, stack, time.monotonic())
        return pool.current


@contextlib.asynccontextmanager
async def shared_client(
    key: Hashable, opener: Callable[[], Any], *, max_age: float | None = None
) -> AsyncIterator[Lease]:
    """Hold the pool of ``key`` on the running loop for the body of the ``async with`` (see the module docstring).

    ``opener`` is called (at most once per client) only when a call needs a client; every lease of
    one key must pass an equivalent opener - the first one wins.
    """
    freeze_start_up_objects()
    loop = asyncio.get_running_loop()
    slot = (id(loop), key)
    entry = _POOLS.get(slot)
    if entry is None or entry[0] is not loop:
        entry = _POOLS[slot] = (loop, _Pool(opener, max_age))
    pool = entry[1]
    pool.leases += 1
    try:
        yield Lease(pool)
    finally:
        pool.leases -= 1
        if pool.leases == 0:
            if _POOLS.get(slot, (None, None))[1] is pool:
                del _POOLS[slot]
            clients = [*pool.retiring, *([pool.current] if pool.current else [])]
            pool.current, pool.retiring = None, []
            for client in clients:
                with contextlib.suppress(Exception):
                    await client.stack.aclose()


def shared_http_session(key: Hashable) -> contextlib.AbstractAsyncContextManager[Lease]:
    """:func:`shared_client` of an ``aiohttp.ClientSession`` for ``key`` (e.g. a connection's URLs).

    No cap on concurrent connections (a thousand triggers may wait on one slow server at once,
    as they would with a session each) and a cookie jar that keeps cookies of IP-addressed hosts
    too (a Kerberized ResourceManager's ``hadoop.auth`` cookie spares the next calls a ticket).
    Per-call timeouts are the caller's.
    """
    return shared_client(("aiohttp", key), _open_http_session)


def _open_http_session() -> Any:
    import aiohttp

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), cookie_jar=aiohttp.CookieJar(unsafe=True))


async def import_off_loop(*modules: str) -> None:
    """Import ``modules`` in a thread, the collector paused, unless they are imported already (see the module docstring)."""
    missing = [name for name in modules if name not in sys.modules]
    if missing:
        await asyncio.to_thread(_import_all, missing)


_start_up_frozen = threading.Event()


def freeze_start_up_objects() -> None:
    """Once per process: move every object the collector tracks now into its permanent generation (see the module docstring).

    ``gc.freeze()`` only relinks the collector's lists, so it costs microseconds whatever the heap.
    """
    if not _start_up_frozen.is_set():
        _start_up_frozen.set()
        gc.freeze()


#: Imports running with the collector paused (two trigger families may import at once), and
#: whether the collector was on before the first of them paused it.
_pause = {"imports": 0, "was_enabled": True}
_PAUSE_LOCK = threading.Lock()


def _import_all(modules: list[str]) -> None:
    with _PAUSE_LOCK:
        if _pause["imports"] == 0:
            _pause["was_enabled"] = gc.isenabled()
            gc.disable()
        _pause["imports"] += 1
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        with _PAUSE_LOCK:
            _pause["imports"] -= 1
            if _pause["imports"] == 0:
                gc.freeze()
                if _pause["was_enabled"]:
                    gc.enable()
