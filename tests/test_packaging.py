"""What installing the package promises: cheap imports, a CLI, and Airflow seeing the provider."""

from __future__ import annotations

import json
import subprocess
import sys

import resumable_jobs

HEAVY = ("boto3", "botocore", "google.cloud", "googleapiclient", "pyspark", "aiohttp", "databricks")


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_importing_the_mixin_pulls_in_no_provider_package_or_cloud_sdk():
    baseline = _modules_after("from airflow.sdk import BaseOperator")
    ours = _modules_after("import resumable_jobs; resumable_jobs.ResumableJobMixin")
    added = ours - baseline
    assert not [m for m in added if m.startswith("airflow.providers.")], sorted(added)
    assert not [m for m in added if m.split(".")[0] in HEAVY or m.startswith(HEAVY)], sorted(added)


def test_bare_package_import_does_not_even_import_airflow():
    assert not [m for m in _modules_after("import resumable_jobs") if m == "airflow" or m.startswith("airflow.")]


def test_cli_version():
    out = subprocess.run(
        [sys.executable, "-m", "resumable_jobs.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"resumable-jobs {resumable_jobs.__version__}"


def test_cli_without_a_command_prints_help_and_fails():
    out = subprocess.run([sys.executable, "-m", "resumable_jobs.cli"], capture_output=True, text=True)
    assert out.returncode == 2 and "usage: resumable-jobs" in out.stdout


def test_airflow_lists_the_provider():
    out = subprocess.run(
        [sys.executable, "-m", "airflow", "providers", "list", "--output", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    # Airflow 3.0 prints its INFO log lines ("[2026-...] {plugins.py:37} INFO - ...") to stdout first.
    (document,) = [line for line in out.stdout.splitlines() if line.startswith("[{") or line == "[]"]
    listed = {p["package_name"]: p for p in json.loads(document)}
    assert listed["airflow-provider-resumable-jobs"]["version"] == resumable_jobs.__version__


def test_every_registered_extra_link_imports():
    import importlib

    from resumable_jobs.provider_info import get_provider_info

    for path in get_provider_info()["extra-links"]:
        module, _, name = path.rpartition(".")
        link = getattr(importlib.import_module(module), name)()
        assert link.name and link.xcom_key


def test_subcommand_help_lists_the_subcommands_own_options():
    for command, option in (("review", "--select"), ("doctor", "--format"), ("demo", "--backend")):
        out = subprocess.run(
            [sys.executable, "-m", "resumable_jobs.cli", command, "--help"], capture_output=True, text=True, check=True
        )
        assert option in out.stdout, (command, out.stdout)
