"""PodTrigger against the Kubernetes API stand-in: which pod it follows, the event it fires, what it deletes."""

from __future__ import annotations

import asyncio
import datetime
import json
import time
from typing import Any

import pytest

from resumable_jobs.providers.kubernetes.pod import UID_EVENT_KEY
from resumable_jobs.providers.kubernetes.trigger import PodTrigger
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_trigger_until_event
from tests.providers.kubernetes.conftest import NAMESPACE
from tests.providers.kubernetes.test_pod_operator import _op

PODS = f"/api/v1/namespaces/{NAMESPACE}/pods"


def _create(api, name: str = "work", containers: tuple[str, ...] = ("base",)) -> str:
    body = {"metadata": {"name": name}, "spec": {"containers": [{"name": c, "image": "busybox"} for c in containers]}}
    code, pod = api.dispatch("POST", PODS, body)
    assert code == 201, pod
    return pod["metadata"]["uid"]


def _trigger(name: str = "work", uid: str | None = None, **kwargs: Any) -> PodTrigger:
    kwargs.setdefault("kubernetes_conn_id", "kubernetes_default")
    kwargs.setdefault("poll_interval", 0)
    return PodTrigger(
        pod_name=name,
        pod_namespace=NAMESPACE,
        trigger_start_time=datetime.datetime.now(tz=datetime.timezone.utc),
        base_container_name="base",
        startup_check_interval=0,
        trigger_kwargs={UID_EVENT_KEY: uid} if uid else {},
        **kwargs,
    )


def _reads(api, name: str = "work") -> int:
    return api.requests.count(f"GET {PODS}/{name}")


def test_a_pod_that_runs_then_succeeds_fires_success_naming_the_pod_and_its_uid(k8s_api):
    uid = _create(k8s_api)
    event = run_trigger_until_event(_trigger(uid=uid))
    assert event["status"] == "success"
    assert (event["namespace"], event["name"], event[UID_EVENT_KEY]) == (NAMESPACE, "work", uid)
    assert "container base exited with code 0" in event["message"]
    assert _reads(k8s_api) == 5  # Pending, three times Running, then ended
    assert k8s_api.deleted == []  # the trigger never deletes a pod that ended


def test_the_base_containers_end_is_the_end_while_a_sidecar_keeps_the_pod_running(k8s_api):
    uid = _create(k8s_api, containers=("base", "airflow-xcom-sidecar"))
    event = run_trigger_until_event(_trigger(uid=uid))
    assert event["status"] == "success"
    assert k8s_api.phase_of(f"{NAMESPACE}:work") == "Running"


def test_a_failed_base_container_fires_failed_with_its_exit_code(k8s_api):
    k8s_api.outcome, k8s_api.exit_code = "Failed", 3
    uid = _create(k8s_api)
    event = run_trigger_until_event(_trigger(uid=uid))
    assert event["status"] == "failed"
    assert "container base exited with code 3 (Error)" in event["message"]


def test_a_pod_that_reuses_the_name_with_another_uid_is_not_followed(k8s_api):
    old_uid = _create(k8s_api)
    k8s_api.dispatch("DELETE", f"{PODS}/work", None)
    new_uid = _create(k8s_api)
    event = run_trigger_until_event(_trigger(uid=old_uid))
    assert event["status"] == "error"
    assert f"now has uid {new_uid}, not {old_uid}" in event["message"]
    assert _reads(k8s_api) == 1


def test_a_deleted_pod_and_a_refusal_give_error_events_naming_the_pod_and_the_cause(k8s_api):
    event = run_trigger_until_event(_trigger(name="gone", uid="uid-x"))
    assert event["status"] == "error" and f"Pod {NAMESPACE}/gone no longer exists" in event["message"]

    uid = _create(k8s_api)
    k8s_api.forbidden = True
    event = run_trigger_until_event(_trigger(uid=uid))
    assert event["status"] == "error"
    assert f"refused get pods {NAMESPACE}/work: HTTP 403" in event["message"]
    assert f"get, list and delete on pods in namespace {NAMESPACE}" in event["message"]


