"""What EMR Serverless and EMR on EKS job runs share, tested once on both (moto's ThreadedMotoServer).

Both operators start runs with StartJobRun's ``clientToken`` set to the submission token and wait
in upstream's trigger, so the same scenario must give the same outcome on both: one run per
submission, the run's id returned and pushed, a failed run failing the try with its reasons, and
every crash point leaving one run. Runs are counted from ListJobRuns: what the service saw. What
only one of them does (starting the application, the links, ``max_polling_attempts``...) is in
``test_emr_serverless.py`` / ``test_emr_containers.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest

from resumable_jobs import ExternalJobFailed
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
from tests.providers.amazon.emr_fixtures import container_operator, serverless_operator


@dataclass
class EmrKind:
    """One of the two services: its moto view, its operator builder and what its failures say."""

    runs: Any  # ServerlessApp / VirtualCluster: runs(), run(id), hold(), release(), fail(), progress()
    build: Any
    id_key: str
    trigger: str
    failure: str  # what the try's error says about a FAILED run

    def trigger_is_for(self, trigger: Any) -> bool:
        """The trigger follows this application / virtual cluster, with upstream's options."""
        if self.trigger == "EmrServerlessJobRunTrigger":
            return trigger.application_id == self.runs.application_id and trigger.cancel_on_kill is True
        return trigger.virtual_cluster_id == self.runs.virtual_cluster_id


@pytest.fixture(params=["EmrServerless", "EmrContainer"])
def emr(request) -> EmrKind:
    """Runs end SUCCESS / COMPLETED at their next read, unless the test holds, fails or paces them."""
    if request.param == "EmrServerless":
        app = request.getfixturevalue("serverless_app")
        failure = r"ended FAILED; stateDetails: Job run failed"
        return EmrKind(
            app, partial(serverless_operator, app), "emr_serverless_job_run_id", "EmrServerlessJobRunTrigger", failure
        )
    cluster = request.getfixturevalue("virtual_cluster")
    cluster.release()
    failure = r"ended FAILED; failureReason: USER_ERROR; stateDetails: Job run"
    return EmrKind(
        cluster, partial(container_operator, cluster), "emr_containers_job_id", "EmrContainerJobRunTrigger", failure
    )


# ---------------------------------------------------------------- every Airflow version
def test_a_failed_run_fails_the_try_with_its_reasons(emr):
    emr.runs.fail()
    with pytest.raises(ExternalJobFailed, match=emr.failure):
        run_try(emr.build(), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert len(emr.runs.runs()) == 1


def test_submit_only_returns_the_id_of_the_running_run(emr):
    emr.runs.hold()
    result = run_try(emr.build(wait_for_completion=False), make_context(None, FakeTaskInstance()))
    assert [run["id"] for run in emr.runs.runs()] == [result]
    assert emr.runs.run(result)["state"] == "RUNNING"


def test_deferrable_run_waits_in_our_trigger_and_returns_the_id(emr):
    ti = FakeTaskInstance()
    operator = emr.build(deferrable=True)
    with pytest.raises(BaseException) as deferred:
        operator.execute(make_context(InMemoryTaskStateStore(), ti))
    trigger = deferred.value.trigger
    assert type(trigger).__name__ == emr.trigger and emr.trigger_is_for(trigger)
    assert trigger.job_id == ti.xcom[emr.id_key]
    event = run_trigger_until_event(trigger)
    assert operator.execute_complete(make_context(InMemoryTaskStateStore(), ti), event=event) == trigger.job_id


def test_deferrable_failed_run_raises_with_its_reasons(emr):
    emr.runs.fail()
    with pytest.raises(ExternalJobFailed, match=emr.failure):
        run_try(emr.build(deferrable=True), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def test_job_lifecycle_without_crash_recovery(emr):
    emr.runs.progress(times=2)
    outcomes = assert_job_lifecycle(lambda: emr.build(durable=False))
    assert all(outcome.cancelled for outcome in outcomes)
    assert {run["state"] for run in emr.runs.runs()} == {"CANCELLED"}


# ---------------------------------------------------------------- crash safety (Airflow >= 3.3)
@pytest.mark.durable_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_crash_points_leave_one_job_run(emr, point):
    assert_crash_safe(emr.build, points=[point], submit_window_closed=True)
    assert len(emr.runs.runs()) == 1


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_crash_points_leave_one_job_run(emr, point):
    assert_crash_safe(lambda: emr.build(deferrable=True), points=[point], submit_window_closed=True)
    assert len(emr.runs.runs()) == 1


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SUBMIT_ONLY_POINTS, ids=lambda p: p.name)
def test_submit_only_crash_points_leave_one_job_run(emr, point):
    emr.runs.hold()
    assert_crash_safe(lambda: emr.build(wait_for_completion=False), points=[point], submit_window_closed=True)
    assert len(emr.runs.runs()) == 1


@pytest.mark.durable_only
def test_the_lost_submission_is_answered_by_the_client_token(emr):
    """Crash between StartJobRun and persisting: the retry repeats StartJobRun with the same token."""
    outcome = run_crash_scenario(emr.build, CrashPoint.AFTER_SUBMIT)
    (run,) = emr.runs.runs()
    assert outcome.submitted_ids == [run["id"], run["id"]]  # two StartJobRun calls, one run
    assert outcome.result == run["id"] and outcome.store.get(emr.id_key) == run["id"]


@pytest.mark.durable_only
def test_a_retry_whose_run_is_still_active_defers_again_to_the_same_run(emr):
    emr.runs.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = emr.build(deferrable=True)
    with crash_at(first, CrashPoint.AFTER_DEFER, store), pytest.raises(BaseException, match="simulated worker"):
        first.execute(make_context(store, ti))
    (run,) = emr.runs.runs()
    retry, context = emr.build(deferrable=True), make_context(store, ti.next_try())
    with pytest.raises(BaseException) as deferred:
        retry.execute(context)
    assert deferred.value.trigger.job_id == run["id"]
    emr.runs.release()
    assert retry.execute_complete(context, event=run_trigger_until_event(deferred.value.trigger)) == run["id"]
    assert len(emr.runs.runs()) == 1


@pytest.mark.durable_only
def test_job_lifecycle_durable(emr):
    emr.runs.progress(times=2)
    outcomes = assert_job_lifecycle(emr.build)
    cancelled = {job for outcome in outcomes for job in outcome.cancelled_ids}
    assert {emr.runs.run(job)["state"] for job in cancelled} == {"CANCELLED"}
    assert len(emr.runs.runs()) == len(outcomes)  # one run per case, kept or cancelled


@pytest.mark.shim_only
def test_below_33_every_try_starts_its_own_run(emr):
    outcome = run_crash_scenario(emr.build, CrashPoint.AFTER_SUBMIT)
    assert len(emr.runs.runs()) == 2 and outcome.result == emr.runs.runs()[1]["id"]
