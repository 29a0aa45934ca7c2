"""Fixtures: a dbt Cloud stand-in over TLS behind the real hook (requests) and trigger (aiohttp).

One server per session (the connection and the certificate stay the same), answering for a fresh
:class:`DbtCloudAccount` per test. The hook only builds ``https://`` URLs, so the server speaks TLS
with a certificate generated for the session; requests trusts it through ``REQUESTS_CA_BUNDLE``,
aiohttp (whose default context exists from import on) through ``LocalCertificate.trust_in``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from resumable_jobs.local.standins.dbt_cloud import ACCOUNT_ID, API_TOKEN, DbtCloudAccount
from resumable_jobs.local.standins.server import serve_in_thread
from resumable_jobs.local.tls import LocalCertificate


class _Current:
    """The model the session's server answers for: whichever account the running test set."""

    account: DbtCloudAccount | None = None

    def authorize(self, headers: Any) -> Any:
        return self.account.authorize(headers) if self.account else (503, {"status": {"code": 503}})

    def handle(self, method: str, path: str, body: dict[str, Any]) -> Any:
        return self.account.handle(method, path, body)


@pytest.fixture(scope="session")
def dbt_cloud_server(tmp_path_factory):
    certificate = LocalCertificate.create(tmp_path_factory.mktemp("dbt-tls"))
    bundle = certificate.bundle(certificate.cert_file.parent / "bundle.pem")
    import aiohttp.connector

    certificate.trust_in(aiohttp.connector._SSL_CONTEXT_VERIFIED)  # the trigger's default context
    current = _Current()
    with serve_in_thread(current, "dbt_cloud", tls=certificate.server_context()) as url:
        yield current, url, bundle


@pytest.fixture
def dbt_cloud(dbt_cloud_server, monkeypatch):
    """A fresh account; ``dbt_cloud_default`` points at it for the hook and the trigger."""
    current, url, bundle = dbt_cloud_server
    account = DbtCloudAccount()
    current.account = account
    connection = {
        "conn_type": "dbt_cloud",
        "host": url.removeprefix("https://"),
        "login": str(ACCOUNT_ID),
        "password": API_TOKEN,
    }
    monkeypatch.setenv("AIRFLOW_CONN_DBT_CLOUD_DEFAULT", json.dumps(connection))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    yield account
    current.account = None


def pytest_collection_modifyitems(config, items):
    """The upstream hook's own deprecation noise (ProvidersManager, aiohttp) is not ours to fix."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.filterwarnings("ignore:ProvidersManager.hooks is deprecated"))
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning:aiohttp.*"))
