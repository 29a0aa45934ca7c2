"""Importing our BigQuery operator must stay cheap: no upstream Google provider modules, no SDKs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY_PREFIXES = (
    "google.cloud.bigquery",
    "google.api_core",
    "google.auth",
    "googleapiclient",
    "gcloud",
    "aiohttp",
    "boto3",
    "botocore",
    "pyspark",
    "requests",
)


def _modules_after(statement: str) -> set[str]:
    code = textwrap.dedent(
        f"""
        import json, sys
        import airflow.sdk
        before = set(sys.modules)
        {statement}
        print(json.dumps({{"before": sorted(before), "after": sorted(sys.modules)}}))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    return set(seen["after"]) - set(seen["before"])


def test_import_loads_no_google_provider_module_or_client_library():
    added = _modules_after("from resumable_jobs.providers.google import BigQueryInsertJobOperator")

    assert "resumable_jobs.providers.google.bigquery_insert_job" in added  # the import did happen
    provider_modules = sorted(m for m in added if m.startswith("airflow.providers.google"))
    assert provider_modules == []
    heavy = sorted(m for m in added if m.startswith(HEAVY_PREFIXES))
    assert heavy == []


def test_upstream_operator_module_is_what_we_avoid():
    """The check above can fail: importing upstream's module does load these."""
    added = _modules_after("import airflow.providers.google.cloud.operators.bigquery")
    assert "airflow.providers.google.cloud.hooks.bigquery" in added
    assert any(m.startswith("google.cloud.bigquery") for m in added)
