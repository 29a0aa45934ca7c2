"""Kubernetes: driver pod status (exit code, phase, sidecars), find by label, delete, API errors, the trigger.

Through the real ``cncf.kubernetes`` hook and ``kubernetes`` client, against the stand-in API
server (resumable_jobs.local.kubernetes_api) whose replies are Kubernetes JSON.
"""

from __future__ import annotations

import json

import pytest

from resumable_jobs import ExternalJobFailed, JobNotFoundError
from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.kubernetes.manager import LABEL_KEY, pod_label_value
from resumable_jobs.providers.spark.kubernetes.pods import KubernetesApiRefused, KubernetesApiUnavailable
from resumable_jobs.providers.spark.kubernetes.trigger import KubernetesDriverPodTrigger
from resumable_jobs.testing import (
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_trigger_until_event,
    run_try,
)
from tests.providers.spark.conftest import submit_calls


def _op(binary, **kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "local:///opt/jobs/etl.py")
    kwargs.setdefault("status_poll_interval", 0)
    return SparkSubmitOperator(spark_binary=str(binary.path), **kwargs)


def _pod(api, name="etl-driver", namespace="etl", labels=None):
    """A driver pod created directly, as another try's spark-submit would have."""
    body = {
        "metadata": {"name": name, "labels": {"spark-role": "driver", **(labels or {})}},
        "spec": {"containers": []},
    }
    code, _ = api.dispatch("POST", f"/api/v1/namespaces/{namespace}/pods", body)
    assert code == 201
    return f"{namespace}:{name}"


@pytest.mark.parametrize(
    ("phase", "exit_code", "sidecar", "state", "active"),
    [
        ("Pending", None, False, "Pending", True),
        ("Running", None, False, "Running", True),
        ("Unknown", None, False, "Unknown", True),  # the node is unreachable; the driver may well run
        ("Succeeded", 0, False, "Succeeded", False),
        ("Failed", 1, False, "Failed", False),
        # a sidecar keeps the pod Running: the driver container's exit code decides
        ("Succeeded", 0, True, "Succeeded", False),
        ("Failed", 137, True, "Failed", False),
    ],
)
def test_driver_container_exit_code_decides_before_the_pod_phase(
    k8s, standin_spark_submit, phase, exit_code, sidecar, state, active
):
    k8s.sidecar = sidecar
    app_id = _pod(k8s)
    k8s.finish(app_id, phase, exit_code)
    op = _op(standin_spark_submit)
    status = op.get_job_status(app_id, make_context())
    assert status == state
    assert op.is_job_active(status) is active
    assert op.is_job_succeeded(status) is (state == "Succeeded")


