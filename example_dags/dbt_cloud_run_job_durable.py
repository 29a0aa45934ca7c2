"""dbt Cloud: run a job after the warehouse load, crash-safe, waiting in the triggerer.

Use when: the transformation is a dbt Cloud job and Airflow only triggers it. A retry after a worker
crash follows the run the crashed try started - found by the token in the run's cause if the crash
came before its id was saved - instead of running the job twice. The connection ``dbt_cloud_default``
holds the account id (login) and an API token (password) allowed to trigger, read and cancel runs.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.dbt import DbtCloudRunJobOperator

with DAG(
    dag_id="example_dbt_cloud_run_job_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "dbt-cloud"],
):
    DbtCloudRunJobOperator(
        task_id="build_marts",
        dbt_cloud_conn_id="dbt_cloud_default",
        project_name="analytics",
        environment_name="production",
        job_name="nightly",
        steps_override=["dbt build --select marts"],
        trigger_reason="Nightly marts for {{ ds }}",
        deferrable=True,
        check_interval=30,
        retries=3,
    )