def test_transient_errors_are_retried_and_give_up_after_max_read_errors(k8s_api, monkeypatch):
    uid = _create(k8s_api)
    k8s_api.unavailable = True
    event = run_trigger_until_event(_trigger(uid=uid))
    assert event["status"] == "error"
    assert f"could not read pod {NAMESPACE}/work 5 times in a row (last: get pods: HTTP 503" in event["message"]
    assert _reads(k8s_api) == PodTrigger.max_read_errors

    async def recovering() -> dict[str, Any]:
        async def heal() -> None:
            while _reads(k8s_api) < 8:
                await asyncio.sleep(0.01)
            k8s_api.unavailable = False

        healer = asyncio.create_task(heal())
        trigger = _trigger(uid=uid, poll_interval=0.02)
        events = trigger.run()
        try:
            return (await events.__anext__()).payload
        finally:
            await events.aclose()
            await healer

    event = asyncio.run(recovering())
    assert event["status"] == "success"


def test_a_bad_connection_gives_an_error_event_naming_the_pod_and_the_connection(k8s_api, tmp_path):
    uid = _create(k8s_api)
    missing = {"kube_config_path": str(tmp_path / "no-such-kubeconfig")}
    event = run_trigger_until_event(_trigger(uid=uid, connection_extras=missing))
    assert event["status"] == "error"
    assert f"could not read pod {NAMESPACE}/work with connection 'kubernetes_default'" in event["message"]


def test_connection_extras_are_used_without_resolving_the_connection(k8s_api, tmp_path, monkeypatch):
    uid = _create(k8s_api)
    extras = {"kube_config_path": str(k8s_api.write_kubeconfig(tmp_path / "handed-over"))}
    monkeypatch.delenv("AIRFLOW_CONN_KUBERNETES_DEFAULT")
    event = run_trigger_until_event(
        _trigger(uid=uid, kubernetes_conn_id="not_in_the_triggerer", connection_extras=extras)
    )
    assert event["status"] == "success"


def test_schedule_timeout_while_pending_fires_timeout(k8s_api):
    uid = _create(k8s_api)
    k8s_api.finish(f"{NAMESPACE}:work", "Pending", None)
    event = run_trigger_until_event(_trigger(uid=uid, schedule_timeout=0))
    assert event["status"] == "timeout"
    assert "took too long to be scheduled on the cluster" in event["message"]


def test_the_execution_deadline_fires_timeout_before_and_while_polling(k8s_api):
    uid = _create(k8s_api)
    passed = {UID_EVENT_KEY: uid, "_execution_deadline": int(time.time()) - 1}
    trigger = _trigger(uid=uid)
    trigger.trigger_kwargs = passed
    event = run_trigger_until_event(trigger)
    assert event["status"] == "timeout" and "before the trigger began" in event["message"]
    assert _reads(k8s_api) == 0

    k8s_api.finish(f"{NAMESPACE}:work", "Running", None)
    trigger = _trigger(uid=uid, poll_interval=0.05)
    trigger.trigger_kwargs = {UID_EVENT_KEY: uid, "_execution_deadline": time.time() + 0.5}
    event = run_trigger_until_event(trigger)
    assert event["status"] == "timeout" and "reached the task's execution_timeout deadline" in event["message"]
    assert _reads(k8s_api) >= 2
    assert event["_execution_deadline"] == trigger.trigger_kwargs["_execution_deadline"]


def test_logging_interval_logs_the_base_containers_new_lines_from_the_triggerer(k8s_api, monkeypatch):
    uid = _create(k8s_api)
    k8s_api.finish(f"{NAMESPACE}:work", "Running", None)
    logged: list[str] = []

    class Recorder:
        def info(self, message: str, *args: Any) -> None:
            logged.append(message % args)

        warning = exception = debug = info

    monkeypatch.setattr(PodTrigger, "log", property(lambda self: Recorder()))
    k8s_api.write_log(f"{NAMESPACE}:work", "first line", at=time.time() - 5)
    k8s_api.write_log(f"{NAMESPACE}:work", "second line", at=time.time() - 4)

    async def scenario() -> dict[str, Any]:
        trigger = _trigger(uid=uid, poll_interval=0.05, logging_interval=1)
        events = trigger.run()
        first = asyncio.ensure_future(events.__anext__())
        while not any("second line" in line for line in logged):
            await asyncio.sleep(0.05)
        k8s_api.finish(f"{NAMESPACE}:work", "Succeeded", 0)
        try:
            return (await asyncio.wait_for(first, 10)).payload
        finally:
            await events.aclose()

    event = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert event["status"] == "success" and event["last_log_time"] is not None
    written = ["starting the work", "half way", "work done", "first line", "second line"]  # the pod's log, in order
    assert [line for line in logged if line.startswith("[base]")] == [f"[base] {line}" for line in written]


