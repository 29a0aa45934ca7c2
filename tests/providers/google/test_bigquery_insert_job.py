"""BigQueryInsertJobOperator against BigQuery's jobs API (requests-mock behind the real hook/client).

What a user relies on, asserted as: how many jobs.insert POSTs were sent and which job ids they
carried, how many jobs BigQuery created, which job a retry followed, what the task returned, what
went to XCom, and what was logged or raised. Tests that need ``task_state_store`` are
``durable_only``; ``shim_only`` tests check that Airflow < 3.3 resubmits on every try.
"""

from __future__ import annotations

import datetime
import warnings

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.google import BigQueryInsertJobOperator
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    assert_crash_safe,
    crash_at,
    make_context,
    run_crash_scenario,
    run_try,
)
from tests.providers.google.conftest import PROJECT

QUERY = {"query": {"query": "SELECT 1", "useLegacySql": False}}
INVALID_QUERY = {"reason": "invalidQuery", "location": "query", "message": "Syntax error: Unexpected end of script"}


def _op(**kwargs):
    kwargs.setdefault("task_id", "load_orders")
    kwargs.setdefault("configuration", QUERY)
    kwargs.setdefault("poll_interval", 0)
    return BigQueryInsertJobOperator(**kwargs)


def _context(store=None, ti=None):
    return make_context(store, ti or FakeTaskInstance(task_id="load_orders", dag_id="orders"))


def _deferred(op, context):
    with pytest.raises(BaseException) as raised:
        op.execute(context)
    assert type(raised.value).__name__ == "TaskDeferred", raised.value
    return raised.value


# ================================================================ every Airflow version
def test_fresh_job_is_inserted_once_and_the_task_returns_its_id(bigquery):
    ti = FakeTaskInstance(task_id="load_orders", dag_id="orders")
    result = run_try(_op(), _context(InMemoryTaskStateStore(), ti))

    assert len(bigquery.insert_ids) == 1
    job_id = bigquery.insert_ids[0]
    assert result == job_id
    assert job_id.startswith("airflow_orders_load_orders-")
    assert bigquery.state(job_id) == "DONE"
    assert ti.xcom["bigquery_job_id"] == job_id
    assert ti.xcom["bigquery_job_url"] == (
        f"https://console.cloud.google.com/bigquery?project={PROJECT}&j=bq:EU:{job_id}&page=queryresults"
    )
    assert "&d=_anon&" in ti.xcom["bigquery_table_url"]


def test_inserted_configuration_is_the_users_with_airflow_labels(bigquery):
    config = {"query": {"query": "SELECT 2", "useLegacySql": False}, "labels": {"team": "data"}}
    run_try(_op(configuration=config, labels={"team": "ignored", "cost": "etl"}), _context())

    sent = bigquery.insert_bodies[0]["configuration"]
    assert sent["query"] == config["query"]
    assert sent["labels"] == {
        "team": "data",
        "cost": "etl",
        "airflow-dag": "adhoc_airflow",
        "airflow-task": "load_orders",
    }
    assert config == {"query": {"query": "SELECT 2", "useLegacySql": False}, "labels": {"team": "data"}}


def test_user_job_id_is_the_prefix_of_the_job_id(bigquery):
    result = run_try(_op(job_id="nightly_orders"), _context())
    assert result.startswith("nightly_orders_load_orders-")
    assert bigquery.insert_ids == [result]


def test_job_id_with_characters_bigquery_rejects_fails_before_inserting(bigquery):
    with pytest.raises(ValueError, match=r"job_id='nightly\.orders' cannot start a BigQuery job id"):
        run_try(_op(job_id="nightly.orders"), _context())
    assert bigquery.insert_ids == []


def test_destination_table_link_for_a_query_with_a_destination(bigquery):
    config = {
        "query": {
            "query": "SELECT 1",
            "useLegacySql": False,
            "destinationTable": {"projectId": "analytics", "datasetId": "sales", "tableId": "daily"},
        }
    }
    ti = FakeTaskInstance()
    run_try(_op(configuration=config), _context(ti=ti))
    assert ti.xcom["bigquery_table_url"] == (
        "https://console.cloud.google.com/bigquery?project=analytics&p=analytics&d=sales&t=daily&page=table"
    )


