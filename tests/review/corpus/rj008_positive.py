"""RJ008 positives: values the state stores reject, and naive watermarks."""

import datetime as dt
import uuid
from datetime import datetime
from decimal import Decimal

from airflow.sdk import Asset, dag, task

ORDERS = Asset(name="orders")


class Progress:
    def __init__(self, done):
        self.done = done


@task(retries=2)
def checkpoints(**context):
    store = context["task_state_store"]
    store.set("started_at", datetime.now())
    store.set("job_id", None)
    store.set("progress", Progress(3))
    store.set("amount", Decimal("1.5"))
    context["task_state_store"].set(key="token", value=uuid.uuid4())
    store.set("summary", {"rows": 3, "completed_at": dt.datetime.now(tz=dt.timezone.utc)})
    interval_end = context["data_interval_end"]
    store.set("interval_end", interval_end)


@task(inlets=[ORDERS], outlets=[ORDERS])
def load(asset_state_store=None):
    store = asset_state_store[ORDERS]
    store.set("watermark", datetime.utcnow())
    new_watermark = datetime.utcnow().isoformat()
    store.set("last_watermark", new_watermark)


@dag(schedule=None)
def values():
    checkpoints()
    load()


values()
