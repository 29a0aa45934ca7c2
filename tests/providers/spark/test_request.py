"""The CreateSubmissionRequest body: what the master receives for Python and jar applications."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.request import PYTHON_RUNNER
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try


def _request(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    return SparkSubmitOperator(**kwargs).create_request()


def test_python_application_runs_through_python_runner_on_the_workers_copy():
    body = _request(
        application="hdfs://nn/apps/etl.py", application_args=["2026-01-01", 7], py_files="/opt/lib/a.zip,/opt/lib/b.py"
    )
    assert body["action"] == "CreateSubmissionRequest"
    assert body["appResource"] == "hdfs://nn/apps/etl.py"
    assert body["mainClass"] == PYTHON_RUNNER
    # PythonRunner's arguments: the main file (the worker downloads appResource into the driver's
    # working directory), the py-files, then the application's own arguments, all strings
    assert body["appArgs"] == ["etl.py", "/opt/lib/a.zip,/opt/lib/b.py", "2026-01-01", "7"]
    assert body["sparkProperties"]["spark.submit.pyFiles"] == "/opt/lib/a.zip,/opt/lib/b.py"
    assert body["sparkProperties"]["spark.submit.deployMode"] == "cluster"
    assert "spark.master" not in body["sparkProperties"]


def test_jar_application_runs_its_main_class_and_ships_the_jar_to_executors():
    body = _request(
        application="/apps/etl.jar", java_class="com.example.Etl", jars="/libs/dep.jar", application_args=["x"]
    )
    assert body["mainClass"] == "com.example.Etl"
    assert body["appArgs"] == ["x"]
    assert body["sparkProperties"]["spark.jars"] == "/libs/dep.jar,/apps/etl.jar"


def test_upstream_parameters_become_spark_properties_and_win_over_conf():
    body = _request(
        application="/apps/job.py",
        name="nightly",
        conf={"spark.driver.memory": "4g", "spark.eventLog.enabled": True, "spark.sql.shuffle.partitions": 8},
        driver_memory="512m",
        driver_cores=1,
        executor_memory="1g",
        executor_cores=2,
        total_executor_cores=4,
        files="/data/lookup.csv",
        env_vars={"MODE": "prod", "RETRIES": 3},
    )
    props = body["sparkProperties"]
    assert props["spark.app.name"] == "nightly"
    assert props["spark.driver.memory"] == "512m"  # the named parameter wins
    assert props["spark.driver.cores"] == "1"
    assert props["spark.executor.memory"] == "1g"
    assert props["spark.executor.cores"] == "2"
    assert props["spark.cores.max"] == "4"
    assert props["spark.files"] == "/data/lookup.csv"
    assert props["spark.eventLog.enabled"] == "true"
    assert props["spark.sql.shuffle.partitions"] == "8"
    assert body["environmentVariables"] == {"MODE": "prod", "RETRIES": "3"}


def test_jar_without_java_class_fails_on_a_standalone_master_before_anything_is_submitted(master):
    # spark-submit reads a jar's manifest (YARN, Kubernetes), the REST server does not: the
    # connection, known only when the task runs, decides whether java_class is needed.
    op = SparkSubmitOperator(task_id="t", application="/apps/etl.jar")
    store = InMemoryTaskStateStore()
    with pytest.raises(ValueError, match="java_class is required for a jar application"):
        run_try(op, make_context(store, FakeTaskInstance()))
    assert master.creates == []
    assert store.get(SparkSubmitOperator.external_id_key) is None


def test_fingerprint_follows_the_rendered_request(master):
    a = SparkSubmitOperator(task_id="t", application="/apps/job.py", application_args=["1"])
    b = SparkSubmitOperator(task_id="t", application="/apps/job.py", application_args=["1"])
    c = SparkSubmitOperator(task_id="t", application="/apps/job.py", application_args=["2"])
    assert a.request_fingerprint({}) == b.request_fingerprint({})
    assert a.request_fingerprint({}) != c.request_fingerprint({})


def test_standalone_fingerprint_is_unchanged_so_retries_in_flight_keep_reconnecting(master):
    # The fingerprint stored by earlier releases is sha256 of the sorted request body; a retry
    # after an upgrade must compute the same value, or it would submit a second driver.
    import hashlib
    import json

    op = SparkSubmitOperator(task_id="t", application="/apps/job.py", application_args=["1"], driver_memory="1g")
    body = json.dumps(op.create_request(), sort_keys=True, default=str)
    assert op.request_fingerprint({}) == hashlib.sha256(body.encode()).hexdigest()
