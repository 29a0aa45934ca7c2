"""The model in the deployments' moto_server process: the same behaviour across processes.

``LocalMotoServer`` runs ``python -m resumable_jobs.local.moto_models``; this checks that the
Redshift Data model is installed there and that a drill can hold and release statements over
HTTP (moto's state-manager endpoint), with upstream's real hook as the client.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def moto_server():
    from resumable_jobs.local.moto_server import LocalMotoServer

    with LocalMotoServer() as server:
        yield server


def test_a_statement_is_held_over_http_then_released_and_a_token_is_answered_once(moto_server, monkeypatch):
    from airflow.providers.amazon.aws.hooks.redshift_data import RedshiftDataHook

    from resumable_jobs.local.moto_models.redshift_data import hold_statements, release_statements

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_ENDPOINT_URL_REDSHIFT_DATA": moto_server.endpoint_url,
    }.items():
        monkeypatch.setenv(name, value)
    client = RedshiftDataHook(aws_conn_id=None, region_name=moto_server.region).conn
    hold_statements(moto_server.endpoint_url)
    try:
        request = {"Sql": "SELECT 1", "Database": "dev", "ClusterIdentifier": "c1", "ClientToken": "drill-g1-abc"}
        first, again = client.execute_statement(**request)["Id"], client.execute_statement(**request)["Id"]
        assert first == again
        assert client.describe_statement(Id=first)["Status"] == "STARTED"
        assert [s["Id"] for s in client.list_statements(Status="ALL")["Statements"]] == [first]
    finally:
        release_statements(moto_server.endpoint_url)
    assert client.describe_statement(Id=first)["Status"] == "FINISHED"
