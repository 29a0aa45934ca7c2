"""Loopback networking helpers shared by every local stand-in: ports, JSON over HTTP, waiting.

What it is for: each stand-in (Spark, moto_server, PostgreSQL, Redis, the Airflow daemons, the
Databricks and BigQuery HTTP stand-ins) needs a free 127.0.0.1 port, a way to ask a JSON question
of a local server, and a way to wait until something observable became true. Keeping these in one
place keeps every stand-in on the loopback interface and every wait bounded.

How it works: :func:`free_port` asks the kernel for an unused port (a race with another process
is possible; callers that start a server on it retry on a failed start). :func:`http_json` is
``urllib`` with a timeout and JSON in both directions. :func:`wait_until` polls a predicate until
it returns something truthy, raising :class:`TimeoutError` with what was awaited - tests and
harnesses wait on observable state (an HTTP answer, a log line), never a fixed sleep.

What it does not do: it never talks to anything but 127.0.0.1 addresses given by its callers.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["HttpError", "free_port", "http_json", "listening", "wait_until"]

T = TypeVar("T")


class HttpError(RuntimeError):
    """A local server answered with an HTTP error status (the body is kept for the message)."""

    def __init__(self, status: int, url: str, body: str) -> None:
        super().__init__(f"HTTP {status} from {url}: {body[:2000]}")
        self.status = status
        self.body = body


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int, host: str = "127.0.0.1") -> bool:
    """True when something accepts TCP connections on ``host:port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        return sock.connect_ex((host, port)) == 0


def http_json(
    method: str,
    url: str,
    body: Any = None,
    *,
    timeout: float = 30.0,
    headers: dict[str, str] | None = None,
    context: Any = None,
) -> Any:
    """Send ``body`` as JSON (when given), return the decoded JSON answer (None when empty).

    ``context``: an ``ssl.SSLContext`` for an https stand-in whose certificate is not a public one.

    Raises :class:`HttpError` for an HTTP error status and ``OSError`` when nothing answers.
    """
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        raise HttpError(error.code, url, error.read().decode(errors="replace")) from None
    return json.loads(raw) if raw.strip() else None


def wait_until(
    predicate: Callable[[], T],
    *,
    timeout: float,
    what: str,
    interval: float = 0.5,
    check: Callable[[], None] | None = None,
) -> T:
    """Call ``predicate`` until it returns a truthy value and return that value.

    ``check`` runs before every attempt and may raise to stop waiting early (a process that
    exited, a task that already failed). ``OSError`` and ``ValueError`` from the predicate count
    as "not yet": a server that is still starting refuses connections or answers half a page.
    """
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while True:
        if check is not None:
            check()
        try:
            value = predicate()
        except (OSError, ValueError) as error:
            last_error, value = error, None
        if value:
            return value
        if time.monotonic() > deadline:
            detail = f" (last error: {last_error})" if last_error else ""
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}{detail}")
        time.sleep(interval)
