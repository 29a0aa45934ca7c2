"""Importing our KubernetesPodOperator must stay cheap: no Kubernetes client, no provider operator, hook or trigger."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY_PREFIXES = (
    "kubernetes.",
    "kubernetes_asyncio",
    "airflow.providers.cncf.kubernetes.operators",
    "airflow.providers.cncf.kubernetes.hooks",
    "airflow.providers.cncf.kubernetes.triggers",
    "airflow.providers.cncf.kubernetes.utils",
    "airflow.providers.cncf.kubernetes.pod_generator",
    "urllib3",
    "yaml",
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


def test_import_loads_no_kubernetes_client_and_no_provider_module():
    added = _modules_after("from resumable_jobs.providers.kubernetes import KubernetesPodOperator")

    assert "resumable_jobs.providers.kubernetes.pod" in added  # the import did happen
    heavy = sorted(m for m in added if m == "kubernetes" or m.startswith(HEAVY_PREFIXES))
    assert heavy == []


def test_upstream_operator_module_is_what_we_avoid():
    """The check above can fail: importing upstream's module does load these."""
    added = _modules_after("from airflow.providers.cncf.kubernetes.operators.pod import KubernetesPodOperator")
    assert "kubernetes.client" in added
    assert "airflow.providers.cncf.kubernetes.hooks.kubernetes" in added


def test_the_trigger_module_imports_no_kubernetes_client_either():
    """The triggerer imports it by class path; the client libraries are imported off the loop at the first poll."""
    added = _modules_after("from resumable_jobs.providers.kubernetes.trigger import PodTrigger")

    assert "resumable_jobs.providers.kubernetes.trigger" in added
    heavy = sorted(m for m in added if m == "kubernetes" or m.startswith(HEAVY_PREFIXES))
    assert heavy == []
