"""``resumable-jobs doctor`` on the installed Airflow (3.3: durable; 3.0-3.2: below 3.3)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from importlib import metadata

import pytest

from resumable_jobs import doctor


def run_doctor(tmp_path, *argv: str, **settings: str) -> tuple[int, str]:
    """The doctor in a fresh process, so Airflow reads this test's home and variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AIRFLOW__STATE_STORE__")}
    env["AIRFLOW_HOME"] = str(tmp_path)
    env.update({f"AIRFLOW__STATE_STORE__{k.upper()}": v for k, v in settings.items()})
    result = subprocess.run(
        [sys.executable, "-m", "resumable_jobs.doctor", *argv], capture_output=True, text=True, env=env, timeout=120
    )
    return result.returncode, result.stdout


def statuses(report: dict) -> dict[str, str]:
    return {s["option"]: s["status"] for s in report["state_store"]["settings"]}


@pytest.mark.durable_only
def test_defaults_on_33_are_fine(tmp_path):
    code, out = run_doctor(tmp_path, "--format", "json")
    report = json.loads(out)
    assert code == 0
    assert report["airflow"]["version"] == metadata.version("apache-airflow")
    assert report["airflow"]["durable_available"] is True and report["airflow"]["status"] == "ok"
    assert statuses(report) == {
        "default_retention_days": "ok",
        "clear_on_success": "ok",
        "max_value_storage_bytes": "ok",
        "backend": "ok",
        "state_store_backend": "ok",
    }
    values = {s["option"]: s["value"] for s in report["state_store"]["settings"]}
    assert values["default_retention_days"] == "30" and values["max_value_storage_bytes"] == "65535"


@pytest.mark.durable_only
def test_settings_from_environment_on_33(tmp_path):
    code, out = run_doctor(
        tmp_path,
        "--format",
        "json",
        "--longest-job-hours",
        "48",
        default_retention_days="1",
        clear_on_success="True",
        max_value_storage_bytes="100",
        backend="mypackage.store.Backend",
    )
    report = json.loads(out)
    assert code == 1
    assert statuses(report) == {
        "default_retention_days": "warning",
        "clear_on_success": "info",
        "max_value_storage_bytes": "warning",
        "backend": "info",
        "state_store_backend": "ok",
    }
    retention = report["state_store"]["settings"][0]
    assert retention["value"] == "1" and "shorter than your longest job (48 h)" in retention["recommendation"]


@pytest.mark.durable_only
def test_text_output_on_33(tmp_path):
    code, out = run_doctor(tmp_path, default_retention_days="-1")
    assert code == 1
    assert f"[ok] Airflow {metadata.version('apache-airflow')}: task_state_store" in out
    assert "[warning] [state_store] default_retention_days = -1: negative" in out


@pytest.mark.shim_only
def test_below_33_says_what_is_unavailable(tmp_path):
    code, out = run_doctor(tmp_path, "--format", "json", default_retention_days="1")
    report = json.loads(out)
    assert code == 0
    assert report["airflow"]["status"] == "unavailable" and report["airflow"]["durable_available"] is False
    message = report["airflow"]["message"]
    assert "below 3.3" in message and "task_state_store, asset_state_store and durable crash recovery" in message
    assert doctor.AIP_103 in message and report["airflow"]["link"] == doctor.AIP_103
    assert report["state_store"]["available"] is False and report["state_store"]["settings"] == []
    assert "not available on " + metadata.version("apache-airflow") in report["state_store"]["message"]


@pytest.mark.shim_only
def test_text_output_below_33(tmp_path):
    code, out = run_doctor(tmp_path)
    assert code == 0
    assert f"[unavailable] Airflow {metadata.version('apache-airflow')} is below 3.3" in out
    assert "[unavailable] the [state_store] settings exist from Airflow 3.3" in out


def test_provider_families_match_installed_distributions(tmp_path):
    _, out = run_doctor(tmp_path, "--format", "json")
    providers = {p["family"]: p for p in json.loads(out)["providers"]}
    assert sorted(providers) == ["amazon", "databricks", "dbt-cloud", "google", "kubernetes", "snowflake", "spark"]
    for family, (distribution, _) in doctor.PROVIDER_FAMILIES.items():
        try:
            installed = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            installed = None
        assert providers[family]["version"] == installed
        assert providers[family]["status"] == ("info" if installed is None else "ok")


def test_invalid_longest_job_is_a_usage_error(capsys):
    parser = argparse.ArgumentParser()
    doctor.add_arguments(parser)
    assert doctor.run(parser.parse_args(["--longest-job-hours", "0"])) == 2
    assert "must be positive" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("raw", "hours", "status"),
    [
        ("30", None, "ok"),
        ("0", None, "ok"),
        ("1", 48.0, "warning"),
        ("3", 48.0, "ok"),
        ("-2", None, "warning"),
        ("soon", None, "warning"),
    ],
)
def test_retention_rules(raw, hours, status):
    assert doctor._retention(raw, hours).status == status


@pytest.mark.parametrize(("raw", "status"), [("False", "ok"), ("True", "info"), ("maybe", "warning")])
def test_clear_on_success_rules(raw, status):
    assert doctor._clear_on_success(raw).status == status


@pytest.mark.parametrize(("raw", "status"), [("65535", "ok"), ("0", "info"), ("512", "warning"), ("x", "warning")])
def test_max_value_rules(raw, status):
    assert doctor._max_value(raw).status == status


@pytest.mark.parametrize(
    ("version", "expected"), [("3.3.0", (3, 3, 0)), ("3.3.0rc1", (3, 3, 0)), ("3.2.2", (3, 2, 2)), ("3.10", (3, 10))]
)
def test_version_numbers(version, expected):
    assert doctor._version_tuple(version) == expected
    assert (doctor._version_tuple(version) >= doctor.DURABLE_SINCE) == (expected >= (3, 3))
