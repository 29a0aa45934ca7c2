"""Parsing a DAG that imports our operators must not load the Databricks provider or HTTP clients."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from airflow.sdk import BaseOperator
class Plain(BaseOperator):
    def execute(self, context):
        pass
Plain(task_id="plain")  # what any operator costs (Airflow 3.0 loads its bundled providers here)
baseline = set(sys.modules)
from resumable_jobs.providers.databricks import DatabricksRunNowOperator, DatabricksSubmitRunOperator
DatabricksSubmitRunOperator(task_id="a", tasks=[{"task_key": "x"}], deferrable=True)
DatabricksRunNowOperator(task_id="b", job_id=1)
print(json.dumps({"new": sorted(set(sys.modules) - baseline), "all": sorted(sys.modules), "airflow": sorted(baseline)}))
"""

HEAVY = (
    "aiohttp",
    "requests",
    "databricks",
    "tenacity",
    "azure",
    "google.cloud",
    "boto3",
    "botocore",
    "pyspark",
)


def test_import_and_construction_load_no_provider_modules_and_no_http_clients():
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    modules = json.loads(out.stdout.strip().splitlines()[-1])
    new = modules["new"]
    assert [m for m in new if m.startswith("airflow.providers")] == []
    assert [m for m in new if m.split(".")[0] in HEAVY or m.startswith(HEAVY)] == []
    loaded = modules["all"]
    for heavy in (
        "airflow.providers.databricks.operators.databricks",
        "airflow.providers.databricks.hooks.databricks",
        "airflow.providers.databricks.triggers.databricks",
        "aiohttp",
    ):
        assert heavy not in loaded or heavy in modules["airflow"]  # Airflow 3.0's BaseOperator loads aiohttp
