"""Production-suite DAGs on the local Spark standalone cluster (sync, deferrable, submit-only).

Every driver runs ``apps/hold_app.py`` and holds until the drill creates the run's release file
(``dag_run.conf["release"]``), so a job is exactly as long as the drill needs. The cluster comes
from AIRFLOW_CONN_SPARK_DEFAULT; the application path from RJ_PROD_SPARK_APP; a REST URL where
nothing listens (for a trigger that cannot reach the master) from RJ_PROD_UNREACHABLE_REST_URL.
"""

from __future__ import annotations

import os
from typing import Any

from airflow.sdk import DAG, PokeReturnValue, task
from prod_support import RETRY_ARGS, START, DieOnFirstTry

from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.trigger import SparkDriverTrigger

HELD_DRIVER = {
    "application": os.environ.get("RJ_PROD_SPARK_APP", "/missing/hold_app.py"),
    "application_args": ["{{ dag_run.conf['release'] }}", "{{ dag_run.conf.get('cap', 300) }}"],
    "driver_memory": "512m",
    "conn_id": "spark_default",
    "status_poll_interval": 1,
}


class SparkDyingBeforeDefer(DieOnFirstTry, SparkSubmitOperator):
    crash_point = "before_defer"


class SparkDyingAfterPersist(DieOnFirstTry, SparkSubmitOperator):
    crash_point = "after_persist"


class SparkTriggerLosesTheMaster(SparkSubmitOperator):
    """Try 1 defers to a trigger that polls an address where no master answers: it errors out."""

    def build_trigger(self, external_id: Any, context: Any) -> SparkDriverTrigger:
        trigger = super().build_trigger(external_id, context)
        if context["ti"].try_number == 1:
            trigger = SparkDriverTrigger(
                driver_id=trigger.driver_id,
                rest_urls=[os.environ.get("RJ_PROD_UNREACHABLE_REST_URL", "http://127.0.0.1:9")],
                poll_interval=1,
                request_timeout=5,
                max_consecutive_errors=3,
            )
        return trigger


def _dag(dag_id: str) -> DAG:
    return DAG(dag_id=dag_id, schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS)


with _dag("prod_spark_sync"):
    SparkSubmitOperator(task_id="job", name="rj-prod-sync", **HELD_DRIVER)

with DAG(dag_id="prod_spark_last_try", schedule=None, start_date=START, catchup=False, default_args={"retries": 0}):
    # no retry follows a lost try: the failure callback is the only code that can end the job
    SparkSubmitOperator(task_id="job", name="rj-prod-last-try", **HELD_DRIVER)

with _dag("prod_spark_deferrable"):
    SparkSubmitOperator(task_id="job", name="rj-prod-deferrable", deferrable=True, **HELD_DRIVER)

with _dag("prod_spark_kill_before_defer"):
    SparkDyingBeforeDefer(task_id="job", name="rj-prod-kill-before-defer", deferrable=True, **HELD_DRIVER)

with _dag("prod_spark_trigger_error"):
    SparkTriggerLosesTheMaster(task_id="job", name="rj-prod-trigger-error", deferrable=True, **HELD_DRIVER)

with _dag("prod_spark_submit_and_sensor"):
    submit = SparkDyingAfterPersist(
        task_id="submit", name="rj-prod-submit-only", wait_for_termination=False, **HELD_DRIVER
    )

    @task.sensor(task_id="wait", poke_interval=2, timeout=600, mode="reschedule", retries=2)
    def wait(driver_id: str) -> PokeReturnValue:
        from resumable_jobs.providers.spark.connection import resolve_endpoint
        from resumable_jobs.providers.spark.rest_client import SparkRestClient

        status = SparkRestClient(resolve_endpoint("spark_default").rest_urls).status(driver_id)
        print(f"PRODUCTION DRILL: sensor sees driver {driver_id} {status.state}")
        if status.terminal and not status.succeeded:
            raise RuntimeError(f"driver {driver_id} ended {status.state}")
        return PokeReturnValue(is_done=status.terminal, xcom_value=driver_id)

    wait(submit.output)
