"""The conformance kit must pass a crash-safe operator and catch one that is not."""

from __future__ import annotations

import unittest

import pytest

from resumable_jobs.testing import (
    CrashPoint,
    CrashPointNotReached,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    assert_crash_safe,
    make_context,
    run_crash_scenario,
    run_try,
)
from resumable_jobs.testing.fake_system import FakeJobOperator


class AlwaysSubmits(FakeJobOperator):
    """Bypasses the mixin: what a hand-written operator without crash recovery does."""

    def execute(self, context):
        job_id = self.submit_job(context)
        self.poll_until_complete(job_id, context)
        return self.get_job_result(job_id, context)


@pytest.mark.durable_only
@pytest.mark.parametrize(
    "options",
    [{}, {"deferrable": True}, {"wait_for_termination": False}],
    ids=["sync", "deferrable", "submit-only"],
)
def test_crash_safe_operator_passes_the_matrix(system, options):
    system.searchable = True
    results = assert_crash_safe(lambda: FakeJobOperator(task_id="t", system=system, **options))
    assert {r.point for r in results} >= {CrashPoint.AFTER_SUBMIT, CrashPoint.AFTER_PERSIST}
    assert all(r.jobs == 1 for r in results)


@pytest.mark.durable_only
def test_operator_without_recovery_fails_the_matrix(system):
    with pytest.raises(AssertionError, match="duplicate job"):
        assert_crash_safe(lambda: AlwaysSubmits(task_id="t", system=system), points=[CrashPoint.MID_POLL])


@pytest.mark.durable_only
def test_open_submit_window_is_tolerated_only_when_declared(system):
    # not searchable, no dedup: the window between submit and persist really is open here
    assert_crash_safe(
        lambda: FakeJobOperator(task_id="t", system=system),
        points=[CrashPoint.AFTER_SUBMIT],
        submit_window_closed=False,
    )
    with pytest.raises(AssertionError, match="duplicate job"):
        assert_crash_safe(
            lambda: FakeJobOperator(task_id="t", system=system),
            points=[CrashPoint.AFTER_SUBMIT],
            submit_window_closed=True,
        )


@pytest.mark.durable_only
def test_wrong_result_is_caught(system):
    class ReturnsPollValue(FakeJobOperator):
        def execute(self, context):
            result = self.execute_resumable(context)
            return "not the job result" if context["ti"].try_number > 1 else result

    with pytest.raises(AssertionError, match="returned 'not the job result'"):
        assert_crash_safe(lambda: ReturnsPollValue(task_id="t", system=system), points=[CrashPoint.MID_POLL])


def test_a_point_the_operator_never_reaches_is_reported(system):
    with pytest.raises(CrashPointNotReached, match="BEFORE_DEFER"):
        run_crash_scenario(lambda: FakeJobOperator(task_id="t", system=system), CrashPoint.BEFORE_DEFER)


def test_a_deferred_try_is_resumed_through_its_trigger(system):
    result = run_try(
        FakeJobOperator(task_id="t", system=system, deferrable=True),
        make_context(InMemoryTaskStateStore(), FakeTaskInstance()),
    )
    assert result["state"] == "SUCCEEDED"


@pytest.mark.shim_only
def test_matrix_is_skipped_with_a_reason_below_3_3(system):
    with pytest.raises(unittest.SkipTest, match="needs Airflow 3.3"):
        assert_crash_safe(lambda: FakeJobOperator(task_id="t", system=system))
