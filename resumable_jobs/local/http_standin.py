"""Serving a stand-in's ``dispatch`` over real HTTP on 127.0.0.1, for clients that cannot be mocked.

What it is for: the stand-ins of the ResourceManager and the Kubernetes API answer the operator's
``requests`` calls, the ``kubernetes`` client's urllib3 calls, the triggers' threads and the JVM of
a real ``spark-submit`` - none of which an in-process mock sees. Each stand-in only decides what
to answer (its ``dispatch``); this module owns the socket.

How it works: :func:`serve_http` starts a ``ThreadingHTTPServer`` on a free port in a daemon
thread (HTTP/1.1, so clients that keep connections alive - fabric8's - work), reads a JSON body
if there is one, calls ``dispatch(method, target, body)`` and writes its ``(status, reply,
headers)`` back: a ``str`` reply as plain text (what a standby ResourceManager sends), anything
else as JSON. On exit the server is shut down and its thread joined.

What it does not do: TLS, chunked request bodies, or anything a stand-in does not dispatch.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Dispatch", "serve_http"]

#: ``dispatch(method, target, json body or None) -> (status, reply, headers)``
Dispatch = Callable[[str, str, Any], "tuple[int, Any, dict[str, str]]"]
_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@contextmanager
def serve_http(dispatch: Dispatch) -> Iterator[str]:
    """Serve ``dispatch`` on a free port of 127.0.0.1; yield the base URL (``http://127.0.0.1:<port>``)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            code, reply, headers = dispatch(self.command, self.path, body)
            text = isinstance(reply, str)
            data = (reply if text else json.dumps(reply)).encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain; charset=utf-8" if text else "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    for method in _METHODS:
        setattr(Handler, f"do_{method}", Handler._answer)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True  # kept-alive connections must not hold up the shutdown
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
