"""``asset_state_store``: a watermark that belongs to the asset, shared by producer and consumer.

Use when: the high-water mark describes the *data* (the last loaded timestamp of an asset), not
one task instance. It survives DAG runs, has no TTL, and any DAG that declares the asset as an
inlet or outlet can read it. Timestamps are timezone-aware ISO strings. Needs Airflow 3.3; on
older versions this file defines no DAGs.
"""

from __future__ import annotations

import datetime

from resumable_jobs.shims import durable_supported

if durable_supported():
    from airflow.sdk import DAG, Asset, task

    ORDERS = Asset(name="orders_daily", uri="s3://warehouse/orders/daily")

    with DAG(
        dag_id="example_asset_watermark_producer",
        schedule="@hourly",
        start_date=datetime.datetime(2026, 1, 1),
        catchup=False,
        tags=["resumable-jobs", "state-store"],
    ):

        @task(inlets=[ORDERS], outlets=[ORDERS])
        def load_new_orders(asset_state_store=None) -> int:
            store = asset_state_store[ORDERS]
            watermark = store.get("watermark", default="2026-01-01T00:00:00+00:00")
            rows = 0  # rows = load_orders_since(watermark)
            now = datetime.datetime.now(tz=datetime.timezone.utc).isoformat()
            store.set("watermark", now)
            store.set("last_run_summary", {"rows_loaded": rows, "since": watermark, "completed_at": now})
            return rows

        load_new_orders()

    with DAG(
        dag_id="example_asset_watermark_consumer",
        schedule=[ORDERS],
        start_date=datetime.datetime(2026, 1, 1),
        catchup=False,
        tags=["resumable-jobs", "state-store"],
    ):

        @task(inlets=[ORDERS])
        def report(asset_state_store=None) -> str:
            store = asset_state_store[ORDERS]
            summary = store.get("last_run_summary") or {}
            return f"{summary.get('rows_loaded')} rows up to {store.get('watermark')}"

        report()
