"""Worker crashes at every point of the conformance matrix, for both operators and both paths.

The assertion that matters is how many times a run was asked for (POSTs to ``runs/submit`` or
``run-now``) and how many runs Databricks ended up with. The HTTP side is the real
``DatabricksHook`` (requests-mock) and the real ``DatabricksExecutionTrigger`` (a local aiohttp
server), both answering from one fake workspace.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
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
from tests.providers.databricks.builders import OPERATORS
from resumable_jobs.local.standins.databricks import page_url

pytestmark = pytest.mark.durable_only


def _assert_one_successful_run(workspace, outcome, key):
    (run_id,) = workspace.runs
    assert outcome.result == run_id  # the task returns the run id
    assert outcome.store.get(key) == run_id
    run = workspace.runs[run_id]
    assert (run.life_cycle, run.result) == ("TERMINATED", "SUCCESS")
    assert outcome.ti.xcom == {"run_id": run_id, "run_page_url": page_url(run_id)}
    return run_id


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_path_crash_never_starts_a_second_run(workspace, make, endpoint, key, point):
    outcome = run_crash_scenario(make, point)

    _assert_one_successful_run(workspace, outcome, key)
    # Only a crash before the id was persisted makes the retry POST again - with the same token,
    # which Databricks answers with the run it already started.
    assert len(workspace.started(endpoint)) == (2 if point is CrashPoint.AFTER_SUBMIT else 1)
    assert len(set(workspace.tokens(endpoint))) == 1


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_path_crash_never_starts_a_second_run(workspace, make, endpoint, key, point):
    outcome = run_crash_scenario(lambda: make(deferrable=True), point)

    _assert_one_successful_run(workspace, outcome, key)
    assert len(workspace.started(endpoint)) == (2 if point is CrashPoint.AFTER_SUBMIT else 1)
    assert len(set(workspace.tokens(endpoint))) == 1


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_conformance_kit_passes_with_the_submit_window_closed(workspace, make, endpoint, key, deferrable):
    results = assert_crash_safe(lambda: make(deferrable=deferrable), submit_window_closed=True)
    assert len(results) == len(DEFERRABLE_POINTS if deferrable else SYNC_POINTS)
    assert len(workspace.runs) == len(results)  # one run per scenario, never two


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("point", [CrashPoint.AFTER_PERSIST, CrashPoint.MID_POLL], ids=lambda p: p.name)
def test_sync_retry_reconnects_to_the_stored_run(workspace, make, endpoint, key, point, task_logs):
    outcome = run_crash_scenario(make, point)
    run_id = _assert_one_successful_run(workspace, outcome, key)
    reconnect = task_logs.event("Reconnecting to existing job", "info")
    assert (reconnect["external_id"], reconnect["status"]) == (run_id, "RUNNING")


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize(
    "point",
    [CrashPoint.AFTER_PERSIST, CrashPoint.BEFORE_DEFER, CrashPoint.AFTER_DEFER],
    ids=lambda p: p.name,
)
def test_deferrable_retry_defers_again_to_the_stored_run(workspace, make, endpoint, key, point):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = make(deferrable=True)
    with (
        crash_at(first, point, store),
        pytest.raises(BaseException, match="simulated worker crash"),
    ):
        run_try(first, make_context(store, ti))
    (run_id,) = workspace.runs

    with pytest.raises(BaseException) as deferred:
        make(deferrable=True).execute(make_context(store, ti.next_try()))
    assert type(deferred.value).__name__ == "TaskDeferred"
    assert deferred.value.trigger.run_id == run_id
    assert deferred.value.trigger.run_page_url == page_url(run_id)
    assert len(workspace.started(endpoint)) == 1


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_trigger_failure_while_the_run_is_active_defers_again_without_resubmitting(workspace, make, endpoint, key):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    with pytest.raises(BaseException) as deferred:
        make(deferrable=True).execute(make_context(store, ti))
    assert type(deferred.value).__name__ == "TaskDeferred"
    # The triggerer died; Airflow fails the try. The run is still going.
    result = run_try(make(deferrable=True), make_context(store, ti.next_try()))
    assert result == store.get(key) == deferred.value.trigger.run_id
    assert len(workspace.started(endpoint)) == 1


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_lost_run_id_window_resends_the_same_idempotency_token(workspace, make, endpoint, key):
    outcome = run_crash_scenario(make, CrashPoint.AFTER_SUBMIT)
    first_post, second_post = workspace.started(endpoint)
    assert first_post["idempotency_token"] == second_post["idempotency_token"]
    assert len(first_post["idempotency_token"]) <= 64
    assert outcome.submitted_ids[0] == outcome.submitted_ids[1] == outcome.result


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("user_token", [None, "nightly-2026-01-01"], ids=["mixin-token", "user-token"])
def test_retry_after_a_failed_run_sends_a_new_token_and_starts_a_new_run(workspace, make, endpoint, key, user_token):
    workspace.fail_next = 1
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed):
        run_try(make(idempotency_token=user_token), make_context(store, ti))
    failed_run = store.get(key)

    result = run_try(make(idempotency_token=user_token), make_context(store, ti.next_try()))

    first, second = workspace.tokens(endpoint)
    assert first != second and len(second) <= 64
    if user_token:
        assert first == user_token  # the first generation keeps the user's token as given
        assert second.startswith(user_token)
    assert result != failed_run and workspace.runs[result].result == "SUCCESS"
    assert store.get(key) == result


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_user_token_is_kept_across_retries_of_one_generation(workspace, make, endpoint, key):
    outcome = run_crash_scenario(lambda: make(idempotency_token="my-token"), CrashPoint.AFTER_SUBMIT)
    assert workspace.tokens(endpoint) == ["my-token", "my-token"]
    assert outcome.jobs == 1


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_expired_run_404_counts_as_not_found_and_the_retry_submits(workspace, make, endpoint, key, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = make()
    with (
        crash_at(first, CrashPoint.MID_POLL, store),
        pytest.raises(BaseException, match="simulated"),
    ):
        run_try(first, make_context(store, ti))
    expired = store.get(key)
    workspace.forget(expired)  # Databricks dropped the run's history: runs/get answers 404

    result = run_try(make(), make_context(store, ti.next_try()))

    assert result != expired and store.get(key) == result
    assert len(workspace.started(endpoint)) == 2
    first_token, second_token = workspace.tokens(endpoint)
    assert first_token != second_token  # a new generation: Databricks must not hand back the old run
    assert "no longer knows the stored job" in task_logs.event("Prior job in terminal state", "warning")["reason"]


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_a_run_stored_by_the_upstream_operator_is_reconnected_after_migration(workspace, make, endpoint, key):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(try_number=2)
    upstream_run = workspace.add_run(endpoint=endpoint)
    store.set(key, upstream_run)  # written by airflow.providers.databricks on the previous try

    result = run_try(make(), make_context(store, ti))

    assert result == upstream_run
    assert workspace.started() == []
    assert ti.xcom["run_id"] == upstream_run


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_succeeded_run_is_returned_without_resubmitting(workspace, make, endpoint, key, task_logs):
    outcome = run_crash_scenario(make, CrashPoint.AFTER_JOB_SUCCEEDED)
    run_id = _assert_one_successful_run(workspace, outcome, key)
    assert len(workspace.started(endpoint)) == 1
    assert task_logs.event("Job already completed successfully", "info")["external_id"] == run_id


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_changed_request_does_not_reconnect_to_the_old_run(workspace, make, endpoint, key, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = make(json={"timeout_seconds": 600})
    with (
        crash_at(first, CrashPoint.MID_POLL, store),
        pytest.raises(BaseException, match="simulated"),
    ):
        run_try(first, make_context(store, ti))
    old_run = store.get(key)

    result = run_try(make(json={"timeout_seconds": 900}), make_context(store, ti.next_try()))

    assert result != old_run
    assert len(workspace.started(endpoint)) == 2
    assert any("request changed" in m for m in task_logs.at("warning"))


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_default_args_durable_false_makes_every_retry_submit(workspace, make, endpoint, key):
    import datetime

    from airflow.sdk import DAG

    def build():
        with DAG(
            "d",
            schedule=None,
            start_date=datetime.datetime(2026, 1, 1),
            default_args={"durable": False},
        ):
            return make()

    assert build().durable is False
    outcome = run_crash_scenario(build, CrashPoint.AFTER_PERSIST)

    assert len(workspace.started(endpoint)) == 2 and len(workspace.runs) == 2
    assert len(set(workspace.tokens(endpoint))) == 2  # fresh token per try: no deduplication
    assert outcome.store.operations == []  # the store is never touched


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("point", [CrashPoint.AFTER_SUBMIT, CrashPoint.AFTER_PERSIST], ids=lambda p: p.name)
def test_submit_only_crash_returns_the_same_run_without_resubmitting(workspace, make, endpoint, key, point):
    outcome = run_crash_scenario(lambda: make(wait_for_termination=False), point)
    (run_id,) = workspace.runs
    assert outcome.result == run_id == outcome.store.get(key)
    assert workspace.runs[run_id].life_cycle == "RUNNING"  # nobody waited for it
    assert len(workspace.started(endpoint)) == (2 if point is CrashPoint.AFTER_SUBMIT else 1)
    assert outcome.ti.xcom == {"run_id": run_id, "run_page_url": page_url(run_id)}


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("finished", [False, True], ids=["active", "succeeded"])
def test_submit_only_retry_returns_the_stored_run(workspace, make, endpoint, key, finished):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    stored = workspace.add_run(endpoint=endpoint, active_reads=0 if finished else 3)
    store.set(key, stored)

    with pytest.warns(UserWarning, match="defers nothing"):
        op = make(wait_for_termination=False, deferrable=True)
    result = run_try(op, make_context(store, ti.next_try()))  # returns: never defers

    assert result == stored
    assert workspace.started() == []
