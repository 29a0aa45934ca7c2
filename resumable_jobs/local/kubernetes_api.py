"""A stand-in Kubernetes API server: the pod calls of ``spark-submit`` and of the operator, on 127.0.0.1.

What it is for: the real ``spark-submit --master k8s://http://127.0.0.1:<port>`` of the installed
pyspark talks plain REST (fabric8 client) to whatever API server it is pointed at, so tests can
run the real binary against this stand-in and then follow the driver pod through the
``cncf.kubernetes`` hook, as in production - without a cluster.

How it works: :class:`LocalKubernetesApi` serves HTTP from a thread and keeps objects in memory.
It accepts what ``spark-submit`` sends - ``POST .../pods`` (the driver pod), server-side-apply
``PATCH`` of the driver service, config map and network policy - and what the operator asks -
``GET .../pods/<name>``, ``GET .../pods?labelSelector=k=v,...`` (equality selectors),
``DELETE .../pods/<name>``. Replies are Kubernetes JSON (``Pod``, ``PodList``, ``Status`` with
``reason: NotFound``). A driver pod reports ``Pending`` on its first read, ``Running`` for
``running_polls`` reads, then ends as ``outcome`` (Succeeded with the driver container's exit
code 0, or Failed with ``exit_code``); :meth:`~LocalKubernetesApi.finish` changes that, and
``sidecar=True`` keeps the pod Running after the driver container terminated (a service mesh
proxy); ``unavailable=True`` answers every read with 503, ``forbidden=True`` every call with 403. :meth:`~LocalKubernetesApi.write_kubeconfig` writes a kubeconfig that points at it.

What it does not do: no scheduling, no containers run, no watches, no authentication (any token
is accepted), no other resource kinds than those above.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from resumable_jobs.local.http_standin import serve_http

__all__ = ["LocalKubernetesApi", "StandinPod"]

DRIVER_CONTAINER = "spark-kubernetes-driver"
_CREATED = "2026-01-01T00:00:{:02d}Z"
_POD_PATH = re.compile(r"/api/v1/namespaces/([^/]+)/pods(?:/([^/]+))?")
_APPLIED_PATH = re.compile(r"/(?:api/v1|apis/[^/]+/[^/]+)/namespaces/([^/]+)/([a-z]+)(?:/([^/]+))?")


@dataclass
class StandinPod:
    body: dict[str, Any]
    #: (phase, driver exit code or None while it runs) for successive reads; the last repeats
    script: list[tuple[str, int | None]]
    reads: int = 0

    @property
    def current(self) -> tuple[str, int | None]:
        return self.script[min(self.reads, len(self.script) - 1)]


@dataclass
class LocalKubernetesApi:
    """See the module docstring. ``url`` is set while :meth:`serve` runs."""

    running_polls: int = 1
    outcome: str = "Succeeded"
    exit_code: int = 0
    sidecar: bool = False
    #: True: every read answers 503, as an overloaded or restarting API server does
    unavailable: bool = False
    #: True: every call answers 403, as for an identity without RBAC permissions on pods
    forbidden: bool = False
    pods: dict[tuple[str, str], StandinPod] = field(default_factory=dict)
    created: list[dict[str, Any]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    url: str = ""
    _seq: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ----------------------------------------------------------------- what tests change
    def finish(self, app_id: str, phase: str = "Succeeded", exit_code: int | None = 0) -> None:
        """Make the pod ``<namespace>:<name>`` report this end from now on."""
        namespace, _, name = app_id.partition(":")
        with self._lock:
            pod = self.pods[(namespace, name)]
            pod.script, pod.reads = [(phase, exit_code)], 0

    def pod_ids(self) -> list[str]:
        with self._lock:
            return [f"{ns}:{name}" for ns, name in self.pods]

    def write_kubeconfig(self, path: Path) -> Path:
        """A kubeconfig (JSON is valid YAML) whose only context points at this server."""
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "standin", "cluster": {"server": self.url}}],
            "users": [{"name": "airflow", "user": {"token": "standin-token"}}],
            "contexts": [{"name": "standin", "context": {"cluster": "standin", "user": "airflow"}}],
            "current-context": "standin",
        }
        path.write_text(json.dumps(config))
        return path

    # ----------------------------------------------------------------- the API
    def dispatch(self, method: str, target: str, body: Any) -> tuple[int, dict[str, Any]]:
        parts = urlsplit(target)
        path, query = parts.path.rstrip("/"), parse_qs(parts.query)
        with self._lock:
            self.requests.append(f"{method} {path}")
            if self.forbidden:
                return 403, _status(
                    403, "Forbidden", f'pods is forbidden: User "system:serviceaccount:airflow:worker" cannot {method} {path}'
                )
            if self.unavailable and method == "GET":
                return 503, _status(503, "ServiceUnavailable", "the stand-in API server is unavailable")
            pod_match = _POD_PATH.fullmatch(path)
            if pod_match:
                namespace, name = pod_match.group(1), pod_match.group(2)
                if method == "POST" and name is None:
                    return self._create_pod(namespace, body or {})
                if method == "GET" and name is None:
                    return 200, self._list(namespace, query.get("labelSelector", [""])[0])
                if method == "GET":
                    return self._read(namespace, name)
                if method == "DELETE":
                    return self._delete(namespace, name)
            applied = _APPLIED_PATH.fullmatch(path)
            if applied and method in ("PATCH", "POST", "PUT"):
                self.applied.append(f"{applied.group(2)}/{applied.group(3) or (body or {}).get('metadata', {}).get('name')}")
                obj = copy.deepcopy(body or {})
                obj.setdefault("metadata", {})["uid"] = f"uid-applied-{next(self._seq)}"
                return 201, obj
        return 404, _status(404, "NotFound", f"the stand-in has no {method} {path}")

    def _create_pod(self, namespace: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        meta = body.setdefault("metadata", {})
        name = meta.get("name")
        if not name:
            return 422, _status(422, "Invalid", "Pod metadata.name is required")
        if (namespace, name) in self.pods:
            return 409, _status(409, "AlreadyExists", f'pods "{name}" already exists')
        seq = next(self._seq)
        meta.update(namespace=namespace, uid=f"uid-pod-{seq}", resourceVersion=str(seq))
        meta["creationTimestamp"] = _CREATED.format(seq % 60)
        self.created.append(copy.deepcopy(body))
        script: list[tuple[str, int | None]] = [("Pending", None)] + [("Running", None)] * self.running_polls
        script.append((self.outcome, self.exit_code))
        self.pods[(namespace, name)] = StandinPod(body, script)
        return 201, self._pod_json(self.pods[(namespace, name)])

    def _read(self, namespace: str, name: str) -> tuple[int, dict[str, Any]]:
        pod = self.pods.get((namespace, name))
        if pod is None:
            return 404, _status(404, "NotFound", f'pods "{name}" not found')
        reply = self._pod_json(pod)
        pod.reads += 1
        return 200, reply

    def _list(self, namespace: str, selector: str) -> dict[str, Any]:
        wanted = dict(part.split("=", 1) for part in unquote(selector).split(",") if "=" in part)
        items = [
            self._pod_json(pod)
            for (ns, _), pod in self.pods.items()
            if ns == namespace
            and all((pod.body["metadata"].get("labels") or {}).get(k) == v for k, v in wanted.items())
        ]
        return {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": items}

    def _delete(self, namespace: str, name: str) -> tuple[int, dict[str, Any]]:
        pod = self.pods.pop((namespace, name), None)
        if pod is None:
            return 404, _status(404, "NotFound", f'pods "{name}" not found')
        self.deleted.append(f"{namespace}:{name}")
        return 200, self._pod_json(pod)

    def _pod_json(self, pod: StandinPod) -> dict[str, Any]:
        phase, exit_code = pod.current
        body = copy.deepcopy(pod.body)
        body.setdefault("apiVersion", "v1")
        body.setdefault("kind", "Pod")
        containers = (body.get("spec") or {}).get("containers") or [{"name": DRIVER_CONTAINER, "image": "spark"}]
        image = containers[0].get("image") or "spark"
        if exit_code is None:
            state = {"running": {"startedAt": "2026-01-01T00:01:00Z"}} if phase == "Running" else {
                "waiting": {"reason": "ContainerCreating"}
            }
        else:
            state = {
                "terminated": {
                    "exitCode": exit_code,
                    "reason": "Completed" if exit_code == 0 else "Error",
                    "startedAt": "2026-01-01T00:01:00Z",
                    "finishedAt": "2026-01-01T00:02:00Z",
                    "containerID": "containerd://standin",
                }
            }
        statuses = [_container_status(DRIVER_CONTAINER, image, state)]
        if self.sidecar and exit_code is not None:
            phase = "Running"  # the sidecar keeps the pod alive after the driver ended
            statuses.append(_container_status("istio-proxy", "istio/proxyv2", {"running": {"startedAt": "2026-01-01T00:01:00Z"}}))
        body["status"] = {
            "phase": phase,
            "hostIP": "10.0.0.1",
            "podIP": "10.1.0.7",
            "startTime": "2026-01-01T00:00:30Z",
            "containerStatuses": statuses if phase != "Pending" else [],
        }
        return body

    # ----------------------------------------------------------------- serving
    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve HTTP on a free port of 127.0.0.1; yield (and set ``url`` to) its base URL."""

        def dispatch(method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
            code, reply = self.dispatch(method, target, body)
            return code, reply, {}

        with serve_http(dispatch) as url:
            self.url = url
            yield url


def _container_status(name: str, image: str, state: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "imageID": "",
        "ready": "running" in state,
        "restartCount": 0,
        "started": "running" in state,
        "state": state,
    }


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}