def test_failed_job_raises_with_bigquerys_reason_and_message(bigquery):
    bigquery.failures.append(INVALID_QUERY)
    with pytest.raises(ExternalJobFailed) as failed:
        run_try(_op(), _context())
    job_id = bigquery.insert_ids[0]
    assert str(failed.value) == (
        f"BigQuery job {job_id} failed: invalidQuery: Syntax error: Unexpected end of script (at query)"
    )


def test_submit_only_returns_the_id_while_the_job_runs(bigquery):
    ti = FakeTaskInstance()
    result = run_try(_op(wait_for_termination=False), _context(InMemoryTaskStateStore(), ti))
    assert bigquery.insert_ids == [result]
    assert bigquery.state(result) == "RUNNING"
    assert ti.xcom["bigquery_job_id"] == result


def test_deferral_hands_the_inserted_job_to_our_trigger(bigquery):
    from resumable_jobs.providers.google.trigger import BigQueryJobTrigger

    deferred = _deferred(
        _op(deferrable=True, poll_interval=7.0, cancel_on_kill=False), _context(InMemoryTaskStateStore())
    )

    assert isinstance(deferred.trigger, BigQueryJobTrigger)
    assert deferred.trigger.job_id == bigquery.insert_ids[0]
    assert (deferred.trigger.project_id, deferred.trigger.location) == (PROJECT, "EU")
    assert (deferred.trigger.poll_interval, deferred.trigger.cancel_on_kill) == (7.0, False)
    assert deferred.method_name == "execute_complete"
    assert deferred.kwargs == {"job_id": bigquery.insert_ids[0], "job_location": "EU"}


def test_deferrable_run_waits_in_the_real_trigger_and_returns_the_job_id(bigquery):
    ti = FakeTaskInstance()
    result = run_try(_op(deferrable=True), _context(InMemoryTaskStateStore(), ti))
    assert bigquery.insert_ids == [result]
    assert bigquery.state(result) == "DONE"
    assert ti.xcom["bigquery_job_id"] == result


def test_deferrable_failed_job_raises_with_bigquerys_reason(bigquery):
    bigquery.failures.append(INVALID_QUERY)
    with pytest.raises(ExternalJobFailed, match=r"invalidQuery: Syntax error: Unexpected end of script"):
        run_try(_op(deferrable=True), _context(InMemoryTaskStateStore()))
    assert len(bigquery.insert_ids) == 1


def test_execute_complete_reads_the_upstream_success_event(bigquery):
    op = _op(deferrable=True)
    ti = FakeTaskInstance()
    # The shape BigQueryInsertJobTrigger fires on success.
    event = {"job_id": "job_123", "status": "success", "message": "Job completed"}
    assert op.execute_complete(_context(ti=ti), event, job_id="job_123", job_location="EU") == "job_123"
    assert ti.xcom["bigquery_job_id"] == "job_123"
    assert ti.xcom["bigquery_job_url"].endswith("j=bq:EU:job_123&page=queryresults")


def test_execute_complete_names_the_job_and_reason_on_the_upstream_error_event(bigquery):
    bigquery.failures.append(INVALID_QUERY)
    job_id = run_try(_op(wait_for_termination=False), _context())
    bigquery.jobs[job_id].finish(INVALID_QUERY)
    # The shape BigQueryInsertJobTrigger fires on error: no job id, BigQuery's message only.
    event = {"status": "error", "message": "Syntax error: Unexpected end of script"}
    with pytest.raises(ExternalJobFailed) as failed:
        _op(deferrable=True).execute_complete(_context(), event, job_id=job_id, job_location="EU")
    assert job_id in str(failed.value) and "invalidQuery" in str(failed.value)


def test_execute_complete_says_when_the_trigger_failed_but_the_job_still_runs(bigquery):
    bigquery.gets_until_done = 10
    job_id = run_try(_op(wait_for_termination=False), _context())
    event = {"status": "error", "message": "503 Service Unavailable"}
    with pytest.raises(ExternalJobFailed, match=rf"while BigQuery job {job_id} is still RUNNING \(503"):
        _op(deferrable=True).execute_complete(_context(), event, job_id=job_id)


def test_deferrable_without_waiting_warns_at_construction():
    with pytest.warns(UserWarning, match=r"deferrable=True with wait_for_termination=False.*wait_for_termination=True"):
        _op(deferrable=True, wait_for_termination=False)


def test_deferrable_defaults_to_operators_default_deferrable(monkeypatch):
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "True")
    assert _op().deferrable is True
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "False")
    assert _op().deferrable is False


