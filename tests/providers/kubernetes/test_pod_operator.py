"""KubernetesPodOperator against the Kubernetes API stand-in: how many pods, which pod a retry follows, what it returns."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.kubernetes import KubernetesPodOperator
from resumable_jobs.providers.kubernetes.identity import TOKEN_LABEL
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SYNC_POINTS,
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


# ---------------------------------------------------------------- the job-lifecycle table
@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_pods_are_deleted_exactly_where_the_lifecycle_table_says(long_pods, durable):
    from resumable_jobs.testing import assert_job_lifecycle

    outcomes = assert_job_lifecycle(lambda: _op(durable=durable))
    for outcome in outcomes:
        name = outcome.job_id["name"]
        deleted = f"{NAMESPACE}:{name}" in long_pods.deleted
        assert deleted, outcome.case  # cancelled pods are deleted; kept ones by on_finish_action after the retry
        if not outcome.cancelled:
            assert outcome.retry_result is None and outcome.jobs == 1, outcome.case
    assert len(long_pods.created) == len(outcomes)  # one pod per case: no retry created another


@durable_only
def test_cancel_on_worker_shutdown_restores_upstreams_delete_on_sigterm(long_pods):
    from resumable_jobs.testing import LifecycleCase, run_lifecycle_case

    outcome = run_lifecycle_case(lambda: _op(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert outcome.cancelled and f"{NAMESPACE}:{outcome.job_id['name']}" in long_pods.deleted


@durable_only
def test_a_worker_shutdown_keeps_the_pod_and_the_retry_reattaches_to_it_saying_so(long_pods, task_logs):
    from resumable_jobs.mixin.errors import WorkerShutdown

    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = _op()
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    with pytest.raises(WorkerShutdown):
        first.on_kill()  # the Execution API says "running": a worker shutting down
    (pod,) = long_pods.created
    assert long_pods.deleted == []
    task_logs.clear()

    run_try(_op(), make_context(store, ti.next_try()))
    assert len(long_pods.created) == 1
    reattached = [m for _, m in task_logs.records if m.startswith("Reattached to pod")]
    assert len(reattached) == 1 and pod["metadata"]["name"] in reattached[0] and pod["metadata"]["uid"] in reattached[0]


@durable_only
def test_on_kill_action_keep_pod_keeps_the_pod_of_a_task_marked_failed(long_pods):
    from resumable_jobs.testing import LifecycleCase, run_lifecycle_case

    outcome = run_lifecycle_case(lambda: _op(on_kill_action="keep_pod"), LifecycleCase.STOPPED_ON_PURPOSE)
    assert not outcome.cancelled  # cancel_job never ran; the retry followed the pod to its end


# ---------------------------------------------------------------- identity: the uid decides
def _stranger(api, name, labels=None):
    """A pod some other workload created under ``name``."""
    body = {
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"containers": [{"name": "base", "image": "x"}]},
    }
    api.dispatch("POST", f"/api/v1/namespaces/{NAMESPACE}/pods", body)
    return api.pods[(NAMESPACE, name)].body["metadata"]["uid"]


@durable_only
def test_a_pod_with_the_stored_name_but_another_uid_is_not_ours(long_pods, task_logs):
    stranger_uid = _stranger(long_pods, "report")
    store = InMemoryTaskStateStore()
    store.set("pod_identifier", {"namespace": NAMESPACE, "name": "report", "uid": "uid-of-our-deleted-pod"})

    run_try(_op(), make_context(store, FakeTaskInstance()))

    assert len(long_pods.created) == 2  # the stranger, and the pod this task created instead
    assert store.get("pod_identifier")["uid"] not in (stranger_uid, "uid-of-our-deleted-pod")
    assert f"{NAMESPACE}:report" not in long_pods.deleted  # never deleted: it is not ours
    assert any("not the stored uid-of-our-deleted-pod" in m for _, m in task_logs.records)


@durable_only
def test_an_upstream_entry_without_uid_is_adopted_only_if_the_pod_carries_this_task_instances_labels(long_pods):
    ti = FakeTaskInstance()
    labels = {"dag_id": ti.dag_id, "task_id": ti.task_id, "run_id": _safe(ti.run_id), "kubernetes_pod_operator": "True"}
    _stranger(long_pods, "upstream-pod", labels)
    _stranger(long_pods, "unrelated-pod", {"dag_id": "other"})

    adopting = InMemoryTaskStateStore()
    adopting.set(
        "pod_identifier", {"namespace": NAMESPACE, "name": "upstream-pod"}
    )  # what upstream's durable mode wrote
    run_try(_op(), make_context(adopting, ti))
    assert len(long_pods.created) == 2  # adopted: no pod created
    assert f"{NAMESPACE}:upstream-pod" in long_pods.deleted  # followed to the end, then on_finish_action

    refusing = InMemoryTaskStateStore()
    refusing.set("pod_identifier", {"namespace": NAMESPACE, "name": "unrelated-pod"})
    run_try(_op(), make_context(refusing, ti))
    assert len(long_pods.created) == 3  # not adopted: a pod of its own
    assert f"{NAMESPACE}:unrelated-pod" not in long_pods.deleted


def _safe(value):
    from airflow.providers.cncf.kubernetes.pod_generator import make_safe_label_value

    return make_safe_label_value(value)


# ---------------------------------------------------------------- results: exit code and the XCom sidecar
@pytest.fixture
def sidecar_file(monkeypatch):
    """The stand-in has no exec: stand in for the ``cat`` of the sidecar's return.json, keep upstream's parsing."""
    from airflow.providers.cncf.kubernetes.utils.pod_manager import PodManager

    files: dict[str, str] = {}
    reads: list[str] = []

    def extract_xcom_json(self, pod):
        reads.append(pod.metadata.name)
        return files.get(pod.metadata.name, "__airflow_xcom_result_empty__\n")

    monkeypatch.setattr(PodManager, "extract_xcom_json", extract_xcom_json)
    monkeypatch.setattr(PodManager, "extract_xcom_kill", lambda self, pod: None)
    return files, reads


def test_do_xcom_push_returns_the_sidecars_json_as_upstream_parses_it(k8s_api, sidecar_file):
    files, _ = sidecar_file
    k8s_api.log_lines = ()

    def write_result(_):  # the container writes /airflow/xcom/return.json while it runs
        for name in [b["metadata"]["name"] for b in k8s_api.created]:
            files[name] = '{"rows": 42}\n'

    op = _op(do_xcom_push=True)
    real_create = op.pod_manager.create_pod

    def create(pod):
        created = real_create(pod=pod)
        write_result(created)
        return created

    op.pod_manager.create_pod = create
    assert run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance())) == {"rows": 42}
    (created,) = k8s_api.created
    assert [c["name"] for c in created["spec"]["containers"]] == ["base", "airflow-xcom-sidecar"]


@durable_only
def test_a_retry_reads_the_result_of_a_pod_that_finished_meanwhile_without_creating_another(long_pods, sidecar_file):
    files, reads = sidecar_file
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = _op(do_xcom_push=True)
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    (pod,) = long_pods.created
    name = pod["metadata"]["name"]
    files[name] = '{"rows": 7}'
    long_pods.finish(f"{NAMESPACE}:{name}", "Running", 0)  # base exited 0; the sidecar keeps the pod Running

    assert run_try(_op(do_xcom_push=True), make_context(store, ti.next_try())) == {"rows": 7}
    assert len(long_pods.created) == 1 and reads == [name]
    assert long_pods.deleted == [f"{NAMESPACE}:{name}"]


def test_a_failed_pod_fails_the_task_with_upstreams_message_and_on_finish_action_applies(k8s_api):
    k8s_api.outcome, k8s_api.exit_code = "Failed", 3
    with pytest.raises(Exception, match="returned a failure") as raised:
        run_try(
            _op(on_finish_action="delete_succeeded_pod"), make_context(InMemoryTaskStateStore(), FakeTaskInstance())
        )
    assert "exit code 3" in str(raised.value)  # the container's termination message
    (pod,) = k8s_api.created
    assert k8s_api.deleted == []  # delete_succeeded_pod keeps a failed pod
    assert k8s_api.pods[(NAMESPACE, pod["metadata"]["name"])].body["metadata"]["labels"]["already_checked"] == "True"


def test_skip_on_exit_code_skips_as_upstream_does(k8s_api):
    from resumable_jobs.shims.sdk_names import sdk_exception

    k8s_api.outcome, k8s_api.exit_code = "Failed", 100
    with pytest.raises(sdk_exception("AirflowSkipException")):
        run_try(_op(skip_on_exit_code=100), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


# ---------------------------------------------------------------- the log of a reattaching try
@durable_only
def test_a_reattaching_try_continues_the_log_instead_of_repeating_it(long_pods, task_logs, monkeypatch):
    import time

    from resumable_jobs.providers.kubernetes import log_position

    monkeypatch.setattr(log_position, "WRITE_EVERY", 0.0)  # every position is written (default: every 10 s)
    long_pods.log_lines = ()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = _op()
    real_create = first.pod_manager.create_pod

    def create(pod):
        created = real_create(pod=pod)
        now = time.time()
        long_pods.write_log(f"{NAMESPACE}:{created.metadata.name}", "line one", at=now - 30)
        long_pods.write_log(f"{NAMESPACE}:{created.metadata.name}", "line two", at=now - 20)
        return created

    first.pod_manager.create_pod = create
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    (pod,) = long_pods.created
    first.pod_kit.await_pod_completion(pod=first._follow(store.get("pod_identifier"), make_context(store, ti)))
    assert "[base] line one" in _logged(task_logs)
    task_logs.clear()
    long_pods.write_log(f"{NAMESPACE}:{pod['metadata']['name']}", "line three")

    run_try(_op(), make_context(store, ti.next_try()))
    logged = _logged(task_logs)
    assert "Reattached to pod" in logged and "[base] line three" in logged
    assert "[base] line one" not in logged  # seconds before the stored position: not repeated


# ---------------------------------------------------------------- deferrable
@durable_only
def test_a_deferrable_retry_whose_pod_still_runs_defers_again_to_the_same_pod(long_pods):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = _op(deferrable=True)
    with crash_at(first, CrashPoint.AFTER_DEFER, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    (pod,) = long_pods.created

    retry = _op(deferrable=True)
    with pytest.raises(BaseException) as deferred:  # TaskDeferred: its base class differs per Airflow version
        retry.execute(make_context(store, ti.next_try()))
    assert type(deferred.value).__name__ == "TaskDeferred"
    trigger = deferred.value.trigger
    assert (trigger.pod_name, trigger.pod_namespace) == (pod["metadata"]["name"], NAMESPACE)
    assert trigger.trigger_kwargs["resumable_jobs_pod_uid"] == pod["metadata"]["uid"]
    assert len(long_pods.created) == 1


def test_a_deferred_pod_that_failed_fails_the_task_and_is_deleted(k8s_api):
    k8s_api.outcome, k8s_api.exit_code = "Failed", 1
    with pytest.raises(Exception, match="returned a failure"):
        run_try(_op(deferrable=True), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    (pod,) = k8s_api.created
    assert k8s_api.deleted == [f"{NAMESPACE}:{pod['metadata']['name']}"]


# ---------------------------------------------------------------- below Airflow 3.3
@pytest.mark.shim_only
@pytest.mark.parametrize(
    ("kwargs", "points"), [({}, SYNC_POINTS), ({"deferrable": True}, DEFERRABLE_POINTS)], ids=["sync", "deferrable"]
)
def test_pre33_every_retry_creates_another_pod(k8s_api, kwargs, points):
    for point in points:
        before = len(k8s_api.created)
        run_crash_scenario(lambda: _op(**kwargs), point)
        first, second = k8s_api.created[before:]
        assert first["metadata"]["labels"][TOKEN_LABEL] != second["metadata"]["labels"][TOKEN_LABEL], point


# ---------------------------------------------------------------- construction
def test_an_unknown_on_finish_action_fails_in_the_dag_file_naming_the_parameter():
    with pytest.raises(ValueError, match="on_finish_action must be one of"):
        _op(on_finish_action="delete_everything")


def test_reattach_on_restart_is_upstreams_old_name_of_durable():
    with pytest.warns(DeprecationWarning, match="old name of durable"):
        op = _op(reattach_on_restart=False)
    assert op.durable is False


def test_every_upstream_parameter_reaches_the_pod_kit(k8s_api):
    from kubernetes.client import models as k8s

    op = _op(
        labels={"team": "ml"},
        annotations={"owner": "data"},
        env_vars={"MODE": "{{ params.mode }}"},
        node_selector={"pool": "gpu"},
        tolerations=[k8s.V1Toleration(key="gpu", operator="Exists")],
        service_account_name="trainer",
        termination_grace_period=5,
        active_deadline_seconds=600,
        params={"mode": "full"},
    )
    ti = FakeTaskInstance()
    context = make_context(InMemoryTaskStateStore(), ti, params={"mode": "full"})
    op.render_template_fields(context)
    run_try(op, context)
    (created,) = k8s_api.created
    spec, meta = created["spec"], created["metadata"]
    assert meta["labels"]["team"] == "ml" and meta["annotations"] == {"owner": "data"}
    assert spec["nodeSelector"] == {"pool": "gpu"} and spec["tolerations"] == [{"key": "gpu", "operator": "Exists"}]
    assert spec["serviceAccountName"] == "trainer" and spec["terminationGracePeriodSeconds"] == 5
    assert spec["activeDeadlineSeconds"] == 600
    assert spec["containers"][0]["env"] == [{"name": "MODE", "value": "full"}]
