"""Patterns the held-out batch "held-out-15f" showed the reviewer had missed, as positives and
near misses of our own writing:

- RJ005: an Azure Data Factory pipeline run started from task code (the SDK's
  ``pipelines.create_run``, the Airflow hook's ``run_pipeline``) with a poll task or a sensor on
  its run id;
- RJ005: submit and sensor built by operator factories, helper functions that return an operator
  (``def add_step(task_id, ...): return EmrAddStepsOperator(task_id=task_id, ...)``);
- RJ008: ``datetime.utcnow()`` in a value named watermark inside a helper function that is not
  itself a task body (a ``utils`` module a task calls through a path the reviewer cannot follow).
"""

from __future__ import annotations

import os
import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_files, review_source


def found(source: str, *codes: str) -> list[tuple[int, str]]:
    rules = [RULES_BY_CODE[c] for c in codes] if codes else list(RULES_BY_CODE.values())
    return [(f.line, f.code) for f in review_source(textwrap.dedent(source), "dag.py", rules)]


def write(root, files: dict[str, str]) -> list[str]:
    paths = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        paths.append(str(path))
    return paths


def relative(root, result) -> list[tuple[str, int, str]]:
    return [(os.path.relpath(f.path, root), f.line, f.code) for f in result.findings]


# --- RJ005: Azure Data Factory runs started from task code -----------------------------------

_ADF_SDK = """
    import time

    from airflow import DAG
    from airflow.operators.python import PythonOperator
    from azure.mgmt.datafactory import DataFactoryManagementClient

    def start_copy(ti, **context):
        factory = DataFactoryManagementClient(credential=None, subscription_id="sub")
        run = factory.pipelines.create_run("rg", "factory", "copy_sales")
        ti.xcom_push(key="copy_run", value=run.run_id)

    def follow_copy(ti, **context):
        run_id = ti.xcom_pull(key="copy_run", task_ids="{pulled}")
        factory = DataFactoryManagementClient(credential=None, subscription_id="sub")
        while factory.pipeline_runs.get("rg", "factory", run_id).status == "InProgress":
            time.sleep(20)

    with DAG("sales_copy") as dag:
        start = PythonOperator(task_id="start_copy", python_callable=start_copy)
        follow = PythonOperator(task_id="follow_copy", python_callable=follow_copy)
        start >> follow
"""


def test_adf_sdk_run_started_by_one_task_and_polled_by_another():
    assert found(_ADF_SDK.format(pulled="start_copy"), "RJ005") == [(20, "RJ005")]


def test_adf_poll_task_on_another_task_is_a_near_miss():
    assert found(_ADF_SDK.format(pulled="unrelated_task"), "RJ005") == []


def test_adf_run_started_and_polled_in_the_same_task_is_a_near_miss():
    source = """
        import time

        from airflow import DAG
        from airflow.operators.python import PythonOperator
        from azure.mgmt.datafactory import DataFactoryManagementClient

        def copy_and_wait(**context):
            factory = DataFactoryManagementClient(credential=None, subscription_id="sub")
            run = factory.pipelines.create_run("rg", "factory", "copy_sales")
            while factory.pipeline_runs.get("rg", "factory", run.run_id).status == "InProgress":
                time.sleep(20)

        with DAG("sales_copy") as dag:
            PythonOperator(task_id="copy", python_callable=copy_and_wait)
    """
    assert found(source, "RJ005") == []


def test_adf_hook_run_pipeline_in_a_python_callable_then_a_status_sensor():
    source = """
        from airflow import DAG
        from airflow.operators.python import PythonOperator
        from airflow.providers.microsoft.azure.hooks.data_factory import AzureDataFactoryHook
        from airflow.providers.microsoft.azure.sensors.data_factory import (
            AzureDataFactoryPipelineRunStatusSensor,
        )

        def kick_off(**context):
            hook = AzureDataFactoryHook(azure_data_factory_conn_id="adf")
            return hook.run_pipeline("copy_orders").run_id

        with DAG("nightly_copy") as dag:
            start = PythonOperator(task_id="kick_off", python_callable=kick_off)
            wait = AzureDataFactoryPipelineRunStatusSensor(
                task_id="wait", run_id="{{ ti.xcom_pull(task_ids='kick_off') }}"
            )
            start >> wait
    """
    assert found(source, "RJ005") == [(14, "RJ005")]


def test_adf_run_with_nothing_waiting_on_it_is_a_near_miss():
    source = """
        from airflow import DAG
        from airflow.operators.python import PythonOperator
        from airflow.providers.microsoft.azure.hooks.data_factory import AzureDataFactoryHook

        def kick_off(**context):
            return AzureDataFactoryHook(azure_data_factory_conn_id="adf").run_pipeline("copy").run_id

        with DAG("fire_and_forget") as dag:
            PythonOperator(task_id="kick_off", python_callable=kick_off)
    """
    assert found(source, "RJ005") == []


# --- RJ008: utcnow() in a watermark built by a helper that is not a task --------------------


def test_utcnow_in_a_watermark_record_built_by_a_helper():
    source = """
        import json
        from datetime import datetime

        def save_progress(blob, day):
            watermark = {"day": day, "saved_at": datetime.utcnow().isoformat() + "Z"}
            blob.upload(json.dumps(watermark))
    """
    assert found(source, "RJ008") == [(6, "RJ008")]


def test_utcnow_in_a_helper_value_not_named_watermark_is_a_near_miss():
    for line in (
        'record = {"day": day, "saved_at": datetime.utcnow().isoformat()}',
        'watermark = {"day": day, "saved_at": datetime.now(timezone.utc).isoformat()}',
    ):
        source = f"""
            import json
            from datetime import datetime, timezone

            def save_progress(blob, day):
                {line}
                blob.upload(json.dumps(locals()))
        """
        assert found(source, "RJ008") == [], line
