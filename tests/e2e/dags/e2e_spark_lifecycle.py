"""DAGs for the end-to-end job-lifecycle tests: a durable Spark task that says when it is running.

On try 1, once the driver is RUNNING, the task writes ``<RJ_E2E_MARKER_DIR>/<dag_id>.json`` with
its own pid, its parent's (the task supervisor's) and the driver id. The test then does what
production does to a running task - SIGTERM to the supervisor (a worker shutting down), or the
task instance marked failed through the REST API - and follows what Airflow does next.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from pathlib import Path
from typing import Any

from airflow.sdk import DAG

from resumable_jobs.providers.spark import SparkSubmitOperator


class ReportingSparkSubmitOperator(SparkSubmitOperator):
    """Writes the marker file on try 1 once the driver runs; otherwise the plain operator."""

    def poll_until_complete(self, external_id: Any, context: Any) -> None:
        if context["ti"].try_number == 1:
            deadline = time.monotonic() + 120
            while self.get_job_status(external_id, context) != "RUNNING" and time.monotonic() < deadline:
                time.sleep(0.5)
            marker = Path(os.environ["RJ_E2E_MARKER_DIR"]) / f"{context['dag'].dag_id}.json"
            payload = {"pid": os.getpid(), "supervisor_pid": os.getppid(), "driver_id": external_id}
            marker.with_suffix(".tmp").write_text(json.dumps(payload))
            marker.with_suffix(".tmp").rename(marker)
        super().poll_until_complete(external_id, context)


for dag_id, retries in (("e2e_spark_worker_sigterm", 2), ("e2e_spark_marked_failed", 2)):
    with DAG(
        dag_id=dag_id,
        schedule=None,
        start_date=datetime.datetime(2026, 1, 1),
        catchup=False,
        default_args={"retries": retries, "retry_delay": datetime.timedelta(seconds=2)},
    ):
        ReportingSparkSubmitOperator(
            task_id="spark_job",
            application=os.environ.get("RJ_E2E_SPARK_APP", "/missing/slow_sum.py"),
            application_args=["40"],
            name=f"rj-{dag_id}",
            driver_memory="512m",
            executor_memory="512m",
            total_executor_cores=1,
            conn_id="spark_default",
            status_poll_interval=1,
        )
