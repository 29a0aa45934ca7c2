"""Spark: submit a PySpark application to a standalone cluster, crash-safe.

Use when: your Spark runs as a standalone cluster with the REST submission server (port 6066).
A retry after a worker crash reconnects to the running driver instead of starting another one.
The connection ``spark_default`` gives the REST host (``spark://host`` is accepted and mapped to
http); ``durable=True`` is the default and only written out here to show where it goes.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.spark import SparkSubmitOperator

with DAG(
    dag_id="example_spark_submit_durable",
    schedule=None,
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "spark"],
):
    SparkSubmitOperator(
        task_id="aggregate_orders",
        application="/opt/jobs/aggregate_orders.py",
        application_args=["--date", "{{ ds }}"],
        conf={"spark.sql.shuffle.partitions": "8"},
        driver_memory="1g",
        executor_memory="1g",
        total_executor_cores=2,
        conn_id="spark_default",
        retries=3,
        durable=True,
    )