def test_default_args_durable_false_resubmits_and_never_touches_the_store(bigquery):
    from airflow.sdk import DAG

    def make():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # below 3.3 the shim warns that durable= has no effect
            with DAG("orders", default_args={"durable": False}, start_date=datetime.datetime(2026, 1, 1)):
                return _op()

    assert make().durable is False
    store = InMemoryTaskStateStore()
    outcome = run_crash_scenario(make, CrashPoint.MID_POLL, store=store)

    assert store.operations == []
    assert len(bigquery.insert_ids) == 2 and len(set(bigquery.insert_ids)) == 2
    assert outcome.result == bigquery.insert_ids[1]


def test_without_a_store_force_rerun_false_reattaches_only_in_reattach_states(bigquery):
    """Upstream's meaning of force_rerun/reattach_states, kept where no store is involved."""
    bigquery.gets_until_done = 10
    ti = FakeTaskInstance()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # below 3.3 the shim warns that durable= has no effect
        first = _op(durable=False, force_rerun=False, wait_for_termination=False)
        refused = _op(durable=False, force_rerun=False, wait_for_termination=False)
        follows = _op(durable=False, force_rerun=False, wait_for_termination=False, reattach_states={"RUNNING"})
    job_id = run_try(first, _context(ti=ti))

    with pytest.raises(ExternalJobFailed, match=rf"{job_id} already exists and is RUNNING.*reattach_states"):
        run_try(refused, _context(ti=ti.next_try()))
    assert run_try(follows, _context(ti=ti.next_try())) == job_id
    assert bigquery.insert_ids == [job_id] * 3
    assert bigquery.inserted_jobs == [job_id]


# ================================================================ Airflow >= 3.3: durable
@pytest.mark.durable_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_crash_on_the_sync_path_never_inserts_a_second_job(bigquery, point):
    outcome = run_crash_scenario(lambda: _op(), point)

    assert len(bigquery.inserted_jobs) == 1
    job_id = bigquery.inserted_jobs[0]
    # Only a crash before the id was persisted makes the retry POST again - with the same id.
    assert bigquery.insert_ids == ([job_id, job_id] if point is CrashPoint.AFTER_SUBMIT else [job_id])
    assert outcome.result == job_id
    assert outcome.store.get("bigquery_job_id") == job_id
    assert outcome.ti.xcom["bigquery_job_id"] == job_id


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_crash_on_the_deferrable_path_never_inserts_a_second_job(bigquery, point):
    outcome = run_crash_scenario(lambda: _op(deferrable=True), point)

    assert len(bigquery.inserted_jobs) == 1
    job_id = bigquery.inserted_jobs[0]
    assert bigquery.insert_ids == ([job_id, job_id] if point is CrashPoint.AFTER_SUBMIT else [job_id])
    assert outcome.result == job_id
    assert bigquery.state(job_id) == "DONE"
    assert outcome.ti.xcom["bigquery_job_id"] == job_id


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SUBMIT_ONLY_POINTS, ids=lambda p: p.name)
def test_crash_on_the_submit_only_path_never_inserts_a_second_job(bigquery, point):
    outcome = run_crash_scenario(lambda: _op(wait_for_termination=False), point)
    assert len(bigquery.inserted_jobs) == 1
    assert outcome.result == bigquery.inserted_jobs[0]


@pytest.mark.durable_only
@pytest.mark.parametrize(
    "mode", [{}, {"deferrable": True}, {"wait_for_termination": False}], ids=["sync", "deferrable", "submit_only"]
)
def test_conformance_kit_with_the_window_closed(bigquery, mode):
    results = assert_crash_safe(lambda: _op(**mode), submit_window_closed=True)
    assert all(r.jobs == 1 for r in results)


@pytest.mark.durable_only
def test_lost_id_is_answered_by_409_and_the_retry_follows_that_job(bigquery, task_logs):
    bigquery.gets_until_done = 3
    outcome = run_crash_scenario(lambda: _op(), CrashPoint.AFTER_SUBMIT)

    job_id = bigquery.inserted_jobs[0]
    assert bigquery.insert_ids == [job_id, job_id]
    assert len(bigquery.jobs) == 1
    assert outcome.result == job_id and outcome.store.get("bigquery_job_id") == job_id
    assert any(f"BigQuery job {job_id} already exists (RUNNING)" in m for m in task_logs.at("info"))


