"""Fixtures for the Spark family: a fake master (unit tests) and a real local cluster (integration)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.providers.spark.fake_master import FakeSparkMaster

APPS = Path(__file__).parent / "apps"
FAKE_REST_URL = "http://spark-master.test:6066"


def _set_connection(monkeypatch: pytest.MonkeyPatch, conn_id: str, conn: dict) -> None:
    monkeypatch.setenv(f"AIRFLOW_CONN_{conn_id.upper()}", json.dumps(conn))


@pytest.fixture
def master(requests_mock, monkeypatch):
    """A fake master behind requests-mock; ``spark_default`` is an upstream-style spark connection to it."""
    fake = FakeSparkMaster()
    fake.mount(requests_mock, FAKE_REST_URL)
    _set_connection(
        monkeypatch, "spark_default", {"conn_type": "spark", "host": "spark://spark-master.test", "port": 7077}
    )
    return fake


@pytest.fixture
def served_master(requests_mock, monkeypatch):
    """A fake master on real HTTP (for the trigger) and behind requests-mock (for the worker side)."""
    fake = FakeSparkMaster()
    with fake.serve() as url:
        fake.mount(requests_mock, url)
        host, port = url.removeprefix("http://").split(":")
        _set_connection(monkeypatch, "spark_default", {"conn_type": "http", "host": host, "port": int(port)})
        fake.url = url
        yield fake


@pytest.fixture(scope="session")
def spark_cluster():
    """One real standalone master (REST on) and one worker from pyspark, for the whole session."""
    from resumable_jobs.local.spark_cluster import LocalSparkCluster

    with LocalSparkCluster() as cluster:
        groups = list(cluster.pids.values())
        yield cluster
    for pgid in groups:  # stop() must leave nothing behind: daemons, drivers, executors
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            continue
        raise AssertionError(f"process group {pgid} of the local Spark cluster is still alive after stop()")


@pytest.fixture
def cluster(spark_cluster, monkeypatch):
    """The session cluster with ``spark_default`` pointing at it; kills drivers a test left running."""
    for key, value in spark_cluster.airflow_connection_env("spark_default", style="spark").items():
        monkeypatch.setenv(key, value)
    for key, value in spark_cluster.airflow_connection_env("spark_http", style="http").items():
        monkeypatch.setenv(key, value)
    yield spark_cluster
    spark_cluster.kill_active_drivers()
    assert not spark_cluster.active_drivers(), "a driver outlived its test"


# ---------------------------------------------------------------- YARN and Kubernetes stand-ins
@pytest.fixture
def standin_spark_submit(tmp_path, monkeypatch):
    """The stand-in ``spark-submit`` (see resumable_jobs.local.spark_submit_standin) and its record file."""
    from resumable_jobs.local.spark_submit_standin import write_spark_submit_standin

    record = tmp_path / "spark-submit-calls.jsonl"
    monkeypatch.setenv("RJ_SPARK_SUBMIT_RECORD", str(record))
    return SimpleNamespace(path=write_spark_submit_standin(tmp_path), record=record)


def submit_calls(binary) -> list[dict]:
    """What the stand-in spark-submit received, one dict per run."""
    if not binary.record.exists():
        return []
    return [json.loads(line) for line in binary.record.read_text().splitlines()]


@pytest.fixture
def yarn(monkeypatch):
    """A stand-in ResourceManager; ``spark_default`` is an upstream-style ``yarn`` connection to it."""
    from resumable_jobs.local.yarn_resource_manager import LocalResourceManager

    rm = LocalResourceManager()
    with rm.serve() as url:
        monkeypatch.setenv("RJ_STANDIN_RM_URL", url)
        _set_connection(
            monkeypatch,
            "spark_default",
            {"conn_type": "spark", "host": "yarn", "extra": json.dumps({"yarn_resourcemanager_webapp_address": url})},
        )
        yield rm


@pytest.fixture
def k8s(monkeypatch, tmp_path):
    """A stand-in Kubernetes API; ``spark_default`` is a ``k8s://`` connection (namespace etl) to it."""
    from resumable_jobs.local.kubernetes_api import LocalKubernetesApi

    api = LocalKubernetesApi()
    with api.serve() as url:
        kubeconfig = api.write_kubeconfig(tmp_path / "kubeconfig")
        monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
        _set_connection(
            monkeypatch,
            "kubernetes_default",
            {"conn_type": "kubernetes", "extra": json.dumps({"kube_config_path": str(kubeconfig)})},
        )
        _set_connection(
            monkeypatch,
            "spark_default",
            {"conn_type": "spark", "host": f"k8s://{url}", "extra": json.dumps({"namespace": "etl"})},
        )
        yield api
