"""EmrContainerOperator against moto's EMR on EKS (ThreadedMotoServer + our models).

The real ``EmrContainerHook`` submits and polls; the real ``EmrContainerTrigger`` waits in the
deferrable tests (aiobotocore against the same server). moto leaves runs RUNNING until released,
so most tests release them first (``immediate``: COMPLETED at the next read). Job runs are
counted from ListJobRuns: what the service saw.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.amazon import EmrContainerOperator
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    assert_crash_safe,
    assert_job_lifecycle,
    crash_at,
    make_context,
    run_crash_scenario,
    run_trigger_until_event,
    run_try,
)
from tests.providers.amazon.emr_fixtures import (
    EKS_DRIVER,
    REGION,
    ROLE,
)

ID_KEY = "emr_containers_job_id"


def _op(cluster, **kwargs):
    kwargs.setdefault("task_id", "eks_etl")
    kwargs.setdefault("name", "nightly-etl")
    kwargs.setdefault("virtual_cluster_id", cluster.virtual_cluster_id)
    kwargs.setdefault("execution_role_arn", ROLE)
    kwargs.setdefault("release_label", "emr-6.15.0-latest")
    kwargs.setdefault("job_driver", EKS_DRIVER)
    kwargs.setdefault("aws_conn_id", None)
    kwargs.setdefault("region_name", REGION)
    kwargs.setdefault("poll_interval", 0)
    return EmrContainerOperator(**kwargs)


@pytest.fixture
def cluster(virtual_cluster):
    virtual_cluster.release()
    return virtual_cluster


# ---------------------------------------------------------------- every Airflow version
def test_fresh_run_starts_one_job_run_with_the_submission_token_and_returns_its_id(cluster):
    ti = FakeTaskInstance()
    result = run_try(_op(cluster, tags={"team": "data"}), make_context(InMemoryTaskStateStore(), ti))
    (run,) = cluster.runs()
    assert result == run["id"] and ti.xcom[ID_KEY] == result
    described = cluster.run(result)
    assert described["state"] == "COMPLETED"
    assert described["clientToken"].startswith(f"{ti.task_id}-g")
    assert described["tags"] == {"team": "data"}


def test_a_failed_run_fails_the_try_with_its_reason(cluster):
    cluster.fail()
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED; failureReason: USER_ERROR; stateDetails: Job run"):
        run_try(_op(cluster), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert len(cluster.runs()) == 1


def test_submit_only_returns_the_id_of_the_running_run(virtual_cluster):
    result = run_try(_op(virtual_cluster, wait_for_completion=False), make_context(None, FakeTaskInstance()))
    assert [run["id"] for run in virtual_cluster.runs()] == [result]
    assert virtual_cluster.run(result)["state"] == "RUNNING"


def test_deferrable_run_waits_in_upstreams_trigger_and_returns_the_id(cluster):
    ti = FakeTaskInstance()
    operator = _op(cluster, deferrable=True)
    with pytest.raises(BaseException) as deferred:
        operator.execute(make_context(InMemoryTaskStateStore(), ti))
    trigger = deferred.value.trigger
    assert type(trigger).__name__ == "EmrContainerTrigger"
    assert trigger.job_id == ti.xcom[ID_KEY] and trigger.virtual_cluster_id == cluster.virtual_cluster_id
    event = run_trigger_until_event(trigger)
    assert operator.execute_complete(make_context(InMemoryTaskStateStore(), ti), event=event) == trigger.job_id


def test_deferrable_failed_run_raises_with_its_reason(cluster):
    cluster.fail()
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED; failureReason: USER_ERROR"):
        run_try(_op(cluster, deferrable=True), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


@pytest.mark.durable_only
def test_max_polling_attempts_ends_the_try_and_a_retry_follows_the_same_run(virtual_cluster):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    with pytest.raises(ExternalJobFailed, match=r"still RUNNING after 3 status checks \(max_polling_attempts\)"):
        run_try(_op(virtual_cluster, max_polling_attempts=3), make_context(store, ti))
    (run,) = virtual_cluster.runs()
    assert virtual_cluster.run(run["id"])["state"] == "RUNNING"  # kept: a retry follows it
    virtual_cluster.release()
    assert run_try(_op(virtual_cluster, max_polling_attempts=3), make_context(store, ti.next_try())) == run["id"]
    assert len(virtual_cluster.runs()) == 1


def test_a_users_client_request_token_is_the_runs_token(cluster):
    run_try(_op(cluster, client_request_token="nightly-2026-01-01"), make_context(None, FakeTaskInstance()))
    (run,) = cluster.runs()
    assert cluster.run(run["id"])["clientToken"] == "nightly-2026-01-01"


# ---------------------------------------------------------------- crash safety (Airflow >= 3.3)
@pytest.mark.durable_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_crash_points_leave_one_job_run(cluster, point):
    assert_crash_safe(lambda: _op(cluster), points=[point], submit_window_closed=True)
    assert len(cluster.runs()) == 1


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_crash_points_leave_one_job_run(cluster, point):
    assert_crash_safe(lambda: _op(cluster, deferrable=True), points=[point], submit_window_closed=True)
    assert len(cluster.runs()) == 1


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SUBMIT_ONLY_POINTS, ids=lambda p: p.name)
def test_submit_only_crash_points_leave_one_job_run(virtual_cluster, point):
    assert_crash_safe(
        lambda: _op(virtual_cluster, wait_for_completion=False), points=[point], submit_window_closed=True
    )
    assert len(virtual_cluster.runs()) == 1


@pytest.mark.durable_only
def test_the_lost_submission_is_answered_by_the_client_token(cluster):
    outcome = run_crash_scenario(lambda: _op(cluster), CrashPoint.AFTER_SUBMIT)
    (run,) = cluster.runs()
    assert outcome.submitted_ids == [run["id"], run["id"]]  # two StartJobRun calls, one run
    assert outcome.result == run["id"] and outcome.store.get(ID_KEY) == run["id"]


@pytest.mark.durable_only
def test_a_retry_whose_run_is_still_active_defers_again_to_the_same_run(virtual_cluster):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = _op(virtual_cluster, deferrable=True)
    with crash_at(first, CrashPoint.AFTER_DEFER, store), pytest.raises(BaseException, match="simulated worker"):
        first.execute(make_context(store, ti))
    (run,) = virtual_cluster.runs()
    retry, context = _op(virtual_cluster, deferrable=True), make_context(store, ti.next_try())
    with pytest.raises(BaseException) as deferred:
        retry.execute(context)
    assert deferred.value.trigger.job_id == run["id"]
    virtual_cluster.release()
    assert retry.execute_complete(context, event=run_trigger_until_event(deferred.value.trigger)) == run["id"]
    assert len(virtual_cluster.runs()) == 1


@pytest.mark.durable_only
def test_a_users_token_is_only_the_first_generations(cluster):
    """Upstream's #69625 problem: a fixed token hands the FAILED run back to every retry."""
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    cluster.fail()
    with pytest.raises(ExternalJobFailed):
        run_try(_op(cluster, client_request_token="users-token"), make_context(store, ti))
    cluster.release()
    result = run_try(_op(cluster, client_request_token="users-token"), make_context(store, ti.next_try()))
    first, second = cluster.runs()
    assert result == second["id"] != first["id"]
    assert cluster.run(result)["clientToken"] != "users-token"


@pytest.mark.durable_only
def test_job_lifecycle_durable(virtual_cluster):
    virtual_cluster.progress(times=2)
    outcomes = assert_job_lifecycle(lambda: _op(virtual_cluster))
    cancelled = {job for outcome in outcomes for job in outcome.cancelled_ids}
    assert {virtual_cluster.run(job)["state"] for job in cancelled} == {"CANCELLED"}
    assert len(virtual_cluster.runs()) == len(outcomes)


def test_job_lifecycle_without_crash_recovery(virtual_cluster):
    virtual_cluster.progress(times=2)
    outcomes = assert_job_lifecycle(lambda: _op(virtual_cluster, durable=False))
    assert all(outcome.cancelled for outcome in outcomes)
    assert {run["state"] for run in virtual_cluster.runs()} == {"CANCELLED"}


@pytest.mark.shim_only
def test_below_33_every_try_starts_its_own_run(cluster):
    run_crash_scenario(lambda: _op(cluster), CrashPoint.AFTER_SUBMIT)
    assert len(cluster.runs()) == 2