def test_failed_driver_fails_the_task_with_exit_code_and_reason(k8s, standin_spark_submit):
    k8s.outcome, k8s.exit_code = "Failed", 1
    with pytest.raises(
        ExternalJobFailed, match=r"Spark driver pod etl:arrow-spark-\w+-driver ended Failed \(exit code 1, Error\)"
    ):
        run_try(_op(standin_spark_submit), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def test_a_deleted_pod_is_not_found_and_a_poll_says_why(k8s, standin_spark_submit):
    op = _op(standin_spark_submit)
    with pytest.raises(JobNotFoundError, match="etl:gone-driver"):
        op.get_job_status("etl:gone-driver", make_context())
    k8s.running_polls = 50
    app_id = op.submit_job(make_context())
    k8s.dispatch("DELETE", f"/api/v1/namespaces/etl/pods/{app_id.split(':')[1]}", None)
    with pytest.raises(ExternalJobFailed, match="the pod was deleted"):
        op.poll_until_complete(app_id, make_context())


def test_an_unavailable_api_is_transient_and_missing_rbac_is_named(k8s, standin_spark_submit):
    op = _op(standin_spark_submit)
    app_id = _pod(k8s)
    k8s.unavailable = True
    with pytest.raises(KubernetesApiUnavailable, match="503"):
        op.get_job_status(app_id, make_context())
    k8s.unavailable, k8s.forbidden = False, True
    with pytest.raises(KubernetesApiRefused, match=r"HTTP 403.*pods: list, get, delete"):
        op.get_job_status(app_id, make_context())


def test_find_job_selects_the_driver_pod_by_the_token_label(k8s, standin_spark_submit):
    token = "spark_job-g2-0123456789abcdef01234567"
    value = pod_label_value(token)
    failed = _pod(k8s, "old-driver", labels={LABEL_KEY: value})
    k8s.finish(failed, "Failed", 1)
    live = _pod(k8s, "new-driver", labels={LABEL_KEY: value})
    _pod(k8s, "other-driver", labels={LABEL_KEY: "someone-else-g1-ffffffffffffffffffffffff"})
    _pod(k8s, "same-label-other-namespace", namespace="default", labels={LABEL_KEY: value})
    op = _op(standin_spark_submit)
    assert op.find_job(token, make_context()) == live
    assert op.find_job("absent-g1-000000000000000000000000", make_context()) is None


def test_a_long_token_becomes_a_valid_label_value_keeping_its_unique_end():
    token = "a_very_long_task_id_that_fills_the_readable_part-g12-" + "0123456789abcdef01234567"[:10]
    token = ("x" * 64)[: 64 - len(token)] + token
    assert len(token) == 64
    value = pod_label_value(token)
    assert len(value) <= 63 and value[0].isalnum() and value[-1].isalnum()
    assert value.endswith("-g12-0123456789")


def test_cancel_deletes_the_driver_pod(k8s, standin_spark_submit):
    op = _op(standin_spark_submit)
    app_id = op.submit_job(make_context())
    op.cancel_job(app_id, make_context())
    assert k8s.deleted == [app_id] and app_id not in k8s.pod_ids()


def test_the_submit_command_carries_label_namespace_and_driver_env(k8s, standin_spark_submit):
    op = _op(
        standin_spark_submit,
        conf={"spark.kubernetes.container.image": "spark:4.1", "spark.kubernetes.namespace": "batch"},
        env_vars={"MODE": "prod"},
        num_executors=2,
        name="nightly",
    )
    app_id = op.submit_job(make_context())
    assert app_id.startswith("batch:nightly-")
    (call,) = submit_calls(standin_spark_submit)
    assert call["conf"]["spark.kubernetes.namespace"] == "batch"  # conf wins over the connection's namespace
    assert call["conf"]["spark.kubernetes.submission.waitAppCompletion"] == "false"
    assert call["conf"]["spark.kubernetes.driverEnv.MODE"] == "prod"
    assert call["conf"][f"spark.kubernetes.driver.label.{LABEL_KEY}"].startswith("spark_job-g0-")
    assert call["options"]["--num-executors"] == "2"
    (created,) = k8s.created
    assert created["metadata"]["labels"][LABEL_KEY] == call["conf"][f"spark.kubernetes.driver.label.{LABEL_KEY}"]


def test_deferrable_run_waits_in_the_trigger(k8s, standin_spark_submit):
    k8s.running_polls = 3
    ti = FakeTaskInstance()
    result = run_try(_op(standin_spark_submit, deferrable=True), make_context(InMemoryTaskStateStore(), ti))
    assert result == k8s.pod_ids()[0] and ti.xcom["spark_driver_id"] == result
    assert "spark_master_ui_url" not in ti.xcom  # Kubernetes has no application page to link


# ---------------------------------------------------------------- the trigger
def _event(app_id, **kwargs):
    kwargs.setdefault("poll_interval", 0)
    return run_trigger_until_event(KubernetesDriverPodTrigger(app_id, **kwargs), timeout=60)


def test_trigger_fires_success_and_error_with_the_exit_code(k8s):
    k8s.running_polls = 2
    ok = _pod(k8s, "ok-driver")
    assert _event(ok) == {"status": "success", "external_id": ok, "message": f"Spark driver pod {ok} Succeeded"}
    k8s.outcome, k8s.exit_code = "Failed", 3
    bad = _pod(k8s, "bad-driver")
    event = _event(bad)
    assert event["status"] == "error" and "exit code 3" in event["message"]


def test_trigger_deleted_pod_and_unavailable_api_fire_errors(k8s):
    assert "the pod was deleted" in _event("etl:gone-driver")["message"]
    app_id = _pod(k8s)
    k8s.unavailable = True
    event = _event(app_id, max_consecutive_errors=3)
    assert event["status"] == "error" and "3 times in a row" in event["message"] and "may still run" in event["message"]


def test_trigger_names_the_missing_permission_when_the_api_refuses(k8s):
    app_id = _pod(k8s)
    k8s.forbidden = True
    with pytest.raises(KubernetesApiRefused, match=r"get pods: HTTP 403 Forbidden.*needs 'get pods'.*is forbidden"):
        _event(app_id)  # not retried: the task fails with the API's own words


def test_trigger_serialises_to_json_and_round_trips():
    trigger = KubernetesDriverPodTrigger("etl:x-driver", kubernetes_conn_id="k8s_prod", poll_interval=20)
    classpath, kwargs = trigger.serialize()
    module, _, name = classpath.rpartition(".")
    rebuilt = getattr(__import__(module, fromlist=[name]), name)(**kwargs)
    assert rebuilt.serialize() == (classpath, kwargs)
    assert json.loads(json.dumps(kwargs)) == {
        "app_id": "etl:x-driver",
        "kubernetes_conn_id": "k8s_prod",
        "poll_interval": 20.0,
        "max_consecutive_errors": 5,
    }
