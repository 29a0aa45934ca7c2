"""Parsing a DAG that imports the Snowflake operator must load no provider module and no HTTP client."""

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
from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator
SnowflakeSqlApiOperator(task_id="a", sql="SELECT 1; SELECT 2", statement_count=2, deferrable=True)
SnowflakeSqlApiOperator(task_id="b", sql="SELECT 1", wait_for_termination=False)
print(json.dumps({"new": sorted(set(sys.modules) - baseline)}))
"""

HEAVY = ("aiohttp", "requests", "snowflake", "tenacity", "jwt", "cryptography", "sqlalchemy", "pandas")


def test_import_and_construction_load_no_provider_modules_and_no_http_clients():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=300)
    new = json.loads(out.stdout.strip().splitlines()[-1])["new"]
    assert [m for m in new if m.startswith("airflow.providers")] == []
    assert [m for m in new if m.split(".")[0] in HEAVY] == []
    assert "resumable_jobs.providers.snowflake.sql_api" in new  # the probe measured what it claims to
