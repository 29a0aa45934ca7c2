"""The job follows the task instance when Airflow itself ends or restarts the task.

Marked failed through the REST API while it runs: Airflow tells the supervisor at its next
heartbeat, the task's ``on_kill`` cancels the job, nothing is left running. A whole worker lost
on the task's last try: no code runs in the worker, the scheduler's heartbeat timeout fails the
task instance for good and has the dag-processor run its failure callback, which cancels the job
the try pushed to XCom. Cleared after success:
the next try submits one new job (not the old result). Submit-only with a downstream sensor: the
submit task dies after submitting, its retry returns the same job id, and the sensor follows that
one job.
"""

from __future__ import annotations

import time

from resumable_jobs.local import worker_deaths
from tests.production.conftest import on, record
from tests.production.outcomes import assert_single_job_succeeded, resumed_line, submitted_line

SYNC_DAG = {"spark": "prod_spark_sync", "batch": "prod_batch_sync", "kubernetes": "prod_kubernetes_sync"}
LAST_TRY_DAG = {"spark": "prod_spark_last_try", "kubernetes": "prod_kubernetes_last_try"}
SUBMIT_AND_SENSOR_DAG = {"spark": "prod_spark_submit_and_sensor", "batch": "prod_batch_submit_and_sensor"}


@on("local:spark", "local:kubernetes")
def test_running_task_marked_failed_through_the_api_cancels_its_job(drill_factory, backend):
    drill = drill_factory("marked-failed", SYNC_DAG[backend.name]).start()
    job = drill.wait_polling()
    drill.airflow.rest.set_task_state(drill.dag_id, drill.run_id, "job", "failed")
    assert drill.finish() == "failed"
    jobs = drill.wait_for_jobs_to_end(f"job {job.id} to end after the task was marked failed", timeout=120)
    assert [j.id for j in jobs] == [job.id], "another job started"
    assert jobs[0].state in backend.cancelled, "the job was not cancelled"
    ti = drill.ti()
    assert (ti["state"], ti["try_number"]) == ("failed", 1)
    assert drill.xcom() is None  # the task never returned
    if backend.name == "spark":
        assert not any(d["id"] == job.id for d in drill.backend.cluster.active_drivers())  # nothing orphaned
    record(drill, latency="cancelled on mark-failed")


@on("local:spark", "local:kubernetes")
def test_whole_worker_sigkill_on_the_last_try_has_the_failure_callback_cancel_the_job(drill_factory, backend):
    drill = drill_factory("last-try-sigkill", LAST_TRY_DAG[backend.name]).start()
    job = drill.wait_polling()
    death = worker_deaths.kill_whole_worker(drill.airflow, drill.dag_id, drill.run_id, "job")
    assert drill.finish() == "failed"
    assert len(drill.heartbeat_timeouts()) == 1  # nobody but the scheduler saw the worker go
    jobs = drill.wait_for_jobs_to_end(f"job {job.id} to be cancelled by the failure callback", timeout=180)
    assert [j.id for j in jobs] == [job.id], "another job started"
    assert jobs[0].state in backend.cancelled, "the job was left running"
    ti = drill.ti()
    assert (ti["state"], ti["try_number"]) == ("failed", 1)
    cancelled = drill.airflow.logs_containing(f"Cancelling job {job.id!r} after the final failure")
    assert cancelled, "no log of the failure callback's cancel"
    record(drill, latency=f"{time.time() - death.at:.1f}s until the callback had cancelled it (at most)")


@on("local:spark", "local:batch")
def test_cleared_successful_task_submits_exactly_one_new_job(drill_factory, backend):
    drill = drill_factory("cleared", SYNC_DAG[backend.name]).start()
    backend.release(drill.run_id, None)  # the first job may finish as soon as it starts
    assert drill.finish() == "success"
    (first,) = drill.new_jobs()
    assert str(drill.xcom()) == str(first.id)
    drill.airflow.rest.clear_task(drill.dag_id, drill.run_id, "job")
    drill.wait_for_task("succeeded again after the clear", lambda ti: ti["try_number"] == 2 and ti["state"] == "success")
    jobs = drill.new_jobs()
    assert len(jobs) == 2 and jobs[0].id == first.id, jobs
    second = jobs[1]
    assert [j.state for j in jobs] == [backend.succeeded, backend.succeeded]
    ti = drill.ti()
    assert (ti["state"], ti["try_number"]) == ("success", 2)
    assert str(drill.xcom()) == str(second.id)
    assert drill.log(2).contains(submitted_line(second, generation=2))
    record(drill, latency="one new job after clear")


@on("local:spark", "local:batch")
def test_submit_only_task_killed_after_submitting_and_the_sensor_follows_one_job(drill_factory, backend):
    drill = drill_factory("submit-only-sensor", SUBMIT_AND_SENSOR_DAG[backend.name], task_id="submit").start()
    killed = drill.log(1).wait_for("PRODUCTION DRILL: SIGKILL of this task process at after_persist", timeout=300)
    (job,) = drill.new_jobs()
    line = drill.wait_for_line(2, resumed_line(drill, job))
    drill.wait_for_task("succeeded on try 2", lambda ti: ti["state"] == "success" and ti["try_number"] == 2)
    sensing = f"sensor sees {'driver' if backend.name == 'spark' else 'job'} {job.id}"
    drill.wait_for_line(1, sensing, task_id="wait")
    backend.release(drill.run_id, job)
    assert drill.finish() == "success", drill.tries_summary("wait")
    assert_single_job_succeeded(drill, job, try_number=2)  # the submit task: retry returned the same id
    sensor = drill.ti("wait")
    assert sensor["state"] == "success"
    assert str(drill.xcom("wait")) == str(job.id)  # the sensor followed that job, the only one
    record(drill, latency=f"{line.epoch - killed.epoch:.1f}s to return the stored id")
