"""The crash-recovery demo DAG: one durable SparkSubmitOperator task with retries.

The operator is the package's own; the subclass only writes down which process follows which
driver (a JSON file per try in RJ_DEMO_STATE_DIR), so that ``resumable-jobs demo`` knows which
process to kill (the task, or its supervisor) and can print the timeline. It changes nothing about the decisions.
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

from airflow.sdk import DAG

from resumable_jobs.providers.spark import SparkSubmitOperator


class DemoSparkSubmitOperator(SparkSubmitOperator):
    def on_job_selected(self, external_id: Any, context: Any) -> None:
        super().on_job_selected(external_id, context)
        try_number = context["ti"].try_number
        record = {
            "try_number": try_number,
            "pid": os.getpid(),
            "supervisor_pid": os.getppid(),  # the task supervisor, which a worker's SIGTERM reaches
            "driver_id": external_id,
        }
        Path(os.environ["RJ_DEMO_STATE_DIR"], f"try-{try_number}.json").write_text(json.dumps(record))


with DAG(
    dag_id="resumable_jobs_demo",
    schedule=None,
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    default_args={"retries": 2, "retry_delay": datetime.timedelta(seconds=1)},
):
    DemoSparkSubmitOperator(
        task_id="aggregate",
        application=os.environ.get("RJ_DEMO_APP", "demo_job.py"),
        application_args=[os.environ.get("RJ_DEMO_JOB_SECONDS", "30")],
        name="resumable-jobs-demo",
        driver_memory="512m",
        executor_memory="512m",
        total_executor_cores=1,
        conn_id="spark_default",
        status_poll_interval=1,
    )
