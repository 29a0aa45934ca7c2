"""RJ004 near misses: date-like configuration, and the recommended asset_state_store."""

from datetime import datetime, timezone

from airflow.sdk import Asset, Variable, dag, task

ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


@task
def backfill_window():
    # Read-only date configuration that nothing in this file writes.
    start = Variable.get("backfill_start_date", default=None)
    end = Variable.get("max_date", default=None)
    return start, end


@task(inlets=[ORDERS], outlets=[ORDERS])
def load(asset_state_store=None):
    store = asset_state_store[ORDERS]
    watermark = store.get("watermark", default="2026-01-01T00:00:00+00:00")
    store.set("watermark", datetime.now(tz=timezone.utc).isoformat())
    return watermark


@dag(schedule=None)
def date_config():
    backfill_window()
    load()


date_config()
