"""Fixtures every provider family's tests may use."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def openlineage_enabled(monkeypatch):
    """A (console) OpenLineage transport, so the OpenLineage provider counts itself as enabled.

    (The provider reads its settings afresh on every call when it runs under pytest.)
    """
    pytest.importorskip("airflow.providers.openlineage", reason="the OpenLineage provider is not installed")
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", json.dumps({"type": "console"}))
