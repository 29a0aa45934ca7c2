"""The durable deferrable path meets a real triggerer: crashes before, during and after deferral.

Upstream's deferrable path submits and defers without persisting the job id; ours persists
first. These drills check it in a real deployment: a try killed between persisting and
``defer()``, a triggerer SIGKILLed while it waits and replaced by a new one, and a trigger that
errors while the job still runs. Each asserts one job on the backend, its end state, the task
instance's final state and try number, and the returned XCom.
"""

from __future__ import annotations

import time

from resumable_jobs.local import worker_deaths
from resumable_jobs.local.net import wait_until
from tests.production.conftest import on, record
from tests.production.outcomes import assert_single_job_succeeded, reconnect_line, resumed_line

DEFERRABLE_DAG = {
    "spark": "prod_spark_deferrable",
    "databricks": "prod_databricks_deferrable",
    "bigquery": "prod_bigquery_deferrable",
    "snowflake": "prod_snowflake_deferrable",
    "dbt_cloud": "prod_dbt_cloud_deferrable",
    "glue": "prod_glue_deferrable",
    "redshift": "prod_redshift_deferrable",
    "kubernetes": "prod_kubernetes_deferrable",
    "emr_serverless": "prod_emr_serverless_deferrable",
    "emr_containers": "prod_emr_containers_deferrable",
}
KILL_BEFORE_DEFER_DAG = {"spark": "prod_spark_kill_before_defer", "batch": "prod_batch_kill_before_defer"}


@on("local:spark", "local:batch")
def test_sigkill_between_persisting_the_id_and_defer_follows_the_same_job(drill_factory, backend):
    """moto finishes Batch jobs inside SubmitJob: there the retry finds it done and returns it."""
    drill = drill_factory("kill-before-defer", KILL_BEFORE_DEFER_DAG[backend.name]).start()
    first = drill.log(1).wait_for("PRODUCTION DRILL: SIGKILL of this task process at before_defer", timeout=300)
    (job,) = drill.new_jobs()
    line = drill.wait_for_line(2, resumed_line(drill, job))
    if backend.holds_jobs:
        drill.wait_for_task("deferred on try 2", lambda ti: ti["state"] == "deferred" and ti["try_number"] == 2)
        drill.wait_until_the_scheduler_saw_the_deferral(2)
        backend.release(drill.run_id, job)
    assert drill.finish() == "success", drill.tries_summary()
    assert_single_job_succeeded(drill, job, try_number=2)
    record(drill, latency=f"{line.epoch - first.epoch:.1f}s to {'reconnect' if backend.holds_jobs else 'return'}")


@on("local:spark", "local:databricks", "local:bigquery", "local:snowflake", "local:dbt_cloud", "local:glue", "local:redshift", "local:kubernetes", "local:emr_serverless", "local:emr_containers", "celery:spark")
def test_triggerer_sigkill_while_deferred_and_a_new_triggerer_finishes_one_job(drill_factory, backend):
    drill = drill_factory("triggerer-restart", DEFERRABLE_DAG[backend.name]).start()
    job, deferred = drill.wait_deferred()
    old_triggerer = deferred["triggerer_job"]["id"]
    death = worker_deaths.restart_triggerer(drill.airflow)
    taken_over = drill.wait_for_task(
        "taken over by the new triggerer",
        lambda ti: ti["state"] == "deferred" and (ti.get("triggerer_job") or {}).get("id") not in (None, old_triggerer),
    )
    latency = time.time() - death.at
    assert taken_over["try_number"] == 1  # no retry: the task stayed deferred through the restart
    assert [j.state for j in drill.new_jobs()] == [backend.running]
    backend.release(drill.run_id, job)
    assert drill.finish() == "success", drill.tries_summary()
    assert_single_job_succeeded(drill, job, try_number=1)
    record(drill, latency=f"{latency:.1f}s until the new triggerer took the trigger")


@on("local:spark")
def test_trigger_error_while_the_job_runs_and_the_retry_defers_again_to_it(drill_factory, backend):
    drill = drill_factory("trigger-error", "prod_spark_trigger_error").start()
    job, _ = drill.wait_deferred()
    failed = drill.wait_for_line(1, f"could not read the status of Spark driver {job.id}")
    line = drill.wait_for_line(2, reconnect_line(job))
    assert [j.state for j in drill.new_jobs()] == [backend.running]  # the trigger's error left the job alone
    wait_until(
        lambda: drill.ti()["state"] == "deferred",
        timeout=300,
        what="try 2 to defer to the same job",
        check=drill._run_not_failed,
    )
    drill.wait_until_the_scheduler_saw_the_deferral(2)
    backend.release(drill.run_id, job)
    assert drill.finish() == "success", drill.tries_summary()
    assert_single_job_succeeded(drill, job, try_number=2)
    record(drill, latency=f"{line.epoch - failed.epoch:.1f}s from the trigger error to the reconnect")
