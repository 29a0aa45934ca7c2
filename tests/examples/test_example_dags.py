"""Every example DAG loads in Airflow's DagBag with zero import errors, on both Airflow versions."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from tests.conftest import DURABLE

EXAMPLES = Path(__file__).resolve().parents[2] / "example_dags"

ALWAYS = {
    "example_spark_submit_durable",
    "example_databricks_submit_run_durable",
    "example_databricks_run_now_durable",
    "example_batch_job_durable",
    "example_glue_job_durable",
    "example_kubernetes_pod_durable",
    "example_emr_serverless_durable",
    "example_emr_containers_durable",
    "example_bigquery_insert_job_durable",
    "example_dbt_cloud_run_job_durable",
    "example_choice_triggerer_deferrable",
    "example_choice_no_triggerer_durable_sync",
    "example_choice_long_job_submit_and_sensor",
    "example_dag_wide_durable_false",
    "example_custom_resumable_operator",
    "example_snowflake_sql_api_durable",
    "example_redshift_data_durable",
}
NEEDS_3_3 = {
    "example_state_store_cursor_checkpoint",
    "example_state_store_mapped_partitions",
    "example_asset_watermark_producer",
    "example_asset_watermark_consumer",
    "example_state_store_never_expire",
}


@pytest.fixture(scope="module")
def dagbag():
    try:
        from airflow.dag_processing.dagbag import DagBag
    except ImportError:  # pragma: no cover - older layout
        from airflow.models.dagbag import DagBag
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DagBag(dag_folder=str(EXAMPLES))


def test_examples_import_without_errors(dagbag):
    assert dagbag.import_errors == {}


def test_the_expected_examples_are_defined(dagbag):
    expected = ALWAYS | (NEEDS_3_3 if DURABLE else set())
    assert set(dagbag.dag_ids) == expected


def test_every_example_file_says_when_to_use_it():
    for path in EXAMPLES.glob("*.py"):
        doc = path.read_text().split('"""')[1]
        assert "Use when" in doc, f"{path.name} has no 'Use when' in its docstring"


def test_section6_split_keeps_downstream_on_the_sensor(dagbag):
    dag = dagbag.dags["example_choice_long_job_submit_and_sensor"]
    assert dag.get_task("publish_tables").upstream_task_ids == {"wait_for_backfill"}
    assert dag.get_task("submit_backfill").wait_for_termination is False
    assert dag.get_task("wait_for_backfill").mode == "reschedule"


def test_deferrable_choice_waits_explicitly(dagbag):
    task = dagbag.dags["example_choice_triggerer_deferrable"].get_task("run_job")
    assert task.deferrable is True and task.wait_for_termination is True


def test_dag_wide_durable_false_reaches_the_operator(dagbag):
    assert dagbag.dags["example_dag_wide_durable_false"].get_task("smoke_test").durable is False
