"""Parsing a DAG that imports the dbt Cloud operator must not load the dbt Cloud provider or HTTP clients."""

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
import resumable_jobs.providers.dbt
from resumable_jobs.providers.dbt import DbtCloudRunJobOperator
DbtCloudRunJobOperator(task_id="a", job_id=1, deferrable=True)
DbtCloudRunJobOperator(task_id="b", project_name="p", environment_name="e", job_name="j")
print(json.dumps({"new": sorted(set(sys.modules) - baseline), "airflow": sorted(baseline)}))
"""

HEAVY = ("aiohttp", "requests", "tenacity", "asgiref", "boto3", "botocore", "cryptography")


def test_import_and_construction_load_no_provider_module_and_no_http_client():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=300)
    modules = json.loads(out.stdout.strip().splitlines()[-1])
    new = modules["new"]
    # The providers manager may read the installed providers' metadata (get_provider_info); no
    # hook, operator, trigger or utility module of any provider is imported.
    provider_code = [m for m in new if m.startswith("airflow.providers") and not m.endswith(".get_provider_info")]
    assert provider_code == []
    assert [m for m in new if m.split(".")[0] in HEAVY] == []
    for heavy in (
        "airflow.providers.dbt.cloud.operators.dbt",
        "airflow.providers.dbt.cloud.hooks.dbt",
        "airflow.providers.dbt.cloud.triggers.dbt",
        "airflow.providers.http.hooks.http",
    ):
        assert heavy not in new
