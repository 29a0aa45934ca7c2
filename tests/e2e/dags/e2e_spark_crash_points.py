"""DAGs for the end-to-end crash tests: one per crash point, each on the local Spark cluster.

On its first try the task SIGKILLs its own process at the named point - no cleanup runs, exactly
like an OOM kill or an evicted pod - and Airflow's retry must deal with whatever was left behind.
The cluster's REST endpoint comes from AIRFLOW_CONN_SPARK_DEFAULT, the application from
RJ_E2E_SPARK_APP; both are set by the test.
"""

from __future__ import annotations

import datetime
import os
import signal
from typing import Any

from airflow.sdk import DAG

from resumable_jobs.providers.spark import SparkSubmitOperator

CRASH_POINTS = ("after_submit", "after_succeeded")


class SelfKillingSparkSubmitOperator(SparkSubmitOperator):
    """Kills its own task process at ``crash_point`` on try 1; behaves normally afterwards."""

    def __init__(self, *, crash_point: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.crash_point = crash_point

    def _die_if(self, point: str, context: Any) -> None:
        if self.crash_point == point and context["ti"].try_number == 1:
            self.log.warning("E2E: killing this task process with SIGKILL at %s", point)
            os.kill(os.getpid(), signal.SIGKILL)

    def submit_job(self, context: Any) -> Any:
        driver_id = super().submit_job(context)
        self._die_if("after_submit", context)
        return driver_id

    def poll_until_complete(self, external_id: Any, context: Any) -> None:
        super().poll_until_complete(external_id, context)
        self._die_if("after_succeeded", context)


for point in CRASH_POINTS:
    with DAG(
        dag_id=f"e2e_spark_{point}",
        schedule=None,
        start_date=datetime.datetime(2026, 1, 1),
        catchup=False,
        default_args={"retries": 2, "retry_delay": datetime.timedelta(seconds=1)},
    ):
        SelfKillingSparkSubmitOperator(
            task_id="spark_job",
            crash_point=point,
            application=os.environ.get("RJ_E2E_SPARK_APP", "/missing/slow_sum.py"),
            application_args=["15"],
            name=f"rj-e2e-{point}",
            driver_memory="512m",
            executor_memory="512m",
            total_executor_cores=1,
            conn_id="spark_default",
            status_poll_interval=1,
        )
