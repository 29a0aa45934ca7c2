"""``NEVER_EXPIRE``: keep a multi-day job id past ``[state_store] default_retention_days``.

Use when: a hand-written task tracks an external job that can outlive the default retention (a
week-long backfill). A key written with the default retention can expire while the job still
runs, and the next retry would start a second job. Our operators already store their ids with
``NEVER_EXPIRE``; this is for your own ``@task`` code. Prefer ``ResumableJobMixin`` for a new
submit-and-wait task (see custom_resumable_operator.py). Needs Airflow 3.3.
"""

from __future__ import annotations

import datetime

from resumable_jobs.shims import durable_supported

if durable_supported():
    from airflow.sdk import NEVER_EXPIRE, dag, task

    @dag(schedule=None, start_date=datetime.datetime(2026, 1, 1), catchup=False, tags=["resumable-jobs", "state-store"])
    def example_state_store_never_expire():
        @task(retries=5, retry_delay=datetime.timedelta(hours=1))
        def track_backfill(**context) -> str:
            task_state_store = context["task_state_store"]
            backfill_id = task_state_store.get("backfill_id")
            if backfill_id is None:
                backfill_id = f"backfill-{context['run_id']}"  # = start_backfill(...) in real code
                task_state_store.set("backfill_id", backfill_id, retention=NEVER_EXPIRE)
            # wait_for_backfill(backfill_id)
            return backfill_id

        track_backfill()

    example_state_store_never_expire()
