"""The triggerer side of ``KubernetesPodOperator(deferrable=True)``: follow one pod, by name and uid, on a shared client.

What it is for: waiting for a pod in the triggerer with what upstream's ``KubernetesPodTrigger``
does for our operator - the startup and schedule timeouts while the pod is Pending, the task's
execution deadline, the base container's end as the pod's end (sidecars keep running),
``logging_interval`` log fetching, deleting the pod when a user stops the deferred task - but at
the cost a triggerer with a thousand deferred pods can afford: upstream's trigger builds a hook
per trigger and an API client (an ``aiohttp`` session) per read, which at N = 500 stalled the
loop for seconds.

How it works: :class:`PodTrigger` takes upstream's trigger kwargs (the operator builds it the way
it built upstream's), imports ``kubernetes_asyncio`` and the provider's hook module off the loop
once, and reads ``GET /api/v1/namespaces/<ns>/pods/<name>`` through one ``ApiClient`` per event
loop and cluster configuration (:mod:`resumable_jobs.providers.kubernetes.api_async`: the
connection's extras and kubeconfig dict the operator hands over, so the connection is not
resolved in the triggerer). Every read checks the pod's uid against the one in
``trigger_kwargs`` (``resumable_jobs_pod_uid``): a pod that reuses the name is not ours. While the
pod is Pending it polls every ``startup_check_interval`` seconds, applies ``schedule_timeout``
(until the ``PodScheduled`` condition) and then ``startup_timeout``, stops early on an image that
cannot be pulled (upstream's rule) and logs the pod's Kubernetes events once each
(``log_events_on_startup``); then every ``poll_interval`` seconds until the pod's status
(:func:`resumable_jobs.providers.kubernetes.status.pod_status`, the worker's own reading) is
``Succeeded`` or ``Failed``. It fires upstream's event shape once: ``status`` (``success``,
``failed``, ``timeout``, ``error``), ``namespace``, ``name``, ``message``, ``last_log_time`` and
``trigger_kwargs`` (the uid key, ``_execution_deadline``). Errors: 404 (pod deleted), another uid,
401/403 (the triggerer's identity lacks ``get pods``) and a client that cannot be opened (a bad
connection) give an ``error`` event naming the pod and the cause; 5xx, 429, timeouts and
unreachable servers are retried on the next poll, up to :attr:`PodTrigger.max_read_errors` reads
in a row. A user who stops the deferred task gets the pod deleted (``on_kill`` on Airflow 3.3,
``cleanup`` when the task is no longer deferred below it, as upstream), with the uid as a
precondition, unless ``on_kill_action="keep_pod"``.

What it does not do: it never deletes on a triggerer restart or after it fired, never creates
pods, and applies ``on_finish_action`` nowhere (the operator does, on resume). It does not
watch: one GET per pod and interval (events: one list per Pending poll).
"""

from __future__ import annotations

import asyncio
import datetime
import math
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

from resumable_jobs.providers.kubernetes import status
from resumable_jobs.providers.kubernetes.pod import UID_EVENT_KEY
from resumable_jobs.providers.shared_clients import Lease, import_off_loop

try:  # the trigger base class is importable from core in 3.x; the SDK path is the fallback
    from airflow.triggers.base import BaseTrigger, TriggerEvent
except ImportError:  # pragma: no cover
    from airflow.sdk.bases.trigger import BaseTrigger, TriggerEvent  # type: ignore[no-redef]

__all__ = ["PodTrigger"]

#: Airflow 3.3's triggerer calls ``on_kill`` when a user stops a deferred task; older ones only ``cleanup``.
_TRIGGERER_CALLS_ON_KILL = "on_kill" in vars(BaseTrigger)
_POD_MANAGER = "airflow.providers.cncf.kubernetes.utils.pod_manager"
_PENDING = ("Pending", "Unknown")


class _PodError(Exception):
    """A definitive answer: the pod is gone, not ours, or the API refuses the triggerer."""


class _Transient(Exception):
    """No answer this time (5xx, 429, timeout, unreachable): try again on the next poll."""


