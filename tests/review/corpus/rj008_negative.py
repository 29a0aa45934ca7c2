"""RJ008 near misses: JSON values, conversions, and calls of unknown type."""

from datetime import datetime, timezone

from airflow.sdk import Asset, NEVER_EXPIRE, dag, task

ORDERS = Asset(name="orders")


def compute_summary():
    return {"rows": 1}


class Cache:
    def set(self, key, value):
        return None


@task(retries=2)
def checkpoints(**context):
    store = context["task_state_store"]
    store.set("started_at", datetime.now(tz=timezone.utc).isoformat())
    store.set("job_id", "run-123", retention=NEVER_EXPIRE)
    store.set("summary", compute_summary())
    store.set("rows", [1, 2, 3])
    cache = Cache()
    cache.set("when", datetime.now())
    stamp = datetime.utcnow()  # not a watermark, not stored
    return stamp


@task(inlets=[ORDERS], outlets=[ORDERS])
def load(asset_state_store=None):
    store = asset_state_store[ORDERS]
    store.set("watermark", datetime.now(tz=timezone.utc).isoformat())
    store.set("count", 10)


@dag(schedule=None)
def values_ok():
    checkpoints()
    load()


values_ok()
