"""The semantics of issue #2 item 4, each against the core mixin on Airflow >= 3.3.

The fake job system stands in for the external service; the in-memory store is as strict as
Airflow's. Assertions are on what a user relies on: how many jobs ran, which id was
reconnected, what the task returned, what was logged.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.mixin.digests import digest
from resumable_jobs.shims.sdk_names import sdk_exception
from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    crash_at,
    make_context,
    run_crash_scenario,
    run_try,
)
from resumable_jobs.testing.fake_system import FakeJobOperator

TaskDeferred = sdk_exception("TaskDeferred")

pytestmark = pytest.mark.durable_only

ID_KEY = FakeJobOperator.external_id_key
CHECKPOINT_KEY = f"{ID_KEY}_resumable"


def _op(system, **kwargs):
    kwargs.setdefault("task_id", "job")
    return FakeJobOperator(system=system, **kwargs)


def _crash_then_retry(system, point, **kwargs):
    return run_crash_scenario(lambda: _op(system, **kwargs), point)


# ---------------------------------------------------------------- token and window
def test_token_and_generation_are_persisted_before_submit_job(system):
    store = InMemoryTaskStateStore()
    seen = {}

    class Inspecting(FakeJobOperator):
        def submit_job(self, context):
            seen["checkpoint"] = store.get(CHECKPOINT_KEY)
            seen["token"] = self.submission_token
            return super().submit_job(context)

    run_try(Inspecting(task_id="job", system=system), make_context(store, FakeTaskInstance()))
    checkpoint = seen["checkpoint"]
    assert checkpoint["generation"] == 1
    assert checkpoint["nonce"] in seen["token"]
    assert seen["token"].endswith(f"g1-{checkpoint['nonce']}")


def test_crash_before_persist_finds_the_orphan_by_token(system, task_logs):
    system.searchable = True
    outcome = _crash_then_retry(system, CrashPoint.AFTER_SUBMIT)
    assert outcome.jobs == 1 and system.submissions == 1
    assert outcome.store.get(ID_KEY) == outcome.final_job
    assert any("found by its submission token" in m for m in task_logs.at("info"))


def test_crash_before_persist_resubmits_with_the_same_token_to_a_deduplicating_system(system):
    system.deduplicate_tokens = True
    outcome = _crash_then_retry(system, CrashPoint.AFTER_SUBMIT)
    assert len(outcome.submitted_ids) == 2  # submit_job ran twice ...
    assert outcome.jobs == 1 and system.submissions == 1  # ... but the system kept one job
    assert outcome.result == {"job_id": outcome.final_job, "state": "SUCCEEDED"}


def test_crash_before_persist_without_lookup_or_dedup_is_the_documented_open_window(system):
    outcome = _crash_then_retry(system, CrashPoint.AFTER_SUBMIT)
    assert outcome.jobs == 2
    tokens = {job.token for job in system.jobs.values()}
    assert len(tokens) == 1  # same generation: a deduplicating system would have kept one job


# ---------------------------------------------------------------- reconnect
@pytest.mark.parametrize("point", [CrashPoint.AFTER_PERSIST, CrashPoint.MID_POLL])
def test_active_job_is_reconnected_on_the_sync_path(system, point, task_logs):
    outcome = _crash_then_retry(system, point)
    assert outcome.jobs == 1 and system.submissions == 1
    assert outcome.result == {"job_id": outcome.final_job, "state": "SUCCEEDED"}
    reconnect = task_logs.event("Reconnecting to existing job", "info")
    assert (reconnect["external_id"], reconnect["status"]) == (outcome.final_job, "RUNNING")


@pytest.mark.parametrize("point", [CrashPoint.AFTER_PERSIST, CrashPoint.BEFORE_DEFER, CrashPoint.AFTER_DEFER])
def test_active_job_is_deferred_to_again_on_the_deferrable_path(system, point):
    store = InMemoryTaskStateStore()
    first = _op(system, deferrable=True)
    ti = FakeTaskInstance()
    with crash_at(first, point, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    job_id = store.get(ID_KEY)

    retry = _op(system, deferrable=True)
    with pytest.raises(TaskDeferred) as deferred:
        retry.execute(make_context(store, ti.next_try()))
    assert deferred.value.trigger.job_id == job_id
    assert system.submissions == 1


def test_trigger_error_while_the_job_still_runs_defers_again_to_the_same_job(system):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = _op(system, deferrable=True)
    with pytest.raises(TaskDeferred):
        first.execute(make_context(store, ti))
    job_id = store.get(ID_KEY)
    with pytest.raises(ExternalJobFailed, match="triggerer lost its connection"):
        first.execute_complete(
            make_context(store, ti),
            {"status": "error", "external_id": job_id, "message": "triggerer lost its connection"},
        )
    result = run_try(_op(system, deferrable=True), make_context(store, ti.next_try()))
    assert result == {"job_id": job_id, "state": "SUCCEEDED"}
    assert system.submissions == 1


# ---------------------------------------------------------------- succeeded / result
@pytest.mark.parametrize("deferrable", [False, True])
def test_succeeded_job_is_not_resubmitted_and_its_result_is_returned(system, deferrable, task_logs):
    outcome = _crash_then_retry(system, CrashPoint.AFTER_JOB_SUCCEEDED, deferrable=deferrable)
    assert outcome.jobs == 1 and system.submissions == 1
    assert outcome.result == {"job_id": outcome.final_job, "state": "SUCCEEDED"}
    assert task_logs.event("Job already completed successfully", "info")["external_id"] == outcome.final_job


def test_every_path_returns_get_job_result_not_the_poll_value(system):
    class PollReturnsSomething(FakeJobOperator):
        def poll_until_complete(self, external_id, context):
            super().poll_until_complete(external_id, context)
            return "value of poll_until_complete"

    fresh = run_crash_scenario(lambda: PollReturnsSomething(task_id="job", system=system), None)
    reconnect = run_crash_scenario(lambda: PollReturnsSomething(task_id="job", system=system), CrashPoint.MID_POLL)
    assert fresh.result == {"job_id": fresh.final_job, "state": "SUCCEEDED"}
    assert reconnect.result == {"job_id": reconnect.final_job, "state": "SUCCEEDED"}


def test_retry_after_a_crash_that_followed_a_successful_return_reuses_the_job(system):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first_result = run_try(_op(system), make_context(store, ti))
    # The worker died after execute returned, before Airflow recorded the success: a plain retry.
    again = run_try(_op(system), make_context(store, ti.next_try()))
    assert again == first_result
    assert system.submissions == 1


# ---------------------------------------------------------------- new generations
def test_cleared_task_submits_a_new_job_with_a_new_token(system, task_logs):
    system.deduplicate_tokens = True  # a stale token would hand back the old job
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = run_try(_op(system), make_context(store, ti))
    second = run_try(_op(system), make_context(store, ti.cleared(retries=2)))
    assert system.submissions == 2
    assert first["job_id"] != second["job_id"]
    tokens = [job.token for job in system.jobs.values()]
    assert tokens[0] != tokens[1] and "-g2-" in tokens[1]
    cleared = task_logs.event("before this task instance was cleared", "info")
    assert cleared["external_id"] == first["job_id"] and cleared["generation"] == 2
    persisted = task_logs.events("Persisted external ID", "info")[-1]
    assert (persisted["external_id"], persisted["replaces"]) == (second["job_id"], first["job_id"])


def test_failed_job_is_replaced_by_a_new_generation(system):
    system.deduplicate_tokens = True
    system.fail_next = 1
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed):
        run_try(_op(system), make_context(store, ti))
    result = run_try(_op(system), make_context(store, ti.next_try()))
    failed, replacement = system.jobs.values()
    assert failed.state == "FAILED" and replacement.state == "SUCCEEDED"
    assert failed.token != replacement.token
    assert result["job_id"] == replacement.job_id
    assert store.get(CHECKPOINT_KEY)["generation"] == 2
    assert store.get(CHECKPOINT_KEY)["superseded_sha256"] == digest(failed.job_id)


def test_job_the_system_forgot_is_resubmitted(system, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _op(system)
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    lost = store.get(ID_KEY)
    system.forget(lost)
    result = run_try(_op(system), make_context(store, ti.next_try()))
    assert result["job_id"] != lost
    terminal = task_logs.event("Prior job in terminal state", "warning")
    assert terminal["external_id"] == lost and "no longer knows" in terminal["reason"]
    assert "status" not in terminal  # the system could not give one


def test_changed_request_is_not_reconnected_and_warns_naming_the_old_job(system, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _op(system, payload={"partition": 1})
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    old = store.get(ID_KEY)
    result = run_try(_op(system, payload={"partition": 2}), make_context(store, ti.next_try()))
    assert result["job_id"] != old and system.submissions == 2
    warnings = task_logs.at("warning")
    assert any(f"Not reconnecting to job {old!r}" in w and "request changed" in w for w in warnings)


# ---------------------------------------------------------------- store handling
def test_durable_false_touches_no_store(system):
    store = InMemoryTaskStateStore()
    outcome = run_crash_scenario(lambda: _op(system, durable=False), CrashPoint.MID_POLL, store=store)
    assert store.operations == []
    assert outcome.jobs == 2


def test_missing_task_state_store_warns_and_runs_without_recovery(system, task_logs):
    result = run_try(_op(system), make_context(None, FakeTaskInstance()))
    assert result["state"] == "SUCCEEDED"
    assert task_logs.event("crash recovery is disabled", "warning")


def test_store_errors_propagate_instead_of_resubmitting(system):
    class BrokenStore(InMemoryTaskStateStore):
        def get(self, key, default=None):
            raise ConnectionError("api-server unreachable")

    with pytest.raises(ConnectionError, match="api-server unreachable"):
        run_try(_op(system), make_context(BrokenStore(), FakeTaskInstance()))
    assert system.submissions == 0


def test_ids_never_expire(system):
    from airflow.sdk import NEVER_EXPIRE

    store = InMemoryTaskStateStore()
    run_try(_op(system), make_context(store, FakeTaskInstance()))
    assert store.retention[ID_KEY] is NEVER_EXPIRE
    assert store.retention[CHECKPOINT_KEY] is NEVER_EXPIRE


def test_context_with_only_a_store_works_like_upstreams_unit_tests(system):
    store = InMemoryTaskStateStore()
    first = _op(system)
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, {"task_state_store": store})
    result = run_try(_op(system), {"task_state_store": store})
    assert system.submissions == 1 and result["job_id"] == store.get(ID_KEY)


def test_tokens_differ_per_task_instance_and_map_index(system):
    system.deduplicate_tokens = True
    for map_index in (0, 1):
        run_try(_op(system), make_context(InMemoryTaskStateStore(), FakeTaskInstance(map_index=map_index)))
    tokens = [job.token for job in system.jobs.values()]
    assert system.submissions == 2 and tokens[0] != tokens[1]
    assert "-m0-" in tokens[0] and "-m1-" in tokens[1]


def test_id_stored_by_an_upstream_operator_is_reconnected(system):
    job_id = system.submit(None)
    store = InMemoryTaskStateStore()
    store.set(ID_KEY, job_id)  # what airflow.sdk.ResumableJobMixin leaves behind
    result = run_try(_op(system), make_context(store, FakeTaskInstance(try_number=2, max_tries=2)))
    assert result == {"job_id": job_id, "state": "SUCCEEDED"} and system.submissions == 1


# ---------------------------------------------------------------- ids
def test_non_json_id_is_a_clear_error(system):
    class ReturnsObject(FakeJobOperator):
        def submit_job(self, context):
            super().submit_job(context)
            return object()

    with pytest.raises(TypeError, match="not JSON-serialisable"):
        run_try(ReturnsObject(task_id="job", system=system), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def test_none_id_runs_without_crash_safety_and_says_so(system, task_logs):
    class NoId(FakeJobOperator):
        def submit_job(self, context):
            super().submit_job(context)
            return None

        def poll_until_complete(self, external_id, context):
            pass

        def get_job_result(self, external_id, context):
            return "done"

    store = InMemoryTaskStateStore()
    assert run_try(NoId(task_id="job", system=system), make_context(store, FakeTaskInstance())) == "done"
    assert ID_KEY not in store
    assert any("no job id" in w and "no crash safety" in w for w in task_logs.at("warning"))


# ---------------------------------------------------------------- submit-only mode
def test_submit_only_returns_the_id_and_a_retry_returns_the_same_id(system):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _op(system, wait_for_termination=False)
    with crash_at(first, CrashPoint.AFTER_PERSIST, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    job_id = store.get(ID_KEY)
    assert run_try(_op(system, wait_for_termination=False), make_context(store, ti.next_try())) == job_id
    assert system.submissions == 1
    assert system.jobs[job_id].state == "RUNNING"  # submit-only never waited for it


# ---------------------------------------------------------------- logs and metrics
def test_one_info_line_per_decision_and_upstream_metric_names(system, task_logs, monkeypatch):
    from resumable_jobs.mixin import telemetry

    counted = []
    monkeypatch.setattr(telemetry, "incr", lambda name, tags: counted.append((name, tags["operator"])))
    outcome = _crash_then_retry(system, CrashPoint.MID_POLL)
    infos = [e for e in task_logs.events("") if e["log_level"] == "info" and "external_id_key" in e]
    assert [e["event"] for e in infos] == ["Persisted external ID to task store", "Reconnecting to existing job"]
    assert infos[0]["external_id"] == infos[1]["external_id"] == outcome.final_job
    assert "no job stored" in infos[0]["reason"] and infos[0]["generation"] == 1
    assert counted == [
        ("resumable_job.fresh_submit", "FakeJobOperator"),
        ("resumable_job.reconnect_attempt", "FakeJobOperator"),
        ("resumable_job.reconnect_success", "FakeJobOperator"),
    ]


def test_our_mixin_is_airflows_mixin():
    from airflow.sdk import ResumableJobMixin as SdkMixin

    from resumable_jobs import ResumableJobMixin

    assert issubclass(ResumableJobMixin, SdkMixin)
    assert issubclass(FakeJobOperator, SdkMixin)


@pytest.mark.parametrize(
    ("point", "deferrable"),
    [(None, False), (CrashPoint.MID_POLL, False), (CrashPoint.AFTER_JOB_SUCCEEDED, False), (CrashPoint.AFTER_DEFER, True)],
)
def test_on_job_selected_runs_on_every_path(system, point, deferrable):
    selected = []

    class Recording(FakeJobOperator):
        def on_job_selected(self, external_id, context):
            selected.append(external_id)

    outcome = run_crash_scenario(lambda: Recording(task_id="job", system=system, deferrable=deferrable), point)
    assert set(selected) == {outcome.final_job}
    expected_calls = {None: 1, CrashPoint.MID_POLL: 2, CrashPoint.AFTER_JOB_SUCCEEDED: 2, CrashPoint.AFTER_DEFER: 3}
    assert len(selected) == expected_calls[point]  # AFTER_DEFER: first try, retry, then the resume


def test_submission_generation_is_set_with_the_token(system):
    seen = []

    class Recording(FakeJobOperator):
        def submit_job(self, context):
            seen.append((self.submission_generation, self.submission_token))
            return super().submit_job(context)

    system.fail_next = 1
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed):
        run_try(Recording(task_id="job", system=system), make_context(store, ti))
    run_try(Recording(task_id="job", system=system), make_context(store, ti.next_try()))
    run_try(Recording(task_id="job", system=system, durable=False), make_context(store, ti.next_try()))
    assert [g for g, _ in seen] == [1, 2, 0]
    assert "-g1-" in seen[0][1] and "-g2-" in seen[1][1]


def test_request_change_during_an_unpersisted_submission_keeps_tracking_the_window(system):
    """A new generation opened while the id key still holds an older job must not mistake that
    older job for its own when its own submission is lost too."""
    system.searchable = True
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=4)
    old = run_try(_op(system, payload="a"), make_context(store, ti))["job_id"]  # gen 1, stored
    ti = ti.cleared(retries=4)
    for payload in ("b", "c"):  # gen 2 then gen 3: both lost right after submission
        op = _op(system, payload=payload)
        with crash_at(op, CrashPoint.AFTER_SUBMIT, store), pytest.raises(SimulatedWorkerCrash):
            run_try(op, make_context(store, ti))
        ti = ti.next_try()
    assert store.get(ID_KEY) == old
    result = run_try(_op(system, payload="c"), make_context(store, ti))
    gen3_job = [j.job_id for j in system.jobs.values() if j.payload == "c"]
    assert len(gen3_job) == 1 and result["job_id"] == gen3_job[0]
    assert system.submissions == 3  # a, b (orphaned, request changed), c - nothing resubmitted
