"""Below Airflow 3.3: same contract, every try submits, explicit durable= warns once."""

from __future__ import annotations

import datetime
import warnings

import pytest
from airflow.sdk import DAG

from resumable_jobs.shims.sdk_names import sdk_exception
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SYNC_POINTS,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_crash_scenario,
    run_try,
)
from resumable_jobs.testing.fake_system import FakeJobOperator

TaskDeferred = sdk_exception("TaskDeferred")

pytestmark = pytest.mark.shim_only


@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_every_retry_submits_a_new_job_on_the_sync_path(system, point):
    system.searchable = system.deduplicate_tokens = True  # even a helpful system cannot help
    outcome = run_crash_scenario(lambda: FakeJobOperator(task_id="t", system=system), point)
    assert outcome.jobs == 2 and system.submissions == 2
    assert outcome.result == {"job_id": outcome.final_job, "state": "SUCCEEDED"}


@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_every_retry_submits_a_new_job_on_the_deferrable_path(system, point):
    outcome = run_crash_scenario(lambda: FakeJobOperator(task_id="t", system=system, deferrable=True), point)
    assert outcome.jobs == 2
    assert outcome.result == {"job_id": outcome.final_job, "state": "SUCCEEDED"}


def test_deferral_still_defers_and_resumes(system):
    op = FakeJobOperator(task_id="t", system=system, deferrable=True)
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(make_context(None, FakeTaskInstance()))
    assert deferred.value.method_name == "execute_complete"


def test_submit_only_returns_the_id_without_waiting(system):
    result = run_try(FakeJobOperator(task_id="t", system=system, wait_for_termination=False), make_context())
    assert system.jobs[result].state == "RUNNING"


def test_store_is_never_touched(system):
    store = InMemoryTaskStateStore()
    run_try(FakeJobOperator(task_id="t", system=system), make_context(store, FakeTaskInstance()))
    assert store.operations == []


def test_explicit_durable_warns_once_naming_the_version(system):
    with pytest.warns(UserWarning, match=r"durable= has no effect on Airflow 3\.[0-2]\..*needs Airflow 3\.3") as caught:
        FakeJobOperator(task_id="a", system=system, durable=True)
        FakeJobOperator(task_id="b", system=system, durable=False)
    assert len([w for w in caught if "durable=" in str(w.message)]) == 1


def test_durable_through_default_args_warns_too(system):
    with pytest.warns(UserWarning, match="durable= has no effect"):
        with DAG("d", schedule=None, start_date=datetime.datetime(2026, 1, 1), default_args={"durable": False}):
            FakeJobOperator(task_id="a", system=system)


def test_no_warning_when_durable_is_not_given(system):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        FakeJobOperator(task_id="a", system=system)


def test_tokens_are_new_on_every_try(system):
    system.deduplicate_tokens = True
    for try_number in (1, 2):
        run_try(FakeJobOperator(task_id="t", system=system), make_context(None, FakeTaskInstance(try_number=try_number)))
    assert system.submissions == 2