@pytest.mark.durable_only
def test_lost_id_of_a_job_that_then_failed_costs_one_try_then_a_new_job_runs(bigquery):
    bigquery.failures.append(INVALID_QUERY)
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=3)
    with pytest.raises(ExternalJobFailed, match="invalidQuery"):
        run_crash_scenario(lambda: _op(), CrashPoint.AFTER_SUBMIT, store=store, ti=ti)
    failed_id = bigquery.inserted_jobs[0]
    assert store.get("bigquery_job_id") == failed_id  # the 409'd job was adopted and persisted

    result = run_try(_op(), make_context(store, ti.next_try().next_try()))
    assert bigquery.insert_ids == [failed_id, failed_id, result]
    assert result != failed_id and "-g2-" in result and "-g1-" in failed_id


@pytest.mark.durable_only
def test_failed_job_makes_the_retry_insert_a_new_job_id(bigquery):
    bigquery.failures.append(INVALID_QUERY)
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed):
        run_try(_op(), make_context(store, ti))
    result = run_try(_op(), make_context(store, ti.next_try()))

    failed_id = bigquery.insert_ids[0]
    assert bigquery.insert_ids == [failed_id, result]
    assert result != failed_id
    assert (bigquery.state(failed_id), bigquery.state(result)) == ("DONE", "DONE")
    assert store.get("bigquery_job_id") == result


@pytest.mark.durable_only
def test_cleared_task_inserts_a_new_job_id(bigquery):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = run_try(_op(), make_context(store, ti))
    again = run_try(_op(), make_context(store, ti.cleared()))

    assert bigquery.insert_ids == [first, again]
    assert again != first


@pytest.mark.durable_only
def test_retry_after_a_success_that_was_not_recorded_returns_the_same_job(bigquery):
    outcome = run_crash_scenario(lambda: _op(), CrashPoint.AFTER_JOB_SUCCEEDED)
    assert len(bigquery.insert_ids) == 1 and outcome.result == bigquery.insert_ids[0]


@pytest.mark.durable_only
def test_trigger_error_while_the_job_runs_makes_the_retry_defer_to_the_same_job(bigquery):
    bigquery.gets_until_done = 5
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _deferred(_op(deferrable=True), make_context(store, ti))
    job_id = first.trigger.job_id
    with pytest.raises(ExternalJobFailed, match="still RUNNING"):
        _op(deferrable=True).execute_complete(
            make_context(store, ti), {"status": "error", "message": "triggerer lost"}, **first.kwargs
        )

    second = _deferred(_op(deferrable=True), make_context(store, ti.next_try()))
    assert second.trigger.job_id == job_id
    assert bigquery.insert_ids == [job_id]


@pytest.mark.durable_only
def test_changed_configuration_is_not_reconnected_to_the_old_job(bigquery, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = _op()
    with crash_at(first, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    changed = {"query": {"query": "SELECT 2", "useLegacySql": False}}
    result = run_try(_op(configuration=changed), make_context(store, ti.next_try()))

    assert len(bigquery.inserted_jobs) == 2 and bigquery.insert_ids[1] == result
    assert bigquery.insert_bodies[1]["configuration"]["query"]["query"] == "SELECT 2"
    assert any("request changed" in m for m in task_logs.at("warning"))


# ================================================================ Airflow < 3.3: the shim
@pytest.mark.shim_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_below_3_3_every_retry_inserts_a_new_job_on_the_sync_path(bigquery, point):
    outcome = run_crash_scenario(lambda: _op(), point)
    assert len(bigquery.insert_ids) == 2 and len(set(bigquery.insert_ids)) == 2
    assert outcome.result == bigquery.insert_ids[1]


@pytest.mark.shim_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_below_3_3_every_retry_inserts_a_new_job_on_the_deferrable_path(bigquery, point):
    outcome = run_crash_scenario(lambda: _op(deferrable=True), point)
    assert len(bigquery.inserted_jobs) == 2
    assert outcome.result == bigquery.insert_ids[-1]


@pytest.mark.shim_only
def test_below_3_3_explicit_durable_warns_and_still_inserts_a_job(bigquery):
    with pytest.warns(UserWarning, match=r"durable= has no effect on Airflow 3\.[0-2]\."):
        op = _op(durable=True)
    store = InMemoryTaskStateStore()
    result = run_try(op, _context(store))
    assert bigquery.insert_ids == [result]
    assert store.operations == []
