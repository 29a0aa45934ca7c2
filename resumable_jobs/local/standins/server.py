"""Serve one stand-in model over real HTTP on 127.0.0.1, in a process of its own.

What it is for: in a real Airflow deployment the task process, its retry on another worker and
the triggerer are different processes; they must all see the same Databricks runs or BigQuery
jobs. A model served by one separate process is that shared service.

How it works: :func:`serve` binds a ``ThreadingHTTPServer`` to a free 127.0.0.1 port (the kernel
picks it, so there is no race), writes the port to ``port_file`` (atomically: the starter waits
for the file), and answers two kinds of paths:

* the service's own API, passed to the model's ``handle(method, path, body)`` (query parameters
  of a GET join the body, as the Databricks API reads them);
  a model with ``handle_request(method, path, query, headers, body)`` gets the query parameters
  and headers apart (the Snowflake SQL API reads ``requestId``/``retry`` and checks a JWT);
* ``/_standin/...``, the control surface the crash suite uses: ``GET /_standin/jobs`` (every job
  with its state), ``POST /_standin/release`` (``{"id": ...}``: let a held job finish),
  ``GET /_standin/requests`` (every API request with its time), ``GET /_standin/health``, and
  whatever the model's own ``control(method, path, body)`` answers (Snowflake: registering a
  user's public key).

SIGTERM and SIGINT stop the server cleanly. A model with an ``authorize(headers)`` method checks
credentials before its API answers (dbt Cloud's token). Kinds in :data:`TLS_KINDS` are served over
TLS with a certificate the starter generated (:mod:`resumable_jobs.local.tls`).
:func:`serve_in_thread` serves a model from a thread of the calling process, for unit tests.

What it does not do: client certificates, or any path the model does not know (404).
"""

from __future__ import annotations

import json
import os
import signal
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["KINDS", "TLS_KINDS", "build_model", "serve", "serve_in_thread"]

KINDS = ("databricks", "bigquery", "snowflake", "dbt_cloud")
#: Kinds whose clients only speak https (the dbt Cloud hook builds ``https://`` URLs): served over TLS.
TLS_KINDS = ("dbt_cloud",)


def build_model(kind: str, *, hold_seconds: float | None) -> Any:
    """A fresh model of ``kind`` whose jobs are held RUNNING (``hold_seconds``) or counted."""
    if kind == "databricks":
        from resumable_jobs.local.standins.databricks import DatabricksWorkspace

        return DatabricksWorkspace(hold_seconds=hold_seconds)
    if kind == "bigquery":
        from resumable_jobs.local.standins.bigquery import BigQueryJobs

        return BigQueryJobs(hold_seconds=hold_seconds)
    if kind == "snowflake":
        from resumable_jobs.local.standins.snowflake import SnowflakeSqlApi

        return SnowflakeSqlApi(hold_seconds=hold_seconds)
    if kind == "dbt_cloud":
        from resumable_jobs.local.standins.dbt_cloud import DbtCloudAccount

        return DbtCloudAccount(hold_seconds=hold_seconds)
    raise ValueError(f"unknown stand-in {kind!r}; one of {KINDS}")


def _handler_for(model: Any, kind: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            if not length:
                return {}
            raw = self.rfile.read(length)
            if "json" in (self.headers.get("Content-Type") or "json"):
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = None
                if isinstance(parsed, dict):
                    return parsed
            return {key: values[-1] for key, values in parse_qs(raw.decode(errors="replace")).items()}

        def _send(self, status: int, answer: Any) -> None:
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _control(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any]:
            if method == "GET" and path == "/_standin/health":
                return 200, {"kind": kind, "pid": os.getpid()}
            if method == "GET" and path == "/_standin/jobs":
                return 200, {"jobs": model.summaries()}
            if method == "GET" and path == "/_standin/requests":
                return 200, {"requests": list(model.requests)}
            if method == "POST" and path == "/_standin/release":
                return 200, {"released": model.release(body["id"])}
            answered = model.control(method, path, body) if hasattr(model, "control") else None
            if answered is not None:
                return answered
            return 404, {"message": f"no control endpoint {method} {path}"}

        def _answer(self, method: str) -> None:
            parts = urlsplit(self.path)
            body = self._body()  # always read it: a GET may carry one, and keep-alive needs it consumed
            if method == "GET":
                body.update({key: values[-1] for key, values in parse_qs(parts.query).items()})
            if parts.path.startswith("/_standin/"):
                status, answer = self._control(method, parts.path, body)
            elif hasattr(model, "handle_request"):  # a model that reads query parameters and headers
                query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
                status, answer = model.handle_request(method, parts.path, query, dict(self.headers), body)
            elif hasattr(model, "authorize") and (denied := model.authorize(self.headers)) is not None:
                status, answer = denied  # a model that checks credentials (dbt Cloud's token)
            else:
                status, answer = model.handle(method, parts.path, body)
            self._send(status, answer)

        def do_GET(self) -> None:
            self._answer("GET")

        def do_POST(self) -> None:
            self._answer("POST")

        def log_message(self, *args: Any) -> None:  # the request log is the model's
            pass

    return Handler


def serve(kind: str, *, port_file: Path, hold_seconds: float | None, tls: ssl.SSLContext | None = None) -> None:
    """Serve a fresh ``kind`` model until SIGTERM or SIGINT (over TLS when ``tls`` is given)."""
    model = build_model(kind, hold_seconds=hold_seconds)
    server = _server(model, kind, tls)
    stopping = threading.Event()

    def stop(signum: int, frame: Any) -> None:
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    partial = port_file.with_name(port_file.name + ".partial")
    partial.write_text(str(server.server_address[1]))
    partial.replace(port_file)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()


def _server(model: Any, kind: str, tls: ssl.SSLContext | None) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(model, kind))
    server.daemon_threads = True
    if tls is not None:
        # the handshake happens in the request's thread, never in the accepting one
        server.socket = tls.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    return server


@contextmanager
def serve_in_thread(model: Any, kind: str, *, tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """Serve ``model`` from a thread of this process; yield its base URL (for unit tests)."""
    server = _server(model, kind, tls)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