class PodTrigger(BaseTrigger):
    """Wait for one pod of ``KubernetesPodOperator`` until its base container ended (see the module docstring).

    What it is for: the operator's deferred tries, on a client shared by every pod trigger of the
    triggerer for the same cluster configuration.

    How it works: polls the pod by name, checks its uid, applies the startup, schedule and
    execution deadlines, and fires upstream's ``KubernetesPodTrigger`` event shape once.

    What it does not do: delete the pod except on a user's stop (``on_kill_action``), or retry
    beyond :attr:`max_read_errors` failed reads in a row.
    """

    #: Modules the reads need, imported off the event loop before the first one.
    client_modules: ClassVar[tuple[str, ...]] = (
        "aiohttp",
        "kubernetes_asyncio.client",
        "airflow.providers.cncf.kubernetes.hooks.kubernetes",
        _POD_MANAGER,
        "resumable_jobs.providers.kubernetes.api_async",
    )
    #: Failed reads in a row (5xx, 429, timeouts) before the trigger gives up with an error event.
    max_read_errors: ClassVar[int] = 5
    #: Seconds one API call may take.
    request_timeout: ClassVar[float] = 30.0

    def __init__(
        self,
        pod_name: str,
        pod_namespace: str,
        trigger_start_time: datetime.datetime,
        base_container_name: str,
        kubernetes_conn_id: str | None = None,
        connection_extras: dict | None = None,
        poll_interval: float = 2,
        cluster_context: str | None = None,
        config_dict: dict | None = None,
        in_cluster: bool | None = None,
        get_logs: bool = True,
        startup_timeout: int = 120,
        startup_check_interval: float = 5,
        schedule_timeout: int = 120,
        on_finish_action: str = "delete_pod",
        on_kill_action: str = "delete_pod",
        termination_grace_period: int | None = None,
        last_log_time: datetime.datetime | None = None,
        logging_interval: int | None = None,
        trigger_kwargs: dict | None = None,
        log_events_on_startup: bool = True,
    ) -> None:
        super().__init__()
        self.pod_name = pod_name
        self.pod_namespace = pod_namespace
        self.trigger_start_time = trigger_start_time
        self.base_container_name = base_container_name
        self.kubernetes_conn_id = kubernetes_conn_id
        self.connection_extras = connection_extras
        self.poll_interval = poll_interval
        self.cluster_context = cluster_context
        self.config_dict = config_dict
        self.in_cluster = in_cluster
        self.get_logs = get_logs
        self.startup_timeout = startup_timeout
        self.startup_check_interval = startup_check_interval
        self.schedule_timeout = schedule_timeout
        self.on_finish_action = str(getattr(on_finish_action, "value", on_finish_action))
        self.on_kill_action = str(getattr(on_kill_action, "value", on_kill_action))
        self.termination_grace_period = termination_grace_period
        self.last_log_time = last_log_time
        self.logging_interval = logging_interval
        self.trigger_kwargs = dict(trigger_kwargs or {})
        self.log_events_on_startup = log_events_on_startup
        self._fired = False

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "pod_name": self.pod_name,
                "pod_namespace": self.pod_namespace,
                "trigger_start_time": self.trigger_start_time,
                "base_container_name": self.base_container_name,
                "kubernetes_conn_id": self.kubernetes_conn_id,
                "connection_extras": self.connection_extras,
                "poll_interval": self.poll_interval,
                "cluster_context": self.cluster_context,
                "config_dict": self.config_dict,
                "in_cluster": self.in_cluster,
                "get_logs": self.get_logs,
                "startup_timeout": self.startup_timeout,
                "startup_check_interval": self.startup_check_interval,
                "schedule_timeout": self.schedule_timeout,
                "on_finish_action": self.on_finish_action,
                "on_kill_action": self.on_kill_action,
                "termination_grace_period": self.termination_grace_period,
                "last_log_time": self.last_log_time,
                "logging_interval": self.logging_interval,
                "trigger_kwargs": self.trigger_kwargs,
                "log_events_on_startup": self.log_events_on_startup,
            },
        )

    # ----------------------------------------------------------------- run
    @property
    def _pod(self) -> str:
        return f"{self.pod_namespace}/{self.pod_name}"

    @property
    def _uid(self) -> str | None:
        return self.trigger_kwargs.get(UID_EVENT_KEY)

    @property
    def _deadline(self) -> float | None:
        deadline = self.trigger_kwargs.get("_execution_deadline")
        return None if deadline is None else float(deadline)

    async def run(self) -> AsyncIterator[TriggerEvent]:
        if self._deadline is not None and time.time() >= self._deadline:
            payload = self._payload(
                "timeout", f"Pod {self._pod} reached the task's execution_timeout deadline before the trigger began"
            )
        else:
            try:
                await import_off_loop(*self.client_modules)
                async with self._client() as client:
                    payload = await self._follow(client)
            except Exception as error:  # any failure becomes the error event upstream fires too
                self.log.exception("Following pod %s failed", self._pod)
                payload = self._payload("error", f"Following pod {self._pod} failed: {type(error).__name__}: {error}")
        self._fired = True
        yield TriggerEvent(payload)

    def _client(self) -> AbstractAsyncContextManager[Lease]:
        from resumable_jobs.providers.kubernetes.api_async import shared_api_client

        return shared_api_client(
            self.kubernetes_conn_id,
            connection_extras=self.connection_extras,
            config_dict=self.config_dict,
            in_cluster=self.in_cluster,
            cluster_context=self.cluster_context,
        )

    async def _follow(self, client: Lease) -> dict[str, Any]:
        """Poll until the pod ended, a deadline passed or a read failed for good; the event's payload."""
        began = time.monotonic()
        scheduled_at: float | None = None
        started = False
        errors: list[str] = []
        seen_events: set[str] | None = set() if self.log_events_on_startup else None
        next_logs = time.monotonic() + self.logging_interval if self.logging_interval and self.get_logs else None
        last_state = None
        while True:
            if self._deadline is not None and time.time() >= self._deadline:
                return self._payload("timeout", f"Pod {self._pod} reached the task's execution_timeout deadline.")
            try:
                pod = await self._read(client)
            except _PodError as error:
                return self._payload("error", str(error))
            except _Transient as error:
                errors.append(str(error))
                self.log.warning("Reading pod %s failed (%d in a row): %s", self._pod, len(errors), error)
                if len(errors) >= self.max_read_errors:
                    return self._payload(
                        "error",
                        f"could not read pod {self._pod} {len(errors)} times in a row (last: {errors[-1]}); "
                        "the pod may still run",
                    )
                await self._sleep(self.poll_interval)
                continue
            errors.clear()
            pod_status = pod.status
            phase = getattr(pod_status, "phase", None)
            if not started:
                if phase == "Failed" and not getattr(pod_status, "container_statuses", None):
                    return self._payload("error", f"Pod {self._pod} failed before its containers started")
                if phase in _PENDING or phase is None:
                    if scheduled_at is None and _scheduled(pod):
                        scheduled_at = time.monotonic()
                        self.log.info(
                            "Pod %s is scheduled; waiting up to %ss for it to start", self._pod, self.startup_timeout
                        )
                    problem = _early_failure(pod)
                    if problem:
                        return self._payload("error", f"Pod {self._pod}: {problem}")
                    if scheduled_at is not None and time.monotonic() - scheduled_at >= self.startup_timeout:
                        return self._payload(
                            "timeout",
                            f"Pod {self._pod} took too long to start. More than {self.startup_timeout}s. "
                            "Check the pod events in kubernetes.",
                        )
                    if scheduled_at is None and time.monotonic() - began >= self.schedule_timeout:
                        return self._payload(
                            "timeout",
                            f"Pod {self._pod} took too long to be scheduled on the cluster, giving up. More than "
                            f"{self.schedule_timeout}s. Check the pod events in kubernetes.",
                        )
                    if seen_events is not None:
                        seen_events = await self._log_pod_events(client, seen_events)
                    await self._sleep(self.startup_check_interval)
                    continue
                started = True
            state = status.pod_status(pod, self.base_container_name)
            if state == status.SUCCEEDED:
                return self._payload("success", f"Pod {self._pod}: {_describe_end(pod, self.base_container_name)}")
            if state == status.FAILED:
                return self._payload("failed", f"Pod {self._pod}: {_describe_end(pod, self.base_container_name)}")
            if _lacks_container(pod, self.base_container_name):
                return self._payload("error", f"Pod {self._pod} has no container named {self.base_container_name!r}")
            if state != last_state:  # each state once: a line per poll and pod is what 1,000 pods cannot afford
                self.log.info("Pod %s is %s", self._pod, state)
                last_state = state
            if next_logs is not None and time.monotonic() >= next_logs:
                await self._log_container_output(client)
                next_logs = time.monotonic() + float(self.logging_interval or 0)
            await self._sleep(self.poll_interval)

    async def _sleep(self, seconds: float) -> None:
        if self._deadline is not None:
            seconds = max(0.0, min(seconds, self._deadline - time.time()))
        await asyncio.sleep(seconds)

    async def _read(self, client: Lease) -> Any:
        """The pod, if it is still ours; :class:`_PodError` or :class:`_Transient` otherwise."""
        from kubernetes_asyncio.client.exceptions import ApiException

        from resumable_jobs.providers.kubernetes import api_async

        try:
            async with client.use() as api:
                pod = await api_async.read_pod(api, self.pod_namespace, self.pod_name, timeout=self.request_timeout)
        except ApiException as error:
            code = int(getattr(error, "status", 0) or 0)
            if api_async.is_transient_status(code):
                raise _Transient(f"get pods: HTTP {code} {getattr(error, 'reason', '')}".strip()) from error
            if code == 404:
                raise _PodError(f"Pod {self._pod} no longer exists (deleted, or evicted and removed)") from error
            raise _PodError(
                f"Kubernetes API refused get pods {self._pod}: HTTP {code} {getattr(error, 'reason', '')}: the "
                f"triggerer's identity needs get, list and delete on pods in namespace {self.pod_namespace}"
            ) from error
        except api_async.KubernetesUnreachable as error:
            raise _Transient(str(error)) from error
        except Exception as error:  # a client that cannot be built: a bad connection or kubeconfig
            raise _PodError(
                f"could not read pod {self._pod} with connection {self.kubernetes_conn_id!r}: "
                f"{type(error).__name__}: {error}"
            ) from error
        uid = getattr(pod.metadata, "uid", None)
        if self._uid and uid != self._uid:
            raise _PodError(
                f"Pod {self._pod} now has uid {uid}, not {self._uid}: another pod reuses the name, and it is not "
                "this task's"
            )
        return pod

    async def _log_pod_events(self, client: Lease, seen: set[str]) -> set[str] | None:
        """Log the pod's Kubernetes events not logged yet; None (stop) after the first failed list, as upstream."""
        from kubernetes_asyncio.client import CoreV1Api

        selector = f"involvedObject.name={self.pod_name}" + (f",involvedObject.uid={self._uid}" if self._uid else "")
        try:
            async with client.use() as api:
                events = await CoreV1Api(api).list_namespaced_event(
                    self.pod_namespace, field_selector=selector, _request_timeout=self.request_timeout
                )
        except Exception as error:  # noqa: BLE001 - best effort: never fails the task
            self.log.warning("Stopped reading the events of pod %s: %s", self._pod, error)
            return None
        for event in events.items or []:
            key = getattr(event.metadata, "uid", None) or str(getattr(event, "message", ""))
            if key not in seen:
                seen.add(key)
                where = getattr(event.involved_object, "field_path", None) or ""
                self.log.info("The pod %s has an event: %s %s", self._pod, event.message, where)
        return seen

    async def _log_container_output(self, client: Lease) -> None:
        """``logging_interval``: log what the base container wrote since the last fetch (as upstream's trigger)."""
        from kubernetes_asyncio.client import CoreV1Api

        now = datetime.datetime.now(tz=datetime.timezone.utc)
        kwargs: dict[str, Any] = {"container": self.base_container_name, "timestamps": True, "follow": False}
        if self.last_log_time is not None:
            kwargs["since_seconds"] = max(1, math.ceil((now - self.last_log_time).total_seconds()))
        try:
            async with client.use() as api:
                response = await CoreV1Api(api).read_namespaced_pod_log(
                    self.pod_name,
                    self.pod_namespace,
                    _preload_content=False,
                    _request_timeout=self.request_timeout,
                    **kwargs,
                )
                raw = await response.read()
        except Exception as error:  # noqa: BLE001 - as upstream: a log read never fails the task
            self.log.warning("Reading the log of pod %s failed: %s", self._pod, error)
            return
        await asyncio.to_thread(self._emit_log, raw, now)  # decoding and one log call per line: off the loop
        self.last_log_time = now

    def _emit_log(self, raw: bytes, now: datetime.datetime) -> None:
        """Log each line of ``raw`` (``<RFC 3339 time> <text>``), but not the current second's: the next fetch has it."""
        current_second = now.strftime("%Y-%m-%dT%H:%M:%S")
        message: str | None = None
        for line in raw.decode(errors="replace").splitlines():
            stamp, _, text = line.partition(" ")
            if len(stamp) >= 20 and stamp[4] == "-" and stamp[10] == "T":  # a new line of the container
                if stamp[:19] >= current_second:
                    break
                if message is not None:
                    self.log.info("[%s] %s", self.base_container_name, message)
                message = text
            elif message is not None:  # a continuation of the previous line
                message = f"{message}\n{line}"
        if message is not None:
            self.log.info("[%s] %s", self.base_container_name, message)

    def _payload(self, event_status: str, message: str) -> dict[str, Any]:
        return {
            "status": event_status,
            "namespace": self.pod_namespace,
            "name": self.pod_name,
            "message": message,
            "last_log_time": self.last_log_time,
            **self.trigger_kwargs,
        }

    # ----------------------------------------------------------------- a user stops the deferred task
    async def on_kill(self) -> None:
        """Airflow 3.3: delete the pod when a user stops the task (not on a triggerer restart), unless kept."""
        if self._fired or self.on_kill_action == "keep_pod":
            return
        await self._delete_pod()

    async def cleanup(self) -> None:
        """Below Airflow 3.3 (no ``on_kill``): delete the pod once the task is no longer deferred, as upstream."""
        if _TRIGGERER_CALLS_ON_KILL or self._fired or self.on_kill_action == "keep_pod":
            return
        try:
            state = await self._task_state()
        except Exception:  # not knowing means keeping the pod
            self.log.warning("Could not read the task's state; keeping pod %s", self._pod, exc_info=True)
            return
        if str(state) == "deferred":  # a triggerer restart or redistribution: the task still waits
            return
        await self._delete_pod()

    async def _task_state(self) -> Any:
        from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance

        ti = self.task_instance
        if ti is None:
            raise RuntimeError("the trigger has no task instance")
        states = await asyncio.to_thread(
            RuntimeTaskInstance.get_task_states,
            dag_id=ti.dag_id,
            task_ids=[ti.task_id],
            run_ids=[ti.run_id],
            map_index=ti.map_index,
        )
        key = f"{ti.task_id}_{ti.map_index}" if ti.map_index is not None and ti.map_index >= 0 else ti.task_id
        return states[ti.run_id][key]

    async def _delete_pod(self) -> None:
        from kubernetes_asyncio.client import CoreV1Api, V1DeleteOptions, V1Preconditions
        from kubernetes_asyncio.client.exceptions import ApiException

        await import_off_loop(*self.client_modules)
        options = V1DeleteOptions(
            grace_period_seconds=self.termination_grace_period,
            preconditions=V1Preconditions(uid=self._uid) if self._uid else None,
        )
        self.log.info("Deleting pod %s (uid %s): the task was stopped", self._pod, self._uid)
        try:
            async with self._client() as client, client.use() as api:
                await CoreV1Api(api).delete_namespaced_pod(
                    self.pod_name, self.pod_namespace, body=options, _request_timeout=self.request_timeout
                )
        except ApiException as error:
            if error.status == 404:
                self.log.info("Pod %s is already gone", self._pod)
            elif error.status == 409:
                self.log.info("Not deleting pod %s: it is another pod now (uid is not %s)", self._pod, self._uid)
            else:
                self.log.exception("Deleting pod %s failed", self._pod)
        except Exception:  # as upstream: logged, never raised into the triggerer
            self.log.exception("Deleting pod %s failed", self._pod)


