"""Submit-and-wait as ONE deferrable task - the choice when a Triggerer runs (spec section 6).

Use when: a Triggerer is deployed. The worker slot is released while the job runs, and the
task's own state is the job's outcome (no separate sensor to keep in sync).
``wait_for_termination=True`` must be explicit: ``deferrable=True`` alone does not imply waiting,
and with ``wait_for_termination=False`` nothing is deferred (the operator warns).

Unlike upstream's deferrable path, ours persists the run id before deferring: a crash between
submission and deferral, or a trigger failure while the run continues, makes the retry defer
again to the same run instead of submitting a second one.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_choice_triggerer_deferrable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "section-6"],
):
    DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/etl"}, "existing_cluster_id": "0101-abc"}],
        deferrable=True,
        wait_for_termination=True,  # required: deferrable=True alone does not wait
        retries=3,
    )
