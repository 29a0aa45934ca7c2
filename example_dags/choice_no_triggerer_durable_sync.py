"""Submit-and-wait as ONE durable synchronous task - no Triggerer, job of short or medium length.

Use when: there is no Triggerer and holding one worker slot for the job's duration is
acceptable. This replaces a "submit task + hand-written sensor task" pair: the operator's own
polling loop is protected by the mixin from submission to the end, so a worker crash mid-poll
reconnects to the run; a hand-written sensor has its own, usually weaker, retry story.
Both settings shown are the defaults.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_choice_no_triggerer_durable_sync",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "section-6"],
):
    DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": "/Shared/etl"}, "existing_cluster_id": "0101-abc"}],
        wait_for_termination=True,  # synchronous: holds the worker for the run, acceptable here
        durable=True,  # default: the run id is checkpointed end to end
        retries=3,
    )
