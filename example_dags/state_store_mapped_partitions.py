"""``task_state_store`` in mapped tasks: every map index keeps its own offset.

Use when: you fan out over partitions with ``.expand()`` and each partition must resume where it
stopped. Index 2 never sees index 0's keys; ``clear()`` in one index clears only that index.
Needs Airflow 3.3; on older versions this file defines no DAG.
"""

from __future__ import annotations

import datetime

from resumable_jobs.shims import durable_supported

if durable_supported():
    from airflow.sdk import dag, task

    @dag(schedule="@daily", start_date=datetime.datetime(2026, 1, 1), catchup=False, tags=["resumable-jobs", "state-store"])
    def example_state_store_mapped_partitions():
        @task(retries=2)
        def process_partition(partition_id: int, **context) -> int:
            task_state_store = context["task_state_store"]  # scoped to this map index only
            offset = task_state_store.get("offset", default=0)
            for batch_start in range(offset, 1000, 100):
                # load_batch(partition_id, batch_start)
                task_state_store.set("offset", batch_start + 100)
            return partition_id

        process_partition.expand(partition_id=[0, 1, 2, 3])

    example_state_store_mapped_partitions()
