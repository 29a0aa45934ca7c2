"""A BigQuery jobs API behind requests-mock, reached through the real hook and client (and our trigger).

The operator talks to BigQuery through the upstream ``BigQueryHook`` and google-cloud-bigquery's
``Client``; only the HTTP transport is replaced. The jobs model is the one the production crash
suite serves from a process of its own (:mod:`resumable_jobs.local.standins.bigquery`). Anonymous
credentials stand in for a service account, and a connection from the environment stands in for
the Airflow metadata database. Our trigger reads the same model served over real HTTP on
127.0.0.1 (``access.BIGQUERY_API`` points there).
"""

from __future__ import annotations

import json

import pytest

from resumable_jobs.local.standins.bigquery import PROJECT, BigQueryJobs


@pytest.fixture
def bigquery(bigquery_api):
    """The fake BigQuery, reachable through ``BigQueryHook`` with the default connection."""
    fake, _ = bigquery_api
    return fake


@pytest.fixture
def bigquery_api(monkeypatch):
    """``(fake BigQuery, the requests-mock Mocker serving it)``, for tests that answer more endpoints."""
    import requests_mock
    from airflow.providers.google.cloud.hooks.bigquery import BigQueryHook
    from google.auth.credentials import AnonymousCredentials

    monkeypatch.setenv(
        "AIRFLOW_CONN_GOOGLE_CLOUD_DEFAULT",
        json.dumps({"conn_type": "google_cloud_platform", "extra": {"project": PROJECT, "use_legacy_sql": False}}),
    )
    monkeypatch.setattr(BigQueryHook, "get_credentials_and_project_id", lambda self: (AnonymousCredentials(), PROJECT))
    from airflow.providers.google.common.hooks.base_google import GoogleBaseHook  # what our trigger builds

    monkeypatch.setattr(
        GoogleBaseHook, "get_credentials_and_project_id", lambda self: (AnonymousCredentials(), PROJECT)
    )
    from resumable_jobs.local.standins.server import serve_in_thread
    from resumable_jobs.providers.google import access

    fake = BigQueryJobs()
    # The same model over real HTTP for our trigger (aiohttp does not go through requests-mock).
    with serve_in_thread(fake, "bigquery") as url, requests_mock.Mocker(case_sensitive=True) as mocker:
        monkeypatch.setattr(access, "BIGQUERY_API", url)
        fake.install(mocker)
        yield fake, mocker
