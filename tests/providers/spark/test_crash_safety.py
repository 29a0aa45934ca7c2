"""Crash matrix on the sync and deferrable paths: how many drivers the master was asked to create.

Sync path: the fake master behind requests-mock. Deferrable path: the same fake master also on
real HTTP, because the trigger polls with aiohttp. The assertion that matters is
``len(master.creates)``: the number of create POSTs the master received.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SYNC_POINTS,
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    assert_crash_safe,
    make_context,
    run_crash_scenario,
    run_try,
)

ID_KEY = SparkSubmitOperator.external_id_key

#: The standalone master cannot be searched for a driver, so the submit->persist window stays open.
CREATES_AFTER_CRASH = {CrashPoint.AFTER_SUBMIT: 2}


def _factory(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "/apps/job.py")
    kwargs.setdefault("status_poll_interval", 0)
    return lambda: SparkSubmitOperator(**kwargs)


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_crash_matrix(master, point):
    outcome = run_crash_scenario(_factory(), point)
    assert len(master.creates) == CREATES_AFTER_CRASH.get(point, 1)
    assert outcome.result == outcome.final_job == outcome.store.get(ID_KEY)
    if point is not CrashPoint.AFTER_SUBMIT:
        assert outcome.result == "driver-20260101000000-0000"  # the first try's driver, reconnected
    assert outcome.ti.xcom["spark_driver_id"] == outcome.result
    assert outcome.ti.xcom["spark_master_ui_url"] == "http://spark-master.test:8080"


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_crash_matrix(served_master, point):
    outcome = run_crash_scenario(_factory(deferrable=True), point)
    assert len(served_master.creates) == CREATES_AFTER_CRASH.get(point, 1)
    assert outcome.result == outcome.final_job == outcome.store.get(ID_KEY)
    if point is not CrashPoint.AFTER_SUBMIT:
        assert outcome.result == "driver-20260101000000-0000"
    assert outcome.ti.xcom["spark_driver_id"] == outcome.result


@pytest.mark.durable_only
def test_conformance_kit_agrees(served_master):
    assert_crash_safe(_factory(), submit_window_closed=False)
    assert_crash_safe(_factory(deferrable=True), submit_window_closed=False)


@pytest.mark.shim_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_pre33_every_sync_retry_submits_a_new_driver(master, point):
    outcome = run_crash_scenario(_factory(), point)
    assert len(master.creates) == 2
    assert outcome.result == "driver-20260101000000-0001"


@pytest.mark.shim_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_pre33_every_deferrable_retry_submits_a_new_driver(served_master, point):
    outcome = run_crash_scenario(_factory(deferrable=True), point)
    assert len(served_master.creates) == 2
    assert outcome.result == "driver-20260101000000-0001"


# ---------------------------------------------------------------- other decisions
@pytest.mark.durable_only
def test_failed_driver_is_replaced_on_retry(master):
    master.outcome = "FAILED"
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(ExternalJobFailed, match="ended FAILED"):
        run_try(_factory()(), make_context(store, ti))
    master.outcome = "FINISHED"
    result = run_try(_factory()(), make_context(store, ti.next_try()))
    assert len(master.creates) == 2
    assert result == "driver-20260101000000-0001" == store.get(ID_KEY)


@pytest.mark.durable_only
def test_driver_lost_in_a_master_restart_is_resubmitted(master, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    store.set(ID_KEY, "driver-20250101000000-0007")  # stored by an earlier try; the master forgot it
    result = run_try(_factory()(), make_context(store, ti.next_try()))
    assert len(master.creates) == 1
    assert result == "driver-20260101000000-0000"
    terminal = task_logs.event("Prior job in terminal state", "warning")
    assert terminal["external_id"] == "driver-20250101000000-0007" and "no longer knows" in terminal["reason"]


@pytest.mark.durable_only
def test_finished_driver_is_not_resubmitted_after_a_crash(master):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = run_try(_factory()(), make_context(store, ti))
    again = run_try(_factory()(), make_context(store, ti.next_try()))  # worker died after returning
    assert again == first and len(master.creates) == 1


@pytest.mark.durable_only
def test_changed_application_args_do_not_reconnect(master, task_logs):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    outcome = run_crash_scenario(_factory(application_args=["2026-01-01"]), CrashPoint.MID_POLL, store=store, ti=ti)
    assert len(master.creates) == 1
    store2_result = run_try(_factory(application_args=["2026-01-02"])(), make_context(store, ti.next_try().next_try()))
    assert len(master.creates) == 2 and store2_result != outcome.result
    assert any("request changed" in w for w in task_logs.at("warning"))


def test_submit_only_returns_the_driver_id_without_waiting(master):
    ti = FakeTaskInstance()
    result = run_try(_factory(wait_for_termination=False)(), make_context(InMemoryTaskStateStore(), ti))
    assert result == "driver-20260101000000-0000"
    assert master.drivers[result].status_calls == 0
    assert ti.xcom["spark_driver_id"] == result


@pytest.mark.durable_only
def test_submit_only_retry_returns_the_same_driver(master):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    first = run_try(_factory(wait_for_termination=False)(), make_context(store, ti))
    again = run_try(_factory(wait_for_termination=False)(), make_context(store, ti.next_try()))
    assert again == first and len(master.creates) == 1


@pytest.mark.durable_only
def test_durable_false_submits_on_every_try(master):
    outcome = run_crash_scenario(_factory(durable=False), CrashPoint.MID_POLL)
    assert len(master.creates) == 2
    assert outcome.store.operations == []


@pytest.mark.shim_only
def test_pre33_explicit_durable_warns_that_it_has_no_effect():
    with pytest.warns(UserWarning, match=r"durable= has no effect on Airflow 3\.[0-2]\..*needs Airflow 3\.3"):
        _factory(durable=True)()


# ---------------------------------------------------------------- trigger events
def test_trigger_error_event_fails_the_task_with_its_message(master):
    ti = FakeTaskInstance()
    op = _factory(deferrable=True)()
    event = {"status": "error", "external_id": "driver-9", "message": "Spark driver driver-9 ended KILLED"}
    with pytest.raises(ExternalJobFailed, match="driver-9 ended KILLED"):
        op.execute_complete(make_context(InMemoryTaskStateStore(), ti), event)
    assert ti.xcom["spark_driver_id"] == "driver-9"


@pytest.mark.durable_only
def test_trigger_error_while_the_driver_runs_then_the_retry_defers_to_the_same_driver(served_master):
    served_master.running_polls = 3
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    served_master.standby = True  # status reads fail ("not alive") after the driver was created
    original_create = served_master.create

    def create_while_alive(body):
        served_master.standby = False
        try:
            return original_create(body)
        finally:
            served_master.standby = True

    served_master.create = create_while_alive
    with pytest.raises(ExternalJobFailed, match=r"(?s)5 times in a row.*may still run"):
        run_try(_factory(deferrable=True)(), make_context(store, ti))
    served_master.standby = False
    result = run_try(_factory(deferrable=True)(), make_context(store, ti.next_try()))
    assert len(served_master.creates) == 1
    assert result == "driver-20260101000000-0000"
