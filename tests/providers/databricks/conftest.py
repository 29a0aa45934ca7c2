"""Fixtures: a fake Databricks workspace behind the real hook (requests-mock) and trigger (aiohttp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from resumable_jobs.local.standins.databricks import DatabricksWorkspace
from tests.providers.databricks.fake_workspace import AsyncApiServer


@pytest.fixture(scope="session")
def api_server():
    server = AsyncApiServer().start()
    yield server
    server.stop()


@pytest.fixture
def workspace(api_server, requests_mock, monkeypatch):
    """A fresh workspace; ``databricks_default`` points at it for both the hook and the trigger."""
    fake = DatabricksWorkspace()
    api_server.workspace = fake
    monkeypatch.setenv("AIRFLOW_CONN_DATABRICKS_DEFAULT", api_server.connection_uri_json())
    fake.install(requests_mock, f"http://127.0.0.1:{api_server.port}/api/2.2/jobs/")
    yield fake
    api_server.workspace = None


def pytest_collection_modifyitems(config, items):
    """The upstream hook's own deprecation noise (ProvidersManager, aiohttp auth) is not ours to fix."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.filterwarnings("ignore:ProvidersManager.hooks is deprecated"))
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning:aiohttp.*"))
