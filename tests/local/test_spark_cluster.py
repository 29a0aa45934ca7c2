"""LocalSparkCluster's behaviour that needs no running cluster (the rest is exercised by the
``spark_cluster`` tests, whose session fixture also checks that ``stop()`` leaves no process)."""

from __future__ import annotations

import json

import pytest

from resumable_jobs.providers.spark.connection import endpoint_from_connection
from resumable_jobs.local.spark_cluster import JavaNotFoundError, LocalSparkCluster, LocalSparkClusterError


def test_missing_java_names_the_install_command(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no java on it
    cluster = LocalSparkCluster(work_dir=tmp_path / "spark")
    with pytest.raises(JavaNotFoundError, match=r"apt-get install -y openjdk-17-jre-headless"):
        cluster.start()
    assert cluster.pids == {}


def test_explicit_java_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(JavaNotFoundError, match="does not exist"):
        LocalSparkCluster(java=str(tmp_path / "java")).start()


def test_old_java_is_refused_with_the_version(tmp_path):
    fake_java = tmp_path / "java"
    fake_java.write_text("#!/bin/sh\necho 'openjdk version \"11.0.2\" 2019-01-15' >&2\n")
    fake_java.chmod(0o755)
    with pytest.raises(JavaNotFoundError, match="is Java 11; Spark 4 needs Java 17"):
        LocalSparkCluster(java=str(fake_java)).start()


def test_addresses_need_a_started_cluster():
    with pytest.raises(LocalSparkClusterError, match="not started"):
        LocalSparkCluster().rest_url  # noqa: B018


def test_connection_env_matches_what_the_operator_reads():
    from airflow.sdk import Connection

    cluster = LocalSparkCluster()
    cluster._ports = {"master": 17077, "master_ui": 18080, "rest": 16066, "worker": 1, "worker_ui": 2}
    for style in ("spark", "http"):
        (value,) = cluster.airflow_connection_env("x", style=style).values()
        fields = json.loads(value)
        extra = json.dumps(fields.pop("extra"))
        endpoint = endpoint_from_connection(Connection(conn_id="x", extra=extra, **fields))
        assert endpoint.rest_urls == ("http://127.0.0.1:16066",)
        assert endpoint.master_ui_url == "http://127.0.0.1:18080"
