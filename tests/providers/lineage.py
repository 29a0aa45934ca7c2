"""A task instance OpenLineage's macros can read, and an HTTP lineage transport to inject.

The parent-job properties come from the OpenLineage provider's macros, which read the DAG run
(its conf, clear number and logical date) through the task instance; the transport properties
come from the listener's client. These stand-ins give both exactly that and nothing more.
"""

from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from resumable_jobs.testing import FakeTaskInstance

LOGICAL_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
LINEAGE_URL = "http://lineage.example:5000"


def _dag_run() -> SimpleNamespace:
    return SimpleNamespace(conf={}, clear_number=0, logical_date=LOGICAL_DATE, run_after=LOGICAL_DATE)


@dataclass
class LineageTaskInstance(FakeTaskInstance):
    """``FakeTaskInstance`` plus the DAG run OpenLineage's ``lineage_*`` macros look at."""

    dag_run: Any = field(default_factory=_dag_run)

    def get_template_context(self) -> dict[str, Any]:
        return {"dag_run": self.dag_run}


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except (TypeError, ValueError):
        return False
    return True


def http_lineage_transport(monkeypatch: Any) -> None:
    """Make the OpenLineage listener's client send over HTTP to :data:`LINEAGE_URL`."""
    from openlineage.client import OpenLineageClient
    from openlineage.client.transport.http import HttpConfig, HttpTransport

    client = OpenLineageClient(transport=HttpTransport(HttpConfig(url=LINEAGE_URL, endpoint="api/v1/lineage")))
    listener = SimpleNamespace(adapter=SimpleNamespace(get_or_create_openlineage_client=lambda: client))
    monkeypatch.setattr("airflow.providers.openlineage.utils.spark.get_openlineage_listener", lambda: listener)

