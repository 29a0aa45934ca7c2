"""A stand-in YARN ResourceManager: its REST web services on 127.0.0.1, with the replies' real shapes.

What it is for: tests (and anyone trying the operator without Hadoop) need the part of a
ResourceManager that ``SparkSubmitOperator`` talks to - ``/ws/v1/cluster/apps`` (by tag),
``/ws/v1/cluster/apps/<id>``, ``PUT .../state`` and ``/ws/v1/cluster/info`` - and a way to put an
application into it, because ``spark-submit --master yarn`` reaches a real RM over Hadoop RPC,
which no stand-in here speaks. :mod:`resumable_jobs.local.spark_submit_standin` plays
``spark-submit`` and registers the application here.

How it works: :class:`LocalResourceManager` serves plain HTTP from a thread. Every application
reports ACCEPTED on its first read, RUNNING for ``running_polls`` reads, then ``outcome``
(default FINISHED/SUCCEEDED); :meth:`~LocalResourceManager.finish` changes that. Replies follow
the RM's JSON: ``{"app": {...}}`` with ``id``, ``state``, ``finalStatus``, ``diagnostics``,
``applicationTags`` (comma-separated, lower-cased as YARN stores them), ``trackingUrl``,
``startedTime``...; ``{"apps": null}`` for an empty list; a 404 ``RemoteException`` with
``NotFoundException`` for an unknown id. ``standby=True`` answers every web service but
``/ws/v1/cluster/info`` with HTTP 307 to ``active_url``, as a standby RM does. Applications enter
through ``POST /_standin/applications`` - a path that exists only here.

What it does not do: no scheduling, no containers, no security, no XML.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from resumable_jobs.local.http_standin import serve_http

__all__ = ["LocalResourceManager", "REGISTER_PATH", "StandinApplication"]

#: Where the stand-in spark-submit registers an application (not part of the RM's API).
REGISTER_PATH = "/_standin/applications"
CLUSTER_TIMESTAMP = 1767225600000
_ACTIVE = ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING")


@dataclass
class StandinApplication:
    app_id: str
    name: str
    queue: str
    user: str
    tags: list[str]
    #: (state, finalStatus, diagnostics) reported by successive reads; the last one repeats
    script: list[tuple[str, str, str]]
    started_time: int
    reads: int = 0

    @property
    def current(self) -> tuple[str, str, str]:
        return self.script[min(self.reads, len(self.script) - 1)]


@dataclass
class LocalResourceManager:
    """See the module docstring. ``url`` is set while :meth:`serve` runs."""

    running_polls: int = 1
    outcome: tuple[str, str, str] = ("FINISHED", "SUCCEEDED", "")
    standby: bool = False
    active_url: str | None = None
    apps: dict[str, StandinApplication] = field(default_factory=dict)
    submissions: list[dict[str, Any]] = field(default_factory=list)
    kills: list[str] = field(default_factory=list)
    url: str = ""
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ----------------------------------------------------------------- what tests change
    def register(self, *, name: str = "app", queue: str = "default", user: str = "airflow", tags: Any = ()) -> str:
        """Add an application as a submission would; return its id."""
        with self._lock:
            seq = next(self._ids)
            app_id = f"application_{CLUSTER_TIMESTAMP}_{seq:04d}"
            tag_list = [t.strip().lower() for t in (tags.split(",") if isinstance(tags, str) else tags) if t.strip()]
            self.submissions.append({"id": app_id, "name": name, "queue": queue, "user": user, "tags": tag_list})
            script = [("ACCEPTED", "UNDEFINED", "")] + [("RUNNING", "UNDEFINED", "")] * self.running_polls
            self.apps[app_id] = StandinApplication(
                app_id, name, queue, user, tag_list, [*script, self.outcome], CLUSTER_TIMESTAMP + seq * 1000
            )
            return app_id

    def finish(self, app_id: str, state: str = "FINISHED", final_status: str = "SUCCEEDED", diagnostics: str = "") -> None:
        """Make ``app_id`` report this outcome from now on."""
        with self._lock:
            app = self.apps[app_id]
            app.script, app.reads = [(state, final_status, diagnostics)], 0

    def forget_all(self) -> None:
        """What an RM restarted without recovery knows: nothing."""
        with self._lock:
            self.apps.clear()

    # ----------------------------------------------------------------- the web services
    def dispatch(self, method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        parts = urlsplit(target)
        path, query = parts.path.rstrip("/"), parse_qs(parts.query)
        if method == "POST" and path == REGISTER_PATH:
            body = body or {}
            app_id = self.register(
                name=body.get("name", "app"),
                queue=body.get("queue") or "default",
                user=body.get("user") or "airflow",
                tags=body.get("tags") or (),
            )
            return 200, {"id": app_id}, {}
        if path == "/ws/v1/cluster/info":
            state = "STANDBY" if self.standby else "ACTIVE"
            return 200, {"clusterInfo": {"id": CLUSTER_TIMESTAMP, "haState": state, "state": "STARTED"}}, {}
        if self.standby:
            location = f"{self.active_url}{target}" if self.active_url else ""
            headers = {"Location": location} if location else {}
            return 307, f"This is standby RM. The redirect url is: {target}", headers
        if method == "GET" and path == "/ws/v1/cluster/apps":
            return 200, self._list(query), {}
        match = re.fullmatch(r"/ws/v1/cluster/apps/([^/]+)(/state)?", path)
        if not match:
            return 404, _remote("NotFoundException", f"java.lang.Exception: no web service at {path}"), {}
        app_id, state_path = match.group(1), match.group(2)
        if method == "GET" and not state_path:
            return self._read(app_id)
        if method == "PUT" and state_path:
            return self._kill(app_id, body or {})
        return 405, _remote("WebApplicationException", f"{method} not allowed on {path}"), {}

    def _list(self, query: dict[str, list[str]]) -> dict[str, Any]:
        wanted = {t.strip().lower() for v in query.get("applicationTags", []) for t in v.split(",") if t.strip()}
        with self._lock:
            apps = [a for a in self.apps.values() if not wanted or wanted & set(a.tags)]
            reports = [self._report(a) for a in apps]
        return {"apps": {"app": reports} if reports else None}

    def _read(self, app_id: str) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            app = self.apps.get(app_id)
            if app is None:
                return 404, _remote("NotFoundException", f"java.lang.Exception: app with id: {app_id} not found"), {}
            report = self._report(app)
            app.reads += 1
        return 200, {"app": report}, {}

    def _kill(self, app_id: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if body.get("state") != "KILLED":
            return 400, _remote("BadRequestException", "Only 'KILLED' is allowed as a target state."), {}
        with self._lock:
            app = self.apps.get(app_id)
            if app is None:
                return 404, _remote("NotFoundException", f"java.lang.Exception: app with id: {app_id} not found"), {}
            state = app.current[0]
            if state not in _ACTIVE:
                return 200, {"state": state}, {}
            self.kills.append(app_id)
            app.script, app.reads = [("KILLED", "KILLED", "Application killed by user.")], 0
        return 202, {"state": state}, {"Location": f"{self.url}/ws/v1/cluster/apps/{app_id}/state"}

    def _report(self, app: StandinApplication) -> dict[str, Any]:
        state, final_status, diagnostics = app.current
        done = state not in _ACTIVE
        return {
            "id": app.app_id,
            "user": app.user,
            "name": app.name,
            "queue": app.queue,
            "state": state,
            "finalStatus": final_status,
            "progress": 100.0 if done else 10.0,
            "trackingUI": "History" if done else "ApplicationMaster",
            "trackingUrl": f"{self.url}/proxy/{app.app_id}/",
            "diagnostics": diagnostics,
            "clusterId": CLUSTER_TIMESTAMP,
            "applicationType": "SPARK",
            "applicationTags": ",".join(app.tags),
            "priority": 0,
            "startedTime": app.started_time,
            "launchTime": app.started_time + 100,
            "finishedTime": app.started_time + 60000 if done else 0,
            "elapsedTime": 60000,
            "amHostHttpAddress": "127.0.0.1:8042",
            "unmanagedApplication": False,
        }

    # ----------------------------------------------------------------- serving
    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve HTTP on a free port of 127.0.0.1; yield (and set ``url`` to) its base URL."""
        with serve_http(self.dispatch) as url:
            self.url = url
            yield url


def _remote(exception: str, message: str) -> dict[str, Any]:
    return {
        "RemoteException": {
            "exception": exception,
            "message": message,
            "javaClassName": f"org.apache.hadoop.yarn.webapp.{exception}",
        }
    }
