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

For ``KubernetesPodOperator`` (additions that leave the driver-pod behaviour above unchanged): a
pod whose containers do not include the Spark driver container reports one status per container of
its spec - the first (the operator's ``base`` container) follows the script above, the others (the
XCom sidecar) keep running, so the pod stays ``Running`` after the first ended, as Kubernetes
reports a pod whose sidecar still runs. ``PATCH .../pods/<name>`` merges labels and annotations;
``DELETE`` honours ``preconditions.uid`` (409 Conflict for another uid, as the API server does);
``GET .../pods/<name>/log`` answers the lines written with :meth:`~LocalKubernetesApi.write_log`
(``container``, ``timestamps``, ``sinceSeconds``, ``sinceTime``, ``tailLines``; ``follow``
returns what exists and closes); ``GET .../events`` answers an empty ``EventList``. Where the
behaviour comes from: the Kubernetes API reference (pod phases, container states, delete
preconditions, log query parameters), validated by running upstream's ``PodManager``,
``KubernetesPodOperator`` building blocks and ``KubernetesPodTrigger`` against it.

What it does not do: no scheduling, no containers run, no watches, no authentication (any token
is accepted), no other resource kinds than those above. No ``exec`` (a websocket upgrade): the
XCom sidecar's file cannot be read through it, so tests stub upstream's ``extract_xcom_json`` and
keep upstream's parsing around it.
"""

from __future__ import annotations

import copy
import datetime
import itertools
import json
import re
import threading
import time
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
_LOG_PATH = re.compile(r"/api/v1/namespaces/([^/]+)/pods/([^/]+)/log")
_EVENTS_PATH = re.compile(r"/api/v1/namespaces/([^/]+)/events")
_APPLIED_PATH = re.compile(r"/(?:api/v1|apis/[^/]+/[^/]+)/namespaces/([^/]+)/([a-z]+)(?:/([^/]+))?")


@dataclass
class StandinPod:
    body: dict[str, Any]
    #: (phase, driver exit code or None while it runs) for successive reads; the last repeats
    script: list[tuple[str, int | None]]
    reads: int = 0
    #: (unix time, line) of the first container's log, in the order written
    log: list[tuple[float, str]] = field(default_factory=list)
    #: unix time of creation, and of the first read that found the first container terminated
    created_at: float = 0.0
    finished_at: float | None = None

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
    #: lines every new pod's first container logs at creation (one per line, a millisecond apart)
    log_lines: tuple[str, ...] = ()
    #: seconds a ``follow=true`` log read stays open while the pod's first container runs, as a
    #: real API server streams it (0: answer at once, what exists so far)
    follow_hold: float = 0.0
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

    def write_log(self, app_id: str, line: str, at: float | None = None) -> None:
        """Append ``line`` to the log of pod ``<namespace>:<name>`` (stamped ``at``, default now)."""
        namespace, _, name = app_id.partition(":")
        with self._lock:
            self.pods[(namespace, name)].log.append((time.time() if at is None else at, line))

    def phase_of(self, app_id: str) -> str | None:
        """The phase pod ``<namespace>:<name>`` reports now (None once deleted), without counting a read."""
        namespace, _, name = app_id.partition(":")
        with self._lock:
            pod = self.pods.get((namespace, name))
            return None if pod is None else self._pod_json(pod)["status"]["phase"]

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
        log_match = _LOG_PATH.fullmatch(path)
        if log_match and method == "GET" and self.follow_hold and query.get("follow", [""])[0].lower() == "true":
            self._hold_while_running(log_match.group(1), log_match.group(2))
        with self._lock:
            self.requests.append(f"{method} {path}")
            if self.forbidden:
                return 403, _status(
                    403, "Forbidden", f'pods is forbidden: User "system:serviceaccount:airflow:worker" cannot {method} {path}'
                )
            if self.unavailable and method == "GET":
                return 503, _status(503, "ServiceUnavailable", "the stand-in API server is unavailable")
            log_match = _LOG_PATH.fullmatch(path)
            if log_match and method == "GET":
                return self._read_log(log_match.group(1), log_match.group(2), query)
            if _EVENTS_PATH.fullmatch(path) and method == "GET":
                return 200, {"kind": "EventList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": []}
            pod_match = _POD_PATH.fullmatch(path)
            if pod_match and method == "PATCH" and (pod_match.group(1), pod_match.group(2)) in self.pods:
                return self._patch(pod_match.group(1), pod_match.group(2), body or {})
            if pod_match:
                namespace, name = pod_match.group(1), pod_match.group(2)
                if method == "POST" and name is None:
                    return self._create_pod(namespace, body or {})
                if method == "GET" and name is None:
                    return 200, self._list(namespace, query.get("labelSelector", [""])[0])
                if method == "GET":
                    return self._read(namespace, name)
                if method == "DELETE":
                    return self._delete(namespace, name, body)
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
        now = time.time()
        log = [(now + index / 1000, line) for index, line in enumerate(self.log_lines)]
        self.pods[(namespace, name)] = StandinPod(body, script, log=log, created_at=now)
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

    def _delete(self, namespace: str, name: str, body: Any = None) -> tuple[int, dict[str, Any]]:
        pod = self.pods.get((namespace, name))
        if pod is None:
            return 404, _status(404, "NotFound", f'pods "{name}" not found')
        wanted_uid = ((body or {}).get("preconditions") or {}).get("uid") if isinstance(body, dict) else None
        if wanted_uid and wanted_uid != pod.body["metadata"].get("uid"):
            message = (
                f'Precondition failed: UID in precondition: {wanted_uid}, UID in object meta: {pod.body["metadata"].get("uid")}'
            )
            return 409, _status(409, "Conflict", message)
        del self.pods[(namespace, name)]
        self.deleted.append(f"{namespace}:{name}")
        return 200, self._pod_json(pod)

    def _hold_while_running(self, namespace: str, name: str) -> None:
        """Keep a followed log read open while the first container runs (up to ``follow_hold`` seconds)."""
        deadline = time.monotonic() + self.follow_hold
        while time.monotonic() < deadline:
            with self._lock:
                pod = self.pods.get((namespace, name))
                if pod is None or pod.current[1] is not None or pod.current[0] != "Running":
                    return
            time.sleep(0.2)

    def _patch(self, namespace: str, name: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """A merge patch of the pod's labels and annotations (all the operators patch)."""
        pod = self.pods[(namespace, name)]
        meta = pod.body.setdefault("metadata", {})
        for section in ("labels", "annotations"):
            for key, value in ((body.get("metadata") or {}).get(section) or {}).items():
                if value is None:
                    (meta.get(section) or {}).pop(key, None)
                else:
                    meta.setdefault(section, {})[key] = value
        return 200, self._pod_json(pod)

    def _read_log(self, namespace: str, name: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        pod = self.pods.get((namespace, name))
        if pod is None:
            return 404, _status(404, "NotFound", f'pods "{name}" not found')
        since = None
        if query.get("sinceSeconds"):
            since = time.time() - int(query["sinceSeconds"][0])
        elif query.get("sinceTime"):
            since = datetime.datetime.fromisoformat(query["sinceTime"][0].replace("Z", "+00:00")).timestamp()
        lines = [(at, line) for at, line in pod.log if since is None or at >= since]
        if query.get("tailLines"):
            lines = lines[-int(query["tailLines"][0]) :]
        stamped = query.get("timestamps", ["false"])[0].lower() == "true"
        text = "".join(f"{_rfc3339(at)} {line}\n" if stamped else f"{line}\n" for at, line in lines)
        return 200, text

    def _pod_json(self, pod: StandinPod) -> dict[str, Any]:
        phase, exit_code = pod.current
        body = copy.deepcopy(pod.body)
        body.setdefault("apiVersion", "v1")
        body.setdefault("kind", "Pod")
        spec_containers = (body.get("spec") or {}).get("containers") or []
        if spec_containers and DRIVER_CONTAINER not in {c.get("name") for c in spec_containers}:
            if exit_code is not None and pod.finished_at is None:
                pod.finished_at = time.time()
            return self._workload_pod_json(body, spec_containers, phase, exit_code, pod)
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

    @staticmethod
    def _workload_pod_json(
        body: dict[str, Any], containers: list[dict[str, Any]], phase: str, exit_code: int | None, pod: StandinPod
    ) -> dict[str, Any]:
        """A pod of another workload than Spark: the first container follows the script, the others run."""
        started = _rfc3339(pod.created_at)
        running = {"running": {"startedAt": started}}
        if exit_code is not None:
            first_state: dict[str, Any] = {
                "terminated": {
                    "exitCode": exit_code,
                    "reason": "Completed" if exit_code == 0 else "Error",
                    "message": "" if exit_code == 0 else f"the stand-in ended the container with exit code {exit_code}",
                    "startedAt": started,
                    "finishedAt": _rfc3339(pod.finished_at or time.time()),
                    "containerID": "containerd://standin",
                }
            }
        elif phase == "Running":
            first_state = running
        else:
            first_state = {"waiting": {"reason": "ContainerCreating"}}
        statuses = [_container_status(containers[0]["name"], containers[0].get("image") or "", first_state)]
        for sidecar in containers[1:]:
            statuses.append(_container_status(sidecar["name"], sidecar.get("image") or "", running))
        if exit_code is not None and len(containers) > 1:
            phase = "Running"  # a sidecar still runs: the pod is not terminal yet
        body["status"] = {
            "phase": phase,
            "hostIP": "10.0.0.1",
            "podIP": "10.1.0.8",
            "startTime": started,
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


def _rfc3339(at: float) -> str:
    return datetime.datetime.fromtimestamp(at, tz=datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}
