"""The job-lifecycle table: which statement handles got ``POST .../cancel``, and which finished."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator
from resumable_jobs.testing import LifecycleCase, assert_job_lifecycle, make_context, run_lifecycle_case

SQL = "UPDATE t SET a = 1; DELETE FROM u"


def make(**kwargs):
    return SnowflakeSqlApiOperator(task_id="load", sql=SQL, statement_count=2, poll_interval=0, **kwargs)


@pytest.fixture
def long_statements(account):
    """Statements answer 202 for more reads than a try and its retry make before the poll ends."""
    account.active_reads = 8
    return account


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_statements_are_cancelled_exactly_where_the_lifecycle_table_says(long_statements, durable):
    outcomes = assert_job_lifecycle(lambda: make(durable=durable))
    cancelled = [handle for o in outcomes if o.cancelled for handle in o.job_id]
    kept = [handle for o in outcomes if not o.cancelled for handle in o.job_id]
    assert long_statements.cancels == cancelled  # every still-running handle, once
    assert {long_statements.statements[h].state for h in cancelled} <= {"CANCELLED"}
    assert {long_statements.statements[h].state for h in kept} <= {"SUCCESS"}
    assert len(long_statements.executions) == len(outcomes)  # a kept job was reconnected, never rerun


def test_only_statements_still_running_are_cancelled(long_statements):
    """A statement that already ended is not sent a cancel; the one still running is."""
    operator = make()
    operator.submission_token = "load-g1-feedfacefeedfacefeedface"
    handles = operator.submit_job(make_context())
    first = long_statements.statements[handles[0]]
    first.reads_left = 0
    first.advance(0.0)  # the first statement finished
    operator.cancel_job(handles, make_context())
    assert long_statements.cancels == [handles[1]]
    assert [long_statements.statements[h].state for h in handles] == ["SUCCESS", "CANCELLED"]


@pytest.mark.durable_only
def test_cancel_on_worker_shutdown_restores_the_cancel_on_sigterm(long_statements):
    outcome = run_lifecycle_case(lambda: make(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert long_statements.cancels == outcome.job_id


def test_cancel_on_kill_false_never_cancels(long_statements):
    outcome = run_lifecycle_case(lambda: make(cancel_on_kill=False), LifecycleCase.STOPPED_ON_PURPOSE)
    assert outcome.job_id and not outcome.cancelled
    assert long_statements.cancels == []
