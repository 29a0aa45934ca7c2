"""Parameters one cluster manager cannot honour fail the task when it starts, before anything is submitted.

The connection - and so the cluster manager - is only known when the task runs, so upstream's
YARN/Kubernetes parameters are accepted at construction and refused at the start of execute on a
cluster manager that cannot apply them, naming the reason. Nothing reaches the cluster first.
"""

from __future__ import annotations

import json

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try


def _run(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "/apps/job.py")
    kwargs.setdefault("status_poll_interval", 0)
    store = InMemoryTaskStateStore()
    run_try(SparkSubmitOperator(**kwargs), make_context(store, FakeTaskInstance()))
    return store


@pytest.mark.parametrize(
    ("parameter", "value", "reason"),
    [
        ("num_executors", 4, "total_executor_cores"),
        ("keytab", "/etc/k.keytab", "Kerberos for spark-submit"),
        ("principal", "etl@EXAMPLE", "Kerberos for spark-submit"),
        ("use_krb5ccache", True, "Kerberos for spark-submit"),
        ("proxy_user", "etl", "cannot impersonate"),
        ("spark_binary", "spark3-submit", "no spark-submit runs"),
        ("properties_file", "/etc/spark.conf", "conf="),
        ("verbose", True, "no spark-submit runs"),
        ("yarn_queue", "etl", "YARN only"),
        ("yarn_rm_auth", object(), "ResourceManager"),
    ],
)
def test_spark_submit_parameters_on_a_standalone_master_fail_before_submitting(master, parameter, value, reason):
    with pytest.raises(TypeError, match=rf"submits to standalone.*{parameter}=.*{reason}"):
        _run(**{parameter: value})
    assert master.creates == []


def test_every_refused_parameter_is_named_at_once(master):
    with pytest.raises(TypeError) as raised:
        _run(num_executors=2, verbose=True)
    assert "num_executors=" in str(raised.value) and "verbose=" in str(raised.value)


@pytest.mark.parametrize(("parameter", "value"), [("yarn_queue", "etl"), ("yarn_rm_auth", object())])
def test_yarn_parameters_on_kubernetes_fail_before_submitting(k8s, standin_spark_submit, parameter, value):
    with pytest.raises(TypeError, match=rf"submits to Kubernetes.*{parameter}=.*(YARN only|ResourceManager)"):
        _run(spark_binary=str(standin_spark_submit.path), **{parameter: value})
    assert k8s.created == []


def test_client_deploy_mode_in_a_yarn_connection_fails_before_submitting(yarn, standin_spark_submit, monkeypatch):
    monkeypatch.setenv(
        "AIRFLOW_CONN_SPARK_DEFAULT",
        json.dumps({"conn_type": "spark", "host": "yarn", "extra": json.dumps({"deploy-mode": "client"})}),
    )
    with pytest.raises(TypeError, match="deploy-mode extra is 'client'.*dies with the worker"):
        _run(spark_binary=str(standin_spark_submit.path))
    assert yarn.submissions == []


def test_yarn_without_a_resource_manager_address_fails_before_submitting(yarn, standin_spark_submit, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_SPARK_DEFAULT", json.dumps({"conn_type": "spark", "host": "yarn"}))
    with pytest.raises(ValueError, match="yarn_resourcemanager_webapp_address"):
        _run(spark_binary=str(standin_spark_submit.path))
    assert yarn.submissions == []


def test_connection_spark_binary_extra_is_limited_to_upstreams_names(yarn, monkeypatch):
    monkeypatch.setenv(
        "AIRFLOW_CONN_SPARK_DEFAULT",
        json.dumps({"conn_type": "spark", "host": "yarn", "extra": json.dumps({"spark-binary": "/tmp/evil"})}),
    )
    with pytest.raises(ValueError, match="spark-binary extra must be one of"):
        _run()
    assert yarn.submissions == []


def test_a_local_master_is_refused_naming_why(monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_SPARK_DEFAULT", json.dumps({"conn_type": "spark", "host": "local[*]"}))
    with pytest.raises(ValueError, match="local master runs the driver inside the Airflow worker"):
        _run()
