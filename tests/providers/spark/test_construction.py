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
        ("post_submit_commands", ["echo hi"], "downstream task"),
        ("yarn_track_via_rm_api", False, "always on here"),
        ("track_driver_via_k8s_api", False, "always on here"),
    ],
)
def test_parameters_no_cluster_manager_supports_are_construction_errors_naming_the_alternative(
    parameter, value, alternative
):
    with pytest.raises(TypeError, match=rf"{parameter}=.*{alternative}"):
        _op(**{parameter: value})


def test_upstream_tracking_flags_set_true_are_accepted_because_tracking_is_always_on():
    _op(yarn_track_via_rm_api=True, track_driver_via_k8s_api=True)


def test_client_mode_is_refused_with_the_reason():
    with pytest.raises(TypeError, match="deploy_mode='client' runs the driver inside the Airflow worker"):
        _op(deploy_mode="client")
    accepted = _op(deploy_mode="cluster")  # upstream DAGs often spell the default out
    assert accepted.create_request()["sparkProperties"]["spark.submit.deployMode"] == "cluster"


def test_all_unsupported_parameters_are_reported_at_once():
    with pytest.raises(TypeError) as raised:
        _op(post_submit_commands=["x"], yarn_track_via_rm_api=False)
    assert "post_submit_commands=" in str(raised.value) and "yarn_track_via_rm_api=" in str(raised.value)


def test_upstream_yarn_and_kubernetes_parameters_are_accepted_at_construction():
    op = _op(
        num_executors=4,
        yarn_queue="etl",
        keytab="/etc/k.keytab",
        principal="etl@EXAMPLE",
        proxy_user="etl",
        use_krb5ccache=True,
        properties_file="/etc/spark.conf",
        verbose=True,
        spark_binary="spark3-submit",
    )
    assert (op.num_executors, op.yarn_queue, op.spark_binary, op.verbose) == (4, "etl", "spark3-submit", True)
    assert {"keytab", "principal", "proxy_user", "properties_file"} <= set(op.template_fields)


def test_yarn_rm_auth_cannot_go_to_the_triggerer():
    with pytest.raises(ValueError, match="yarn_rm_auth cannot reach the triggerer"):
        _op(yarn_rm_auth=object(), deferrable=True)
    _op(yarn_rm_auth=object(), deferrable=False)


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
        "resumable_jobs.providers.spark.yarn",
        "resumable_jobs.providers.spark.kubernetes",
        "resumable_jobs.providers.spark.standalone",
        "resumable_jobs.local",
        "kubernetes",
        "kubernetes_asyncio",
        "airflow.providers.cncf",
    )
    assert "resumable_jobs.providers.spark.operator" in loaded  # the check saw the import
    assert [m for m in loaded if m.startswith(heavy_prefixes)] == []


def test_every_spark_trigger_is_registered_with_the_provider():
    import importlib
    import inspect

    from resumable_jobs.provider_info import get_provider_info

    modules = [m for entry in get_provider_info()["triggers"] for m in entry["python-modules"]]
    assert set(modules) >= {
        "resumable_jobs.providers.spark.trigger",
        "resumable_jobs.providers.spark.yarn.trigger",
        "resumable_jobs.providers.spark.kubernetes.trigger",
    }
    from airflow.triggers.base import BaseTrigger

    for name in modules:
        module = importlib.import_module(name)
        own = [c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == name]
        assert any(issubclass(c, BaseTrigger) for c in own), name


def test_reconnect_on_retry_is_upstreams_deprecated_name_of_durable():
    with pytest.warns(DeprecationWarning, match="reconnect_on_retry is upstream's deprecated name of durable"):
        op = _op(reconnect_on_retry=False)
    assert op.durable is False


def test_upstream_defaults_for_name_polling_and_colour():
    from airflow.sdk import BaseOperator

    op = _op()
    assert op.create_request()["sparkProperties"]["spark.app.name"] == "arrow-spark"
    assert op.status_poll_interval == 1
    assert SparkSubmitOperator.ui_color == BaseOperator.ui_color
