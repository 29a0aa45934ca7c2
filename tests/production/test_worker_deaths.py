"""A worker dies while a synchronous durable task polls its job: the job must survive, once.

Each test kills a real try in a real deployment the way production does (see
``resumable_jobs.local.worker_deaths``) while the job runs on the backend, then follows Airflow's
own recovery - the supervisor's report, the scheduler's heartbeat timeout, a retry on the other
Celery worker - and asserts what a user would check: the jobs the backend received and how they
ended, the task instance's final state and try number, the returned XCom, and that the retry
reconnected instead of submitting.

The SIGTERM cases assert the job-lifecycle rule (issue 11): a worker that shuts down keeps the
job for its retry, and the try ends promptly instead of waiting for a heartbeat timeout.
"""

from __future__ import annotations

import pytest

from resumable_jobs.local import worker_deaths
from resumable_jobs.local.net import wait_until
from tests.production.conftest import on, record
from tests.production.outcomes import assert_single_job_succeeded, kept_line, reconnect_line

SYNC_DAG = {
    "spark": "prod_spark_sync",
    "databricks": "prod_databricks_sync",
    "bigquery": "prod_bigquery_sync",
    "snowflake": "prod_snowflake_sync",
    "dbt_cloud": "prod_dbt_cloud_sync",
    "glue": "prod_glue_sync",
    "redshift": "prod_redshift_sync",
    "kubernetes": "prod_kubernetes_sync",
    "emr_serverless": "prod_emr_serverless_sync",
    "emr_containers": "prod_emr_containers_sync",
}


def reconnect_and_finish(drill, job, death, *, retry: int = 2) -> tuple[float, str]:
    """Wait for try ``retry`` to reconnect, release the job, check the outcome.

    Returns the latency (kill to the reconnect line) and the daemon the retry ran under.
    """
    line = drill.wait_for_line(retry, reconnect_line(job))
    latency = line.epoch - death.at
    retry_ran_under = drill.airflow.task_processes(drill.dag_id, drill.run_id, drill.task_id).component
    drill.backend.release(drill.run_id, job)
    assert drill.finish() == "success", drill.tries_summary()
    assert_single_job_succeeded(drill, job, try_number=retry)
    record(drill, latency=f"{latency:.1f}s to reconnect ({death.way})")
    return latency, retry_ran_under


@on("local:spark")
def test_task_process_sigkill_mid_poll_reconnects(drill_factory):
    drill = drill_factory("task-sigkill", "prod_spark_sync").start()
    job = drill.wait_polling()
    death = worker_deaths.kill_task_process(drill.airflow, drill.dag_id, drill.run_id, "job")
    reconnect_and_finish(drill, job, death)
    # the supervisor saw its task die by SIGKILL and reported the failure itself
    assert any(event.fields.get("signal_name") == "SIGKILL" for event in drill.log(1).events())


@on("local:spark", "local:databricks", "local:bigquery", "local:snowflake", "local:dbt_cloud", "local:glue", "local:redshift", "local:kubernetes", "local:emr_serverless", "local:emr_containers")
def test_supervisor_sigterm_keeps_the_job_and_the_retry_reconnects(drill_factory, backend):
    drill = drill_factory("worker-sigterm", SYNC_DAG[backend.name]).start()
    job = drill.wait_polling()
    death = worker_deaths.sigterm_supervisor(drill.airflow, drill.dag_id, drill.run_id, "job")
    # the try ends promptly as a failure Airflow retries; the job keeps running meanwhile
    drill.wait_for_task("up for retry or retried", lambda ti: ti["try_number"] >= 2 or ti["state"] == "up_for_retry")
    assert [j.state for j in drill.new_jobs()] == [backend.running], "the shutdown did not keep the job"
    assert drill.log(1).contains(kept_line(job))
    reconnect_and_finish(drill, job, death)
    # the try ended by itself: the scheduler never had to time its heartbeat out
    assert drill.heartbeat_timeouts() == []


@on("local:spark", "local:databricks", "local:bigquery", "local:snowflake", "local:dbt_cloud", "local:glue", "local:redshift", "local:kubernetes", "local:emr_serverless", "local:emr_containers", "celery:spark")
def test_whole_worker_sigkill_is_found_by_heartbeat_timeout_and_the_retry_reconnects(drill_factory, backend):
    drill = drill_factory("worker-sigkill", SYNC_DAG[backend.name]).start()
    job = drill.wait_polling()
    death = worker_deaths.kill_whole_worker(drill.airflow, drill.dag_id, drill.run_id, "job")
    _, retry_ran_under = reconnect_and_finish(drill, job, death)
    # nobody reported the death: the scheduler's heartbeat timeout found it
    assert len(drill.heartbeat_timeouts()) == 1
    if drill.airflow.executor == "CeleryExecutor":
        assert retry_ran_under != death.component, "the retry ran on the killed worker"


@on("celery:spark")
def test_celery_warm_shutdown_drains_the_running_task(drill_factory):
    drill = drill_factory("celery-warm-shutdown", "prod_spark_sync").start()
    job = drill.wait_polling()
    death = worker_deaths.celery_warm_shutdown(drill.airflow, drill.dag_id, drill.run_id, "job")
    worker = drill.airflow.components[death.component]
    wait_until(lambda: "Warm shutdown" in worker.log_tail(20000), timeout=60, what="Celery's warm shutdown")
    # the worker drains: the task keeps polling its job, on try 1 ...
    assert (drill.ti()["state"], drill.ti()["try_number"]) == ("running", 1)
    assert worker.running()
    drill.backend.release(drill.run_id, job)  # ... until the job finishes; then the worker exits
    drill.airflow.wait_component_exit(death.component)
    assert drill.finish() == "success"
    assert_single_job_succeeded(drill, job, try_number=1)
    record(drill, latency="drained (no retry)")


@on("celery:spark")
@pytest.mark.parametrize("way", ["celery_cold_shutdown", "worker_group_sigterm"])
def test_celery_worker_sigterm_keeps_the_job_and_the_other_worker_reconnects(drill_factory, way):
    """Cold shutdown: Celery SIGTERMs its pool child (the supervisor), which forwards it to the task.
    SIGTERM to the worker's process group (a container runtime): warm shutdown plus that SIGTERM."""
    drill = drill_factory(way.replace("_", "-"), "prod_spark_sync").start()
    job = drill.wait_polling()
    death = worker_deaths.WAYS[way](drill.airflow, drill.dag_id, drill.run_id, "job")
    drill.airflow.wait_component_exit(death.component)
    assert drill.log(1).contains(kept_line(job))
    _, retry_ran_under = reconnect_and_finish(drill, job, death)
    assert retry_ran_under != death.component
    assert drill.heartbeat_timeouts() == []