def _scheduled(pod: Any) -> bool:
    conditions = getattr(pod.status, "conditions", None) or []
    return any(c.type == "PodScheduled" and c.status == "True" for c in conditions)


def _early_failure(pod: Any) -> str | None:
    """Upstream's rule for a Pending pod that will never start (an image that cannot be pulled), if installed."""
    import sys

    detect = getattr(sys.modules.get(_POD_MANAGER), "detect_pod_terminate_early_issues", None)
    return detect(pod) if detect is not None and pod.status is not None else None


def _lacks_container(pod: Any, base_container: str) -> bool:
    statuses = getattr(pod.status, "container_statuses", None) or []
    return bool(statuses) and all(c.name != base_container for c in statuses)


def _describe_end(pod: Any, base_container: str) -> str:
    """``base container exited with code 1 (Error): ...``, else the pod's phase, reason and message."""
    for container in getattr(pod.status, "container_statuses", None) or []:
        terminated = getattr(getattr(container, "state", None), "terminated", None)
        if container.name == base_container and terminated is not None:
            text = f"container {base_container} exited with code {terminated.exit_code}"
            if terminated.reason:
                text += f" ({terminated.reason})"
            return text + (f": {terminated.message.strip()}" if (terminated.message or "").strip() else "")
    text = f"phase {pod.status.phase}"
    if getattr(pod.status, "reason", None):
        text += f" ({pod.status.reason})"
    return text + (f": {pod.status.message}" if getattr(pod.status, "message", None) else "")
