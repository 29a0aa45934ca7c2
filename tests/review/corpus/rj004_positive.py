"""RJ004 positives: watermarks kept in Variables."""

from datetime import datetime, timezone

from airflow.providers.standard.operators.python import PythonOperator
from airflow.sdk import Variable, dag, task


def fetch_since(since):
    return [since]


@task
def incremental_load(asset_name: str):
    since = Variable.get(f"watermark_{asset_name}", default=None)
    fetch_since(since)
    Variable.set(f"watermark_{asset_name}", datetime.now(tz=timezone.utc).isoformat())


def sync_orders():
    last = Variable.get("orders_last_processed_at")
    fetch_since(last)
    Variable.set("orders_last_processed_at", datetime.now(tz=timezone.utc).isoformat())


@task
def reader_only():
    return Variable.get("customers_high_watermark")


@dag(schedule=None)
def watermarks():
    incremental_load("orders")
    PythonOperator(task_id="sync_orders", python_callable=sync_orders)
    reader_only()


watermarks()
