"""KubernetesPodOperator against the Kubernetes API stand-in: how many pods, which pod a retry follows, what it returns."""

from __future__ import annotations

import logging

import pytest

from resumable_jobs.providers.kubernetes import KubernetesPodOperator
from resumable_jobs.providers.kubernetes.identity import TOKEN_LABEL
from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    assert_crash_safe,
    crash_at,
    make_context,
    run_crash_scenario,
    run_try,
)
from tests.providers.kubernetes.conftest import NAMESPACE

durable_only = pytest.mark.durable_only


def _op(**kwargs):
    kwargs.setdefault("task_id", "resumable_task")
    return KubernetesPodOperator(
        namespace=NAMESPACE,
        image="busybox",
        cmds=["sh", "-c", "echo work"],
        poll_interval=0,
        startup_check_interval_seconds=0,
        base_container_status_polling_interval=0,
        **kwargs,
    )


def _logged(task_logs):
    return "\n".join(message for _, message in task_logs.records)


def test_a_fresh_try_creates_one_labelled_pod_streams_its_log_and_deletes_it(k8s_api, task_logs):
    ti = FakeTaskInstance()
    result = run_try(_op(), make_context(InMemoryTaskStateStore(), ti))

    assert result is None  # upstream returns None without do_xcom_push
    (created,) = k8s_api.created
    labels = created["metadata"]["labels"]
    assert labels["dag_id"] == ti.dag_id and labels["task_id"] == ti.task_id and labels["try_number"] == "1"
    assert TOKEN_LABEL in labels
    assert k8s_api.deleted == [f"{NAMESPACE}:{created['metadata']['name']}"]  # on_finish_action="delete_pod"
    assert ti.xcom["pod_name"] == created["metadata"]["name"] and ti.xcom["pod_namespace"] == NAMESPACE
    assert ti.xcom["pod_identifier"]["uid"] == created["metadata"]["uid"]  # even with do_xcom_push=False
    assert "[base] half way" in _logged(task_logs)


@durable_only
def test_the_identity_is_stored_under_upstreams_key_with_the_uid(k8s_api):
    store = InMemoryTaskStateStore()
    run_try(_op(on_finish_action="keep_pod"), make_context(store, FakeTaskInstance()))
    (created,) = k8s_api.created
    meta = created["metadata"]
    assert store.get("pod_identifier") == {"namespace": NAMESPACE, "name": meta["name"], "uid": meta["uid"]}


@durable_only
@pytest.mark.parametrize(
    ("mode", "kwargs"),
    [("sync", {}), ("deferrable", {"deferrable": True}), ("submit-only", {"wait_for_termination": False})],
)
def test_conformance_kit_one_pod_per_crash_point_in_every_mode(k8s_api, mode, kwargs):
    results = assert_crash_safe(lambda: _op(**kwargs))
    per_point = {r.point.name: r.jobs for r in results}
    print(f"pods created per crash point ({mode}): {per_point}")
    assert set(per_point.values()) == {1}, per_point
    assert len(k8s_api.created) == len(results)  # the API server saw no pod but those: one per scenario