def test_serialize_round_trips_under_our_classpath():
    trigger = _trigger(uid="uid-1", connection_extras={"in_cluster": False}, logging_interval=30)
    classpath, kwargs = trigger.serialize()
    assert classpath == "resumable_jobs.providers.kubernetes.trigger.PodTrigger"
    assert PodTrigger(**kwargs).serialize() == (classpath, kwargs)
    upstream = pytest.importorskip("airflow.providers.cncf.kubernetes.triggers.pod").KubernetesPodTrigger
    _, upstream_kwargs = upstream(**kwargs).serialize()
    assert set(kwargs) == set(upstream_kwargs) | {"log_events_on_startup"}  # upstream's kwargs, nothing else


def test_on_kill_deletes_our_pod_with_its_uid_as_precondition_unless_kept_or_fired(k8s_api):
    uid = _create(k8s_api)
    asyncio.run(_trigger(uid=uid, on_kill_action="keep_pod").on_kill())
    assert k8s_api.deleted == []

    fired = _trigger(uid=uid)
    fired._fired = True
    asyncio.run(fired.on_kill())
    assert k8s_api.deleted == []

    asyncio.run(_trigger(uid="uid-of-an-older-pod").on_kill())  # the precondition refuses: not ours
    assert k8s_api.deleted == []

    asyncio.run(_trigger(uid=uid).on_kill())
    assert k8s_api.deleted == [f"{NAMESPACE}:work"]


# ---------------------------------------------------------------- the operator's deferrable path
def test_the_operator_defers_to_our_trigger_and_resumes_from_its_event(k8s_api):
    from resumable_jobs.testing import run_try

    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    operator = _op(deferrable=True)
    assert run_try(operator, make_context(store, ti)) is None
    (pod,) = k8s_api.created
    assert k8s_api.deleted == [f"{NAMESPACE}:{pod['metadata']['name']}"]  # on_finish_action="delete_pod"


def _deferred(operator: Any, context: dict[str, Any]) -> Any:
    with pytest.raises(BaseException) as deferred:  # TaskDeferred: its base class differs per Airflow version
        operator.execute(context)
    assert type(deferred.value).__name__ == "TaskDeferred"
    return deferred.value.trigger


def test_a_task_deferred_to_upstreams_trigger_by_an_earlier_release_resumes_after_the_upgrade(k8s_api):
    upstream = pytest.importorskip("airflow.providers.cncf.kubernetes.triggers.pod").KubernetesPodTrigger
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    context = make_context(store, ti)
    ours = _deferred(_op(deferrable=True), context)
    assert isinstance(ours, PodTrigger)
    _, kwargs = ours.serialize()
    # What the earlier release stored in the trigger row: upstream's class with these kwargs.
    event = run_trigger_until_event(upstream(**kwargs))
    assert event["status"] == "success" and event[UID_EVENT_KEY] == ours.trigger_kwargs[UID_EVENT_KEY]
    resumed = _op(deferrable=True)  # the upgraded worker runs the resume method
    assert resumed.execute_complete(context, event=event) is None
    (pod,) = k8s_api.created
    assert k8s_api.deleted == [f"{NAMESPACE}:{pod['metadata']['name']}"]
    assert json.dumps(pod["metadata"]["labels"])  # one pod in all


@pytest.mark.parametrize(("task_state", "deleted"), [("deferred", False), ("failed", True)])
def test_below_airflow_33_cleanup_deletes_only_once_the_task_is_no_longer_deferred(
    k8s_api, monkeypatch, task_state, deleted
):
    from resumable_jobs.providers.kubernetes import trigger as module

    monkeypatch.setattr(module, "_TRIGGERER_CALLS_ON_KILL", False)
    uid = _create(k8s_api)
    trigger = _trigger(uid=uid)

    async def state() -> str:
        return task_state

    monkeypatch.setattr(trigger, "_task_state", state)
    asyncio.run(trigger.cleanup())
    assert k8s_api.deleted == ([f"{NAMESPACE}:work"] if deleted else [])


def test_from_airflow_33_cleanup_never_deletes_on_kill_does(k8s_api):
    from resumable_jobs.providers.kubernetes import trigger as module

    if not module._TRIGGERER_CALLS_ON_KILL:
        pytest.skip("this Airflow's triggerer has no on_kill")
    uid = _create(k8s_api)
    asyncio.run(_trigger(uid=uid).cleanup())  # a triggerer restart or a fired event: the pod stays
    assert k8s_api.deleted == []
