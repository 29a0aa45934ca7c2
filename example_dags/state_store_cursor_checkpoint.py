"""``task_state_store``: checkpoint a cursor so a retry resumes instead of starting over.

Use when: a task walks through many records and a retry should continue after the last one
processed. The store is scoped to this task instance (dag, run, task, map index) and survives
retries. Needs Airflow 3.3 (task_state_store); on older versions this file defines no DAG.
"""

from __future__ import annotations

import datetime

from resumable_jobs.shims import durable_supported

if durable_supported():
    from airflow.sdk import dag, task

    def fetch_records_after(cursor: int) -> list[dict]:
        """Stand-in for your source: 50 records with increasing ids."""
        return [{"id": i} for i in range(cursor + 1, 51)]

    @dag(schedule="@daily", start_date=datetime.datetime(2026, 1, 1), catchup=False, tags=["resumable-jobs", "state-store"])
    def example_state_store_cursor_checkpoint():
        @task(retries=3)
        def process_records(**context) -> int:
            task_state_store = context["task_state_store"]
            cursor = task_state_store.get("last_cursor", default=0)
            processed = 0
            for record in fetch_records_after(cursor):
                processed += 1  # process(record)
                task_state_store.set("last_cursor", record["id"])  # checkpoint after each record
            return processed

        process_records()

    example_state_store_cursor_checkpoint()
