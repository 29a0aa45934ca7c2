"""What a DAG author sees when building the operator: errors, warnings, defaults, import cost."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.links import SparkMasterUiLink
from resumable_jobs.providers.spark.trigger import SparkDriverTrigger


def _op(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "/apps/job.py")
    return SparkSubmitOperator(**kwargs)


@pytest.mark.parametrize(
    ("parameter", "value", "alternative"),
    [
        ("num_executors", 4, "total_executor_cores"),
        ("yarn_queue", "etl", "airflow.providers.apache.spark"),
        ("keytab", "/etc/k.keytab", "Kerberized"),
        ("principal", "etl@EXAMPLE", "Kerberized"),
        ("proxy_user", "etl", "airflow.providers.apache.spark"),
        ("spark_binary", "spark3-submit", "REST server"),
        ("properties_file", "/etc/spark.conf", "conf="),
        ("track_driver_via_k8s_api", True, "Kubernetes"),
        ("post_submit_commands", ["echo hi"], "downstream task"),
        ("reconnect_on_retry", True, "durable="),
    ],
)
def test_parameters_for_other_cluster_managers_are_construction_errors_naming_the_alternative(
    parameter, value, alternative
):
    with pytest.raises(TypeError, match=rf"{parameter}=.*{alternative}"):
        _op(**{parameter: value})


def test_client_mode_is_refused_with_the_reason():
    with pytest.raises(TypeError, match="deploy_mode='client' runs the driver inside the Airflow worker"):
        _op(deploy_mode="client")
    accepted = _op(deploy_mode="cluster")  # upstream DAGs often spell the default out
    assert accepted.create_request()["sparkProperties"]["spark.submit.deployMode"] == "cluster"


def test_all_unsupported_parameters_are_reported_at_once():
    with pytest.raises(TypeError) as raised:
        _op(num_executors=2, keytab="/k")
    assert "num_executors=" in str(raised.value) and "keytab=" in str(raised.value)


def test_deferrable_without_waiting_warns_with_the_fix():
    with pytest.warns(UserWarning, match="Set wait_for_termination=True"):
        _op(deferrable=True, wait_for_termination=False)


def test_deferrable_defaults_to_the_operators_config(monkeypatch):
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "True")
    assert _op().deferrable is True
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "False")
    assert _op().deferrable is False


def test_common_model_defaults():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        op = _op()
    assert op.wait_for_termination is True
    assert op.conn_id == "spark_default"
    assert type(op).external_id_key == "spark_driver_id"
    assert [type(link) for link in op.operator_extra_links] == [SparkMasterUiLink]
    assert {"application", "application_args", "conf", "env_vars", "py_files", "jars"} <= set(op.template_fields)


def test_trigger_serialises_to_an_importable_classpath_and_round_trips():
    trigger = SparkDriverTrigger("driver-1", ["http://m1:6066", "http://m2:6066/"], poll_interval=7)
    classpath, kwargs = trigger.serialize()
    module, _, name = classpath.rpartition(".")
    rebuilt = getattr(__import__(module, fromlist=[name]), name)(**kwargs)
    assert rebuilt.serialize() == (classpath, kwargs)
    assert kwargs == {
        "driver_id": "driver-1",
        "rest_urls": ["http://m1:6066", "http://m2:6066"],
        "poll_interval": 7.0,
        "request_timeout": 30.0,
        "max_consecutive_errors": 5,
    }
    json.dumps(kwargs)  # the triggerer stores kwargs as JSON


def test_importing_the_operator_loads_no_provider_http_client_or_spark():
    code = textwrap.dedent(
        """
        import json, sys
        import airflow.sdk
        before = set(sys.modules)
        from resumable_jobs.providers.spark import SparkSubmitOperator
        print(json.dumps(sorted(set(sys.modules) - before)))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    heavy_prefixes = (
        "airflow.providers.apache.spark.operators",
        "airflow.providers.apache.spark.hooks",
        "airflow.providers.http",
        "requests",
        "urllib3",
        "aiohttp",
        "pyspark",
        "py4j",
        "boto3",
        "botocore",
        "google.cloud",
        "resumable_jobs.providers.spark.trigger",
        "resumable_jobs.local.spark_cluster",
    )
    assert "resumable_jobs.providers.spark.operator" in loaded  # the check saw the import
    assert [m for m in loaded if m.startswith(heavy_prefixes)] == []
