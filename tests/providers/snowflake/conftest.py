"""Fixtures: the Snowflake SQL API stand-in behind the real hook and trigger, over real HTTP.

Each test gets a fresh account served from a thread of the test process; the upstream hook
(requests), the upstream trigger (aiohttp) and the operator's own POST all reach it through
:mod:`resumable_jobs.local.standins.snowflake_route`, and sign key-pair JWTs with a private key
whose public half the account has registered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from resumable_jobs.local.standins import snowflake_route
from resumable_jobs.local.standins.server import serve_in_thread
from resumable_jobs.local.standins.snowflake import USER, SnowflakeSqlApi, connection, key_pair


@pytest.fixture(scope="session")
def user_keys():
    """One key pair for the session (RSA generation is the slow part)."""
    return key_pair()


@pytest.fixture
def account(user_keys, monkeypatch):
    """A fresh SQL API account; ``snowflake_default`` signs JWTs the account accepts."""
    private, public = user_keys
    api = SnowflakeSqlApi(active_reads=2)
    api.register_user(USER, public)
    monkeypatch.setenv("AIRFLOW_CONN_SNOWFLAKE_DEFAULT", json.dumps(connection(private)))
    with serve_in_thread(api, "snowflake") as url:
        snowflake_route.install(url)
        try:
            yield api
        finally:
            snowflake_route.uninstall()


def pytest_collection_modifyitems(config, items):
    """The upstream hook's own deprecation noise is not ours to fix."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.filterwarnings("ignore:ProvidersManager.hooks is deprecated"))
            item.add_marker(pytest.mark.filterwarnings("ignore::DeprecationWarning:aiohttp.*"))
