"""What Airflow's own tooling shows about the package: ``airflow providers ...`` and the schema.

The answers come from the real ``airflow`` CLI in a subprocess, reading the installed entry
point, so a typo in a module path or a link class that is not registered shows up here the way a
user would see it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import resumable_jobs
from resumable_jobs.provider_info import get_provider_info

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "airflow-provider-resumable-jobs"
OPERATORS = {
    "resumable_jobs.providers.databricks.submit_run": "DatabricksSubmitRunOperator",
    "resumable_jobs.providers.databricks.run_now": "DatabricksRunNowOperator",
    "resumable_jobs.providers.amazon.batch": "BatchOperator",
    "resumable_jobs.providers.amazon.glue": "GlueJobOperator",
    "resumable_jobs.providers.amazon.redshift_data": "RedshiftDataOperator",
    "resumable_jobs.providers.amazon.emr_serverless": "EmrServerlessStartJobOperator",
    "resumable_jobs.providers.amazon.emr_containers": "EmrContainerOperator",
    "resumable_jobs.providers.google.bigquery_insert_job": "BigQueryInsertJobOperator",
    "resumable_jobs.providers.spark.operator": "SparkSubmitOperator",
    "resumable_jobs.providers.snowflake.sql_api": "SnowflakeSqlApiOperator",
    "resumable_jobs.providers.dbt.operator": "DbtCloudRunJobOperator",
    "resumable_jobs.providers.kubernetes.pod": "KubernetesPodOperator",
}


def _airflow_json(*args: str) -> list[dict]:
    out = subprocess.run(
        [sys.executable, "-m", "airflow", *args, "--output", "json"], capture_output=True, text=True, check=True
    )
    # Airflow 3.0 prints its INFO log lines ("[2026-...] {plugins.py:37} INFO - ...") to stdout first.
    (document,) = [line for line in out.stdout.splitlines() if line.startswith("[{") or line == "[]"]
    return json.loads(document)


def test_provider_info_is_valid_for_airflows_schema():
    from airflow.providers_manager import _create_provider_info_schema_validator

    _create_provider_info_schema_validator().validate(get_provider_info())


def test_airflow_providers_list_shows_the_package_and_its_description():
    listed = {p["package_name"]: p for p in _airflow_json("providers", "list")}
    ours = listed[PACKAGE]
    assert ours["version"] == resumable_jobs.__version__
    assert "Crash-safe submission of Databricks, AWS Batch, BigQuery and Spark jobs" in ours["description"]


#: trigger module -> the trigger class defined there
TRIGGERS = {
    "resumable_jobs.providers.spark.trigger": "SparkDriverTrigger",
    "resumable_jobs.providers.spark.yarn.trigger": "YarnApplicationTrigger",
    "resumable_jobs.providers.spark.kubernetes.trigger": "KubernetesDriverPodTrigger",
    "resumable_jobs.providers.snowflake.trigger": "SnowflakeStatementsTrigger",
    "resumable_jobs.providers.amazon.redshift_trigger": "RedshiftDataStatementTrigger",
    "resumable_jobs.providers.amazon.batch_trigger": "BatchJobStatusTrigger",
    "resumable_jobs.providers.amazon.glue_trigger": "GlueJobRunTrigger",
    "resumable_jobs.providers.amazon.emr_serverless_trigger": "EmrServerlessJobRunTrigger",
    "resumable_jobs.providers.amazon.emr_containers_trigger": "EmrContainerJobRunTrigger",
    "resumable_jobs.providers.dbt.trigger": "DbtCloudRunTrigger",
    "resumable_jobs.providers.google.trigger": "BigQueryJobTrigger",
    "resumable_jobs.providers.kubernetes.trigger": "PodTrigger",
}
#: trigger module -> the integration it belongs to (the Spark triggers unless listed)
TRIGGER_INTEGRATIONS = {
    "resumable_jobs.providers.snowflake.trigger": "Snowflake",
    "resumable_jobs.providers.amazon.redshift_trigger": "Amazon Redshift",
    "resumable_jobs.providers.amazon.batch_trigger": "AWS Batch",
    "resumable_jobs.providers.amazon.glue_trigger": "AWS Glue",
    "resumable_jobs.providers.amazon.emr_serverless_trigger": "Amazon EMR Serverless",
    "resumable_jobs.providers.amazon.emr_containers_trigger": "Amazon EMR on EKS",
    "resumable_jobs.providers.dbt.trigger": "dbt Cloud",
    "resumable_jobs.providers.google.trigger": "Google BigQuery",
    "resumable_jobs.providers.kubernetes.trigger": "Kubernetes",
}


def test_airflow_providers_triggers_lists_the_spark_triggers():
    ours = [t for t in _airflow_json("providers", "triggers") if t["package_name"] == PACKAGE]
    assert sorted(ours, key=lambda t: t["class"]) == [
        {"package_name": PACKAGE, "class": module, "integration_name": TRIGGER_INTEGRATIONS.get(module, "Apache Spark")}
        for module in sorted(TRIGGERS)
    ]


def test_airflow_providers_get_full_shows_integrations_operators_and_docs():
    (info,) = _airflow_json("providers", "get", PACKAGE, "--full")
    integrations = {i["integration-name"]: i for i in info["integrations"]}
    assert set(integrations) == {
        "Databricks",
        "AWS Batch",
        "Google BigQuery",
        "Apache Spark",
        "Snowflake",
        "dbt Cloud",
        "AWS Glue",
        "Amazon Redshift",
        "Kubernetes",
        "Amazon EMR Serverless",
        "Amazon EMR on EKS",
    }
    operator_modules = {m for entry in info["operators"] for m in entry["python-modules"]}
    assert operator_modules == set(OPERATORS)
    for entry in [*info["operators"], *info["triggers"]]:
        assert entry["integration-name"] in integrations  # every entry belongs to a declared integration
    for integration in integrations.values():
        assert integration["external-doc-url"].startswith("https://")
        for guide in integration["how-to-guide"]:
            assert (REPO / guide.lstrip("/")).is_file(), guide


def test_declared_operator_modules_hold_the_operators():
    for module, name in OPERATORS.items():
        assert hasattr(importlib.import_module(module), name), (module, name)


def test_declared_trigger_modules_hold_the_triggers():
    from airflow.triggers.base import BaseTrigger

    modules = [module for entry in get_provider_info()["triggers"] for module in entry["python-modules"]]
    assert sorted(modules) == sorted(TRIGGERS)
    for module in modules:
        defined = [
            value.__name__
            for value in vars(importlib.import_module(module)).values()
            if isinstance(value, type) and issubclass(value, BaseTrigger) and value.__module__ == module
        ]
        assert defined == [TRIGGERS[module]], module


@pytest.mark.parametrize("module", OPERATORS)
def test_every_link_an_operator_shows_is_registered(module):
    operator = getattr(importlib.import_module(module), OPERATORS[module])
    registered = set(get_provider_info()["extra-links"])
    for link in operator.operator_extra_links:
        assert f"{type(link).__module__}.{type(link).__qualname__}" in registered, link


def test_no_connection_type_is_declared_twice():
    # The operators use the upstream providers' connection types; registering them again from
    # here would make Airflow warn about duplicates.
    assert "connection-types" not in get_provider_info()
    assert "hooks" not in get_provider_info()
