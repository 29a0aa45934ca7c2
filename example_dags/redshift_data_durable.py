"""Amazon Redshift Data API: run SQL once per task instance, however the worker dies.

Use when: a task runs SQL on a Redshift cluster or Serverless workgroup through the Data API and a
second run would do harm (an INSERT that doubles rows, an UNLOAD that writes twice). The
statement id is stored before the try waits, and the request carries the submission token as the
Data API's ClientToken, so a retry - also one whose predecessor died right after ExecuteStatement -
follows the statement already running instead of running the SQL again. The deferrable task waits
in the triggerer with this package's RedshiftDataStatementTrigger; the list of SQL runs as one batch and
returns its sub-statement ids.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG

from resumable_jobs.providers.amazon import RedshiftDataOperator

with DAG(
    dag_id="example_redshift_data_durable",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "amazon-redshift"],
    default_args={"retries": 3, "aws_conn_id": "aws_default", "region_name": "eu-west-1"},
):
    load = RedshiftDataOperator(
        task_id="load_daily_sales",
        workgroup_name="analytics",
        database="dev",
        sql="INSERT INTO sales SELECT * FROM staging.sales WHERE sale_day = '{{ ds }}'",
        deferrable=True,
        poll_interval=15,
    )
    rebuild = RedshiftDataOperator(
        task_id="rebuild_rollups",
        workgroup_name="analytics",
        database="dev",
        sql=[
            "DELETE FROM sales_daily WHERE sale_day = '{{ ds }}'",
            "INSERT INTO sales_daily SELECT sale_day, SUM(amount) FROM sales WHERE sale_day = '{{ ds }}' GROUP BY 1",
        ],
    )
    load >> rebuild
