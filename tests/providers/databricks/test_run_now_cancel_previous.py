"""``cancel_previous_runs=True`` must never cancel the run a retry follows (Airflow >= 3.3)."""

from __future__ import annotations

import pytest

from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_crash_scenario,
    run_try,
)
from tests.providers.databricks.builders import run_now

pytestmark = pytest.mark.durable_only


@pytest.mark.parametrize(
    ("deferrable", "point"),
    [
        (False, CrashPoint.AFTER_PERSIST),
        (False, CrashPoint.MID_POLL),
        (True, CrashPoint.AFTER_PERSIST),
        (True, CrashPoint.BEFORE_DEFER),
        (True, CrashPoint.AFTER_DEFER),
    ],
    ids=lambda v: v.name if isinstance(v, CrashPoint) else ("deferrable" if v else "sync"),
)
def test_reconnect_does_not_cancel_the_run_it_reconnects_to(workspace, deferrable, point):
    outcome = run_crash_scenario(lambda: run_now(cancel_previous_runs=True, deferrable=deferrable), point)

    (run_id,) = workspace.runs
    assert outcome.result == run_id and workspace.runs[run_id].result == "SUCCESS"
    assert len(workspace.calls("runs/cancel-all")) == 1  # the first try's, before its run existed


def test_lost_run_id_retry_does_not_cancel_the_run_databricks_hands_back(workspace, task_logs):
    outcome = run_crash_scenario(lambda: run_now(cancel_previous_runs=True), CrashPoint.AFTER_SUBMIT)

    (run_id,) = workspace.runs
    assert workspace.runs[run_id].result == "SUCCESS"  # not CANCELED by the retry
    assert outcome.result == run_id
    assert len(workspace.started("run-now")) == 2 and len(set(workspace.tokens("run-now"))) == 1
    assert len(workspace.calls("runs/cancel-all")) == 1
    assert any("Not cancelling the runs of job 7 again" in m for m in task_logs.at("info"))


def test_new_generation_after_a_failed_run_cancels_previous_runs_again(workspace):
    workspace.fail_next = 1
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(Exception, match="FAILED"):
        run_try(run_now(cancel_previous_runs=True), make_context(store, ti))
    other = workspace.add_run(endpoint="run-now")  # someone else started the job meanwhile

    run_try(run_now(cancel_previous_runs=True), make_context(store, ti.next_try()))

    assert len(workspace.calls("runs/cancel-all")) == 2
    assert workspace.runs[other].result == "CANCELED"


def test_crash_between_cancelling_and_starting_does_not_cancel_twice(workspace):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    first = run_now(cancel_previous_runs=True)
    # The worker dies inside run-now's POST, before Databricks saw it.
    object.__setattr__(first.hook, "run_now", _die)
    with pytest.raises(BaseException, match="worker died"):
        run_try(first, make_context(store, ti))
    assert workspace.started("run-now") == [] and len(workspace.calls("runs/cancel-all")) == 1

    result = run_try(run_now(cancel_previous_runs=True), make_context(store, ti.next_try()))
    assert workspace.runs[result].result == "SUCCESS"
    assert len(workspace.calls("runs/cancel-all")) == 1


def _die(body):
    from resumable_jobs.testing import SimulatedWorkerCrash

    raise SimulatedWorkerCrash("worker died")
