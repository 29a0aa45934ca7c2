"""Which REST URL an Airflow connection leads to: upstream spark connections and HTTP-style ones."""

from __future__ import annotations

import json

import pytest

from resumable_jobs.providers.spark.connection import endpoint_from_connection, resolve_endpoint


def _conn(**fields):
    from airflow.sdk import Connection

    fields.setdefault("conn_id", "spark_default")
    return Connection(**fields)


@pytest.mark.parametrize(
    ("fields", "rest_urls"),
    [
        # upstream's spark connection: the port is the RPC port, the REST server is on 6066
        ({"conn_type": "spark", "host": "spark://master.example", "port": 7077}, ("http://master.example:6066",)),
        ({"conn_type": "spark", "host": "spark://master.example:7077"}, ("http://master.example:6066",)),
        # upstream's rest_port / rest_scheme extras are honoured
        (
            {
                "conn_type": "spark",
                "host": "spark://m",
                "port": 7077,
                "extra": json.dumps({"rest_port": 16066, "rest_scheme": "https"}),
            },
            ("https://m:16066",),
        ),
        # HA master list: one URL per master, in order
        ({"conn_type": "spark", "host": "spark://m1:7077,m2:7077"}, ("http://m1:6066", "http://m2:6066")),
        # HTTP-style connections: host, port, scheme as written; defaults 6066 and http
        ({"conn_type": "http", "host": "rest.example", "port": 16066}, ("http://rest.example:16066",)),
        ({"conn_type": "http", "host": "rest.example"}, ("http://rest.example:6066",)),
        ({"conn_type": "http", "host": "rest.example", "port": 443, "schema": "https"}, ("https://rest.example:443",)),
        ({"conn_type": "generic", "host": "https://rest.example:8443"}, ("https://rest.example:8443",)),
    ],
)
def test_connection_to_rest_urls(fields, rest_urls):
    assert endpoint_from_connection(_conn(**fields)).rest_urls == rest_urls


def test_master_ui_defaults_to_port_8080_and_can_be_set():
    assert endpoint_from_connection(_conn(conn_type="spark", host="spark://m")).master_ui_url == "http://m:8080"
    custom = _conn(conn_type="http", host="m", extra=json.dumps({"master_ui_url": "https://spark.example/ui/"}))
    assert endpoint_from_connection(custom).master_ui_url == "https://spark.example/ui"


def test_connection_without_host_is_a_clear_error():
    with pytest.raises(ValueError, match="has no host.*spark://"):
        endpoint_from_connection(_conn(conn_type="spark"))


def test_connection_is_read_through_airflow(monkeypatch):
    monkeypatch.setenv(
        "AIRFLOW_CONN_MY_SPARK", json.dumps({"conn_type": "spark", "host": "spark://env-master", "port": 7077})
    )
    assert resolve_endpoint("my_spark").rest_urls == ("http://env-master:6066",)
