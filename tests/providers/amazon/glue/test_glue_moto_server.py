"""GlueJobOperator and upstream's real ``GlueJobCompleteTrigger`` (aiobotocore) against moto_server.

The in-process tests replace the trigger's ``run`` (moto's in-process mock does not serve
aiobotocore); here the trigger runs unchanged over HTTP against a ``moto_server`` process that
has ``resumable_jobs.local.moto_models.glue`` installed, and the stand-in's cross-process
controls (holding runs through moto's state-manager API, releasing one through the route the
model adds) are exercised the way the production drills use them.
"""

from __future__ import annotations

import itertools

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.amazon import GlueJobOperator
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_crash_scenario,
    run_try,
)
from tests.providers.amazon.glue.conftest import ROLE_ARN, SCRIPT

_jobs = itertools.count(1)


@pytest.fixture(scope="module")
def moto_server():
    pytest.importorskip("moto.server", reason="moto[server] is not installed")
    from resumable_jobs.local.moto_server import LocalMotoServer

    with LocalMotoServer() as server:
        yield server


@pytest.fixture
def glue_server(moto_server, monkeypatch):
    """The server as the ``aws_default`` connection; moto's default progression again afterwards."""
    for name, value in moto_server.airflow_connection_env("aws_default").items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    yield moto_server
    moto_server.hold_glue_runs(False)


def _op(job_name: str, **kwargs):
    kwargs.setdefault("task_id", "glue")
    kwargs.setdefault("deferrable", True)
    return GlueJobOperator(
        job_name=job_name,
        script_location=SCRIPT,
        iam_role_arn=ROLE_ARN,
        job_poll_interval=0,
        waiter_delay=1,
        **kwargs,
    )


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_real_trigger_deferrable_crash_matrix_one_run_each(glue_server, point):
    job = f"rj-server-{next(_jobs)}"
    glue_server.pace_glue_runs(2)
    outcome = run_crash_scenario(lambda: _op(job), point)
    runs = glue_server.glue_job_runs(job)
    assert [run["Id"] for run in runs] == [outcome.result]
    assert runs[0]["JobRunState"] == "SUCCEEDED"


def test_real_trigger_reports_a_run_released_as_failed(glue_server):
    job = f"rj-server-{next(_jobs)}"
    glue_server.hold_glue_runs()
    op = _op(job)
    build = op.build_trigger

    def release_failed_then_trigger(external_id, context):
        glue_server.release_glue_job_run(external_id, "FAILED")  # across processes, through the model's route
        return build(external_id, context)

    object.__setattr__(op, "build_trigger", release_failed_then_trigger)
    with pytest.raises(ExternalJobFailed, match="ended FAILED"):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert [run["JobRunState"] for run in glue_server.glue_job_runs(job)] == ["FAILED"]


def test_batch_stop_job_run_stops_a_held_run_over_http(glue_server):
    job = f"rj-server-{next(_jobs)}"
    glue_server.hold_glue_runs()
    run_id = run_try(_op(job, wait_for_termination=False, deferrable=False), make_context(InMemoryTaskStateStore()))
    assert glue_server.glue_job_runs(job)[0]["JobRunState"] == "RUNNING"
    _op(job).cancel_job(run_id, make_context())
    states = [glue_server.glue_job_runs(job)[0]["JobRunState"] for _ in range(2)]
    assert states == ["STOPPING", "STOPPED"]
