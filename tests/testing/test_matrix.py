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


class ReturnsAUrl(FakeJobOperator):
    """An operator whose upstream returns a page URL, not the id, when it does not wait."""

    def get_submit_only_result(self, external_id, context):
        return f"https://jobs.example/{external_id}"


@pytest.mark.durable_only
def test_submit_only_tries_return_get_submit_only_result_whether_they_submitted_or_reconnected(system):
    system.searchable = True
    outcomes = assert_crash_safe(lambda: ReturnsAUrl(task_id="t", system=system, wait_for_termination=False))
    assert outcomes and all(o.result == f"https://jobs.example/{o.final_job}" for o in outcomes)
    store = InMemoryTaskStateStore()
    fresh = run_try(ReturnsAUrl(task_id="t", system=system, wait_for_termination=False),
                    make_context(store, FakeTaskInstance()))  # fmt: skip
    assert fresh == f"https://jobs.example/{store.get('fake_job_id')}"


@pytest.mark.durable_only
def test_a_retry_returning_the_bare_id_where_the_first_try_returned_the_url_is_caught(system):
    class RetryForgets(ReturnsAUrl):
        def execute(self, context):
            result = self.execute_resumable(context)
            return result.rsplit("/", 1)[-1] if context["ti"].try_number > 1 else result

    system.searchable = True
    with pytest.raises(AssertionError, match="the retry returned"):
        assert_crash_safe(lambda: RetryForgets(task_id="t", system=system, wait_for_termination=False))


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
