"""End to end: a real Airflow 3.3 scheduler path, a real SIGKILL, a real moto_server for Batch.

Each DAG's task kills its own process on try 1 at a named point (see batch_dags/). Airflow notices
the dead task, schedules try 2, and try 2 must continue with the job try 1 left behind. The
assertions are what a user would check: how many jobs the queue received, the task's final state
and try number, the XCom, and what try 2 logged.

A crash while the job is RUNNING cannot be staged here: moto without Docker finishes every job
inside SubmitJob (see ``resumable_jobs.local.moto_server``). The fixtures are defined in
this module, with a dags folder holding only the Batch DAG file, so these tests neither need nor
disturb the Spark fixtures of ``conftest.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.logs import has_event

pytestmark = [pytest.mark.e2e, pytest.mark.durable_only]

DAGS = Path(__file__).resolve().parent / "batch_dags"
TASK_ID = "batch_job"


@pytest.fixture(scope="module")
def moto_server():
    pytest.importorskip("moto.server", reason="moto[server] is not installed")
    from resumable_jobs.local.moto_server import LocalMotoServer

    with LocalMotoServer() as server:
        yield server


@pytest.fixture(scope="module")
def batch_airflow(moto_server):
    from resumable_jobs.local.embedded_airflow import EmbeddedAirflow

    env = {
        **moto_server.airflow_connection_env("aws_default"),
        "RJ_E2E_BATCH_QUEUE": moto_server.job_queue,
        "RJ_E2E_BATCH_DEFINITION": moto_server.job_definition,
    }
    with EmbeddedAirflow(DAGS, extra_env=env) as embedded:
        yield embedded


def _run(airflow, moto_server, dag_id):
    before = {job["jobId"] for job in moto_server.list_jobs()}
    try:
        rc = airflow.run_dag(dag_id, timeout=180)
    except TimeoutError as error:  # the fixture deletes AIRFLOW_HOME: keep what explains the hang
        tail = (airflow.home / f"dags-test-{dag_id}.log").read_text(errors="replace")[-3000:]
        tries = {n: airflow.task_log(dag_id, TASK_ID, n)[-1500:] for n in (1, 2, 3)}
        raise AssertionError(f"{error}\n--- dags test log (tail)\n{tail}\n--- task logs (tails)\n{tries}") from error
    new = [job for job in moto_server.list_jobs() if job["jobId"] not in before]
    (ti,) = airflow.task_instances(dag_id)
    return rc, new, ti


def test_crash_between_submit_and_checkpoint_adopts_the_orphan_by_its_tag(batch_airflow, moto_server):
    from resumable_jobs.providers.amazon.lookup import TOKEN_TAG_KEY

    dag_id = "e2e_batch_after_submit"
    rc, new, ti = _run(batch_airflow, moto_server, dag_id)
    assert rc == 0
    assert len(new) == 1, [job["jobId"] for job in new]  # the retry did not submit a second job
    (job,) = new
    assert job["status"] == "SUCCEEDED"
    assert job["tags"].get(TOKEN_TAG_KEY)
    assert (ti.state, ti.try_number) == ("success", 2)
    assert batch_airflow.xcom(dag_id, TASK_ID) == job["jobId"]
    assert f"E2E: SubmitJob returned {job['jobId']}" in batch_airflow.task_log(dag_id, TASK_ID, 1)
    second = batch_airflow.task_log(dag_id, TASK_ID, 2)
    assert has_event(second, "found by its submission token", external_id=job["jobId"], generation=1)
    assert has_event(second, "Job already completed successfully", external_id=job["jobId"], found_by_submission_token=True)
    assert "Submitting AWS Batch job" not in second


def test_crash_after_the_job_succeeded_returns_it_without_resubmitting(batch_airflow, moto_server):
    dag_id = "e2e_batch_after_succeeded"
    rc, new, ti = _run(batch_airflow, moto_server, dag_id)
    assert rc == 0
    assert [job["status"] for job in new] == ["SUCCEEDED"]
    (job,) = new
    assert (ti.state, ti.try_number) == ("success", 2)
    assert batch_airflow.xcom(dag_id, TASK_ID) == job["jobId"]
    assert f"AWS Batch job {job['jobId']} succeeded" in batch_airflow.task_log(dag_id, TASK_ID, 1)
    second = batch_airflow.task_log(dag_id, TASK_ID, 2)
    assert has_event(second, "Job already completed successfully", external_id=job["jobId"])
    assert "found by its submission token" not in second  # the id was persisted: no lookup needed
    assert "Submitting AWS Batch job" not in second
