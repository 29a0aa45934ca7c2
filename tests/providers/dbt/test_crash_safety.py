"""Worker crashes at every point of the conformance matrix, on every path, against the dbt Cloud stand-in.

What matters is what dbt Cloud saw: how many "Trigger Job Run" requests and how many runs. dbt
Cloud has no idempotency key, so even the crash right after the trigger returned must end with one
trigger and one run - the retry finds the run by the token in its cause. The HTTP side is the real
``DbtCloudHook`` (requests) and our ``DbtCloudRunTrigger`` (aiohttp), over TLS.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.local.standins.dbt_cloud import run_href
from resumable_jobs.providers.dbt.cause import token_in
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    assert_crash_safe,
    crash_at,
    make_context,
    run_crash_scenario,
    run_try,
)
from tests.providers.dbt.builders import JOB, STORE_KEY, run_job

pytestmark = pytest.mark.durable_only

MODES = {
    "sync": ({}, SYNC_POINTS),
    "deferrable": ({"deferrable": True}, DEFERRABLE_POINTS),
    "submit-only": ({"wait_for_termination": False}, SUBMIT_ONLY_POINTS),
}
MATRIX = [
    pytest.param(mode, point, id=f"{mode}-{point.name}") for mode, (_, points) in MODES.items() for point in points
]


def _the_one_run(dbt_cloud, outcome):
    (run_id,) = dbt_cloud.runs
    assert outcome.result == run_id == outcome.store.get(STORE_KEY)  # the task returns the run id
    assert outcome.ti.xcom["job_run_id"] == run_id
    assert outcome.ti.xcom["job_run_url"] == run_href(1, run_id)
    return dbt_cloud.runs[run_id]


@pytest.mark.parametrize(("mode", "point"), MATRIX)
def test_one_trigger_and_one_run_per_crash_point(dbt_cloud, mode, point):
    kwargs, _ = MODES[mode]
    outcome = run_crash_scenario(lambda: run_job(**kwargs), point)

    run = _the_one_run(dbt_cloud, outcome)
    assert len(dbt_cloud.triggers) == 1, dbt_cloud.causes()
    if mode == "submit-only":
        assert run.active  # nobody waited for it
    else:
        assert run.status == 10
    assert token_in(run.cause) is not None


@pytest.mark.parametrize("mode", list(MODES))
def test_conformance_kit_passes_in_every_mode(dbt_cloud, mode):
    kwargs, points = MODES[mode]
    results = assert_crash_safe(lambda: run_job(**kwargs))  # find_job: the window counts as closed
    assert len(results) == len(points)
    assert len(dbt_cloud.runs) == len(dbt_cloud.triggers) == len(results)  # one run per scenario


@pytest.mark.parametrize("mode", list(MODES))
def test_crash_after_the_trigger_returned_is_recovered_by_the_token_in_the_cause(dbt_cloud, mode, task_logs):
    kwargs, _ = MODES[mode]
    outcome = run_crash_scenario(lambda: run_job(**kwargs), CrashPoint.AFTER_SUBMIT)

    run = _the_one_run(dbt_cloud, outcome)
    assert outcome.submitted_ids == [run.id]  # the retry found the run: it never called submit_job
    assert any(
        f"dbt Cloud run {run.id} of job {JOB} carries this submission's token" in m for m in task_logs.at("info")
    )
    listed = [r for r in dbt_cloud.requests if r["method"] == "GET" and r["path"].endswith("/runs/")]
    assert listed and all(r["query"]["job_definition_id"] == str(JOB) for r in listed)
    assert {r["query"]["order_by"] for r in listed} == {"-id"}


def test_an_unrelated_active_run_of_the_job_is_never_adopted_by_crash_recovery(dbt_cloud):
    someone_else = dbt_cloud.add_run(job_id=JOB, active_reads=50)  # a schedule's run, still running

    outcome = run_crash_scenario(run_job, CrashPoint.AFTER_SUBMIT)

    ours = outcome.result
    assert ours != someone_else
    assert token_in(dbt_cloud.runs[ours].cause) is not None
    assert len(dbt_cloud.triggers) == 1
    assert dbt_cloud.runs[someone_else].active  # left alone: neither followed nor cancelled
    assert dbt_cloud.cancels == []


@pytest.mark.parametrize("point", [None, CrashPoint.AFTER_SUBMIT, CrashPoint.MID_POLL], ids=str)
def test_reuse_existing_run_keeps_upstreams_meaning_when_set(dbt_cloud, point, task_logs):
    someone_else = dbt_cloud.add_run(job_id=JOB, active_reads=4)

    outcome = run_crash_scenario(lambda: run_job(reuse_existing_run=True), point)

    assert outcome.result == someone_else == outcome.store.get(STORE_KEY)
    assert dbt_cloud.triggers == []  # the job's active run was followed, as upstream does
    assert any("reuse_existing_run=True: following dbt Cloud run" in m for m in task_logs.at("warning"))


def test_reuse_existing_run_triggers_when_the_job_has_no_active_run(dbt_cloud):
    finished = dbt_cloud.add_run(job_id=JOB, active_reads=0)
    dbt_cloud.handle("GET", f"/api/v2/accounts/4242/runs/{finished}/", {})  # it ends at this read

    result = run_try(run_job(reuse_existing_run=True), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))

    assert result != finished and len(dbt_cloud.triggers) == 1


def test_deferrable_retry_defers_again_to_the_stored_run_with_our_trigger(dbt_cloud):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = run_job(deferrable=True, check_interval=7, timeout=3600)
    with crash_at(first, CrashPoint.AFTER_DEFER, store), pytest.raises(BaseException, match="simulated"):
        run_try(first, make_context(store, ti))
    (run_id,) = dbt_cloud.runs

    with pytest.raises(BaseException) as deferred:
        run_job(deferrable=True, check_interval=7, timeout=3600).execute(make_context(store, ti.next_try()))

    trigger = deferred.value.trigger
    assert type(deferred.value).__name__ == "TaskDeferred"
    assert type(trigger).__module__ == "resumable_jobs.providers.dbt.trigger"
    assert (trigger.run_id, trigger.poll_interval, trigger.conn_id) == (run_id, 7, "dbt_cloud_default")
    assert len(dbt_cloud.triggers) == 1


def test_trigger_error_while_the_run_is_active_defers_again_without_a_second_run(dbt_cloud):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(BaseException) as deferred:
        run_job(deferrable=True).execute(make_context(store, ti))
    run_id = deferred.value.trigger.run_id
    error = {"status": "error", "message": "Cannot connect to host", "run_id": run_id}

    with pytest.raises(ExternalJobFailed, match="Cannot connect to host"):
        run_job(deferrable=True).execute_complete(make_context(store, ti), event=error)
    assert dbt_cloud.cancels == []  # a retry follows: the run is kept
    result = run_try(run_job(deferrable=True), make_context(store, ti.next_try()))

    assert result == run_id and len(dbt_cloud.triggers) == 1


def test_trigger_timeout_event_cancels_the_run_as_execution_timeout_does(dbt_cloud):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=3)
    dbt_cloud.active_reads = 50
    with pytest.raises(BaseException) as deferred:
        run_job(deferrable=True).execute(make_context(store, ti))
    run_id = deferred.value.trigger.run_id

    with pytest.raises(ExternalJobFailed, match="timed out"):
        run_job(deferrable=True).execute_complete(
            make_context(store, ti),
            event={"status": "timeout", "message": f"Job run {run_id} has timed out.", "run_id": run_id},
        )

    assert dbt_cloud.cancels == [run_id] and dbt_cloud.runs[run_id].status == 30


@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_a_failed_run_fails_the_try_and_the_retry_starts_a_new_run_with_a_new_token(dbt_cloud, deferrable, task_logs):
    dbt_cloud.fail_next = 1
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed, match="ERROR|has failed"):
        run_try(run_job(deferrable=deferrable), make_context(store, ti))
    failed = store.get(STORE_KEY)

    result = run_try(run_job(deferrable=deferrable), make_context(store, ti.next_try()))

    assert result != failed and dbt_cloud.runs[result].status == 10
    first, second = (token_in(c) for c in dbt_cloud.causes())
    assert first != second
    assert any("ended with status ERROR" in m for m in task_logs.at("error"))  # upstream's failure details


def test_a_run_dbt_cloud_no_longer_knows_is_replaced(dbt_cloud):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = run_job()
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(BaseException, match="simulated"):
        run_try(first, make_context(store, ti))
    gone = store.get(STORE_KEY)
    dbt_cloud.forget(gone)  # Get run answers 404

    result = run_try(run_job(), make_context(store, ti.next_try()))

    assert result != gone and store.get(STORE_KEY) == result and len(dbt_cloud.triggers) == 2


def test_a_run_stored_by_the_upstream_operator_is_reconnected_after_migration(dbt_cloud):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(try_number=2)
    upstream_run = dbt_cloud.add_run(job_id=JOB)
    store.set(STORE_KEY, upstream_run)  # written by a durable upstream operator on the previous try

    assert run_try(run_job(), make_context(store, ti)) == upstream_run
    assert dbt_cloud.triggers == []


def test_a_changed_request_does_not_reconnect_to_the_old_run(dbt_cloud, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = run_job(steps_override=["dbt build -s orders"])
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(BaseException, match="simulated"):
        run_try(first, make_context(store, ti))
    old = store.get(STORE_KEY)

    result = run_try(run_job(steps_override=["dbt build -s customers"]), make_context(store, ti.next_try()))

    assert result != old and len(dbt_cloud.triggers) == 2
    assert dbt_cloud.triggers[1][1]["steps_override"] == ["dbt build -s customers"]
    assert any("request changed" in m for m in task_logs.at("warning"))


def test_durable_false_makes_every_retry_trigger_a_run(dbt_cloud):
    outcome = run_crash_scenario(lambda: run_job(durable=False), CrashPoint.AFTER_PERSIST)
    assert len(dbt_cloud.triggers) == len(dbt_cloud.runs) == 2
    assert outcome.store.operations == []


def test_a_sync_wait_longer_than_timeout_fails_and_a_retry_follows_the_same_run(dbt_cloud):
    from airflow.providers.dbt.cloud.hooks.dbt import DbtCloudJobRunException

    dbt_cloud.active_reads = 4
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(DbtCloudJobRunException, match="not reached a terminal status after 0 seconds"):
        run_try(run_job(timeout=0), make_context(store, ti))
    (run_id,) = dbt_cloud.runs
    assert dbt_cloud.cancels == []  # a retry follows: kept

    assert run_try(run_job(), make_context(store, ti.next_try())) == run_id
    assert len(dbt_cloud.triggers) == 1


def test_job_named_by_project_environment_and_name(dbt_cloud):
    names = {"project_name": "analytics", "environment_name": "production", "job_name": "hourly"}
    outcome = run_crash_scenario(lambda: run_job(**names), CrashPoint.AFTER_SUBMIT)
    (run_id,) = dbt_cloud.runs
    assert outcome.result == run_id and dbt_cloud.runs[run_id].job_id == 102
    assert [job for job, _ in dbt_cloud.triggers] == [102]


def test_a_long_trigger_reason_is_cut_and_the_token_kept(dbt_cloud):
    reason = "Nightly rebuild of every mart after the warehouse load; " * 8
    outcome = run_crash_scenario(lambda: run_job(trigger_reason=reason), CrashPoint.AFTER_SUBMIT)
    (cause,) = dbt_cloud.causes()
    assert len(cause) <= 255 and cause.startswith("Nightly rebuild")
    assert token_in(cause) is not None and len(dbt_cloud.runs) == 1 and outcome.jobs == 1


def test_with_openlineage_the_json_cause_carries_the_token_and_closes_the_window(dbt_cloud, openlineage_enabled):
    import json

    from tests.providers.lineage import LineageTaskInstance, is_uuid

    ti = LineageTaskInstance(max_tries=1, dag_id="etl", task_id="transform")
    outcome = run_crash_scenario(
        lambda: run_job(openlineage_inject_parent_job_info=True), CrashPoint.AFTER_SUBMIT, ti=ti
    )

    (cause,) = dbt_cloud.causes()
    parsed = json.loads(cause)
    assert is_uuid(parsed["parent"]["run"]["runId"]) and token_in(cause) == parsed["airflow_rj_token"]
    assert len(cause) <= 255 and len(dbt_cloud.runs) == 1 and outcome.jobs == 1


def test_an_event_the_trigger_never_sends_fails_the_try_loudly(dbt_cloud):
    with pytest.raises(ExternalJobFailed, match="Unexpected event"):
        run_job(deferrable=True).execute_complete(
            make_context(InMemoryTaskStateStore(), FakeTaskInstance()), event={"status": "weird", "run_id": 1}
        )
