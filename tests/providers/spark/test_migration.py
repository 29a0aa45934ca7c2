"""A task switched from upstream's SparkSubmitOperator in the middle of its retries reconnects.

Upstream's operator stores the application id under ``spark_job_id``; on YARN and Kubernetes
the first try of this operator continues with it instead of submitting a second application.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try

pytestmark = pytest.mark.durable_only


def _op(binary, **kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "local:///opt/jobs/etl.py")
    kwargs.setdefault("status_poll_interval", 0)
    return SparkSubmitOperator(spark_binary=str(binary.path), **kwargs)


def _upstream_try(store: InMemoryTaskStateStore, app_id: str) -> FakeTaskInstance:
    store.set("spark_job_id", app_id)  # what upstream's try 1 left behind
    return FakeTaskInstance(max_tries=3).next_try()


def test_yarn_application_submitted_by_upstream_is_followed_to_the_end(yarn, standin_spark_submit, task_logs):
    upstream_app = yarn.register(name="etl")
    store = InMemoryTaskStateStore()
    result = run_try(_op(standin_spark_submit), make_context(store, _upstream_try(store, upstream_app)))
    assert result == upstream_app and yarn.submissions[1:] == []  # no second application
    assert store.get("spark_driver_id") == upstream_app and store.get("spark_job_id") is None
    assert any("stored by upstream's SparkSubmitOperator" in m for m in task_logs.at("info"))


def test_driver_pod_submitted_by_upstream_is_followed_to_the_end(k8s, standin_spark_submit):
    code, _ = k8s.dispatch("POST", "/api/v1/namespaces/etl/pods", {"metadata": {"name": "up-driver"}, "spec": {"containers": []}})
    assert code == 201
    store = InMemoryTaskStateStore()
    result = run_try(_op(standin_spark_submit, deferrable=True), make_context(store, _upstream_try(store, "etl:up-driver")))
    assert result == "etl:up-driver" and len(k8s.created) == 1


def test_a_failed_upstream_application_is_replaced_by_a_new_one(yarn, standin_spark_submit):
    upstream_app = yarn.register()
    yarn.finish(upstream_app, "FAILED", "FAILED", "AM container exited")
    store = InMemoryTaskStateStore()
    result = run_try(_op(standin_spark_submit), make_context(store, _upstream_try(store, upstream_app)))
    assert result != upstream_app and len(yarn.submissions) == 2


def test_an_id_this_operator_stored_wins_over_upstreams(yarn, standin_spark_submit):
    ours, theirs = yarn.register(), yarn.register()
    store = InMemoryTaskStateStore()
    store.set("spark_driver_id", ours)
    result = run_try(_op(standin_spark_submit), make_context(store, _upstream_try(store, theirs)))
    assert result == ours and store.get("spark_job_id") == theirs  # left alone: not ours to move


def test_standalone_keeps_its_key_exactly_as_before(master):
    store = InMemoryTaskStateStore()
    op = SparkSubmitOperator(task_id="spark_job", application="/apps/job.py", status_poll_interval=0)
    run_try(op, make_context(store, _upstream_try(store, "driver-20250101000000-0001")))
    assert len(master.creates) == 1 and store.get("spark_job_id") == "driver-20250101000000-0001"
