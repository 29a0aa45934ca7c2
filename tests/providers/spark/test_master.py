"""Which cluster manager a connection names: upstream's spark connections and this package's extras."""

from __future__ import annotations

import json

import pytest

from resumable_jobs.providers.spark.master import ClusterManagerKind, spark_connection_from


def _conn(**fields):
    from airflow.sdk import Connection

    fields.setdefault("conn_id", "spark_default")
    if isinstance(fields.get("extra"), dict):
        fields["extra"] = json.dumps(fields["extra"])
    return Connection(**fields)


@pytest.mark.parametrize(
    ("fields", "kind", "master"),
    [
        ({"conn_type": "spark", "host": "yarn"}, ClusterManagerKind.YARN, "yarn"),
        # upstream's UI form: the master URL in the host, the API server port in the port field
        ({"conn_type": "spark", "host": "k8s://https://api.example", "port": 6443}, ClusterManagerKind.KUBERNETES, "k8s://https://api.example:6443"),
        ({"conn_type": "spark", "host": "k8s://https://api.example:6443"}, ClusterManagerKind.KUBERNETES, "k8s://https://api.example:6443"),
        ({"conn_type": "spark", "host": "spark://m1:7077,m2:7077"}, ClusterManagerKind.STANDALONE, "spark://m1:7077,m2:7077"),
        ({"conn_type": "spark", "host": "master.example", "port": 7077}, ClusterManagerKind.STANDALONE, "spark://master.example:7077"),
        ({"conn_type": "http", "host": "rest.example", "port": 6066}, ClusterManagerKind.STANDALONE, "rest.example"),
    ],
)
def test_the_connection_selects_the_cluster_manager_as_upstream_does(fields, kind, master):
    connection = spark_connection_from(_conn(**fields))
    assert (connection.kind, connection.master) == (kind, master)


def test_upstream_extras_are_read():
    connection = spark_connection_from(
        _conn(
            conn_type="spark",
            host="yarn",
            extra={
                "queue": "etl",
                "deploy-mode": "cluster",
                "spark-binary": "spark3-submit",
                "principal": "etl@EXAMPLE",
                "yarn_resourcemanager_webapp_address": "rm1:8088, https://rm2:8090/",
            },
        )
    )
    assert (connection.queue, connection.deploy_mode, connection.spark_binary, connection.principal) == (
        "etl",
        "cluster",
        "spark3-submit",
        "etl@EXAMPLE",
    )
    assert connection.resource_manager_urls == ("http://rm1:8088", "https://rm2:8090")


def test_kubernetes_api_url_and_connection_extras():
    connection = spark_connection_from(
        _conn(conn_type="spark", host="k8s://api.example:443", extra={"namespace": "etl", "kubernetes_conn_id": "k8s_prod"})
    )
    assert connection.kubernetes_api_url == "https://api.example:443"  # Spark's default scheme
    assert (connection.namespace, connection.kubernetes_conn_id) == ("etl", "k8s_prod")


@pytest.mark.parametrize("host", ["local", "local[4]", "mesos://m:5050"])
def test_masters_that_cannot_be_durable_are_refused(host):
    with pytest.raises(ValueError, match="dies with the worker"):
        spark_connection_from(_conn(conn_type="spark", host=host))
