"""The conformance kit on RedshiftDataOperator, counting the statements the Data API (moto + our model) saw.

Every crash point runs on a clean backend, so the count is that scenario's alone: the goal is one
statement per crash point in every mode. Statements stay STARTED for a few DescribeStatement
calls (``finish_after``), so the retries really reconnect to a running statement rather than find
a finished one. ``STATEMENTS_SEEN`` collects the figures for the report.
"""

from __future__ import annotations

import pytest

from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    assert_crash_safe,
    assert_job_lifecycle,
)
from tests.providers.amazon.redshift.conftest import operator

#: (mode, crash point) -> statements moto started
STATEMENTS_SEEN: dict[tuple[str, str], int] = {}
DESCRIBES_WHILE_RUNNING = 6


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_runs_one_statement_per_crash_point(moto_redshift, point):
    moto_redshift.finish_after(DESCRIBES_WHILE_RUNNING)
    (outcome,) = assert_crash_safe(operator, points=[point], submit_window_closed=True)
    STATEMENTS_SEEN[("sync", point.name)] = len(moto_redshift.statements())
    assert moto_redshift.statement_ids() == [outcome.final_job]
    assert moto_redshift.status(outcome.final_job) == "FINISHED"


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_runs_one_statement_per_crash_point(moto_redshift, point):
    moto_redshift.finish_after(DESCRIBES_WHILE_RUNNING)
    (outcome,) = assert_crash_safe(lambda: operator(deferrable=True), points=[point], submit_window_closed=True)
    STATEMENTS_SEEN[("deferrable", point.name)] = len(moto_redshift.statements())
    assert moto_redshift.statement_ids() == [outcome.final_job]


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SUBMIT_ONLY_POINTS, ids=lambda p: p.name)
def test_submit_only_runs_one_statement_per_crash_point_and_returns_upstreams_list(moto_redshift, point):
    """Upstream's operator returns a list of statement ids without waiting; the kit checks that the
    retry returns it too, through ``get_submit_only_result``."""
    moto_redshift.hold()
    (outcome,) = assert_crash_safe(
        lambda: operator(wait_for_termination=False), points=[point], submit_window_closed=True
    )
    STATEMENTS_SEEN[("submit-only", point.name)] = len(moto_redshift.statements())
    assert moto_redshift.statement_ids() == [outcome.final_job]
    assert outcome.result == [outcome.final_job]
    assert moto_redshift.status(outcome.final_job) == "STARTED"  # nobody waited, nobody cancelled


@pytest.mark.parametrize("durable", [None, False], ids=["durable-default", "durable-False"])
def test_statements_are_cancelled_exactly_where_the_lifecycle_table_says(moto_redshift, durable):
    moto_redshift.finish_after(DESCRIBES_WHILE_RUNNING)
    outcomes = assert_job_lifecycle(lambda: operator(durable=durable))
    for outcome in outcomes:
        expected = "ABORTED" if outcome.cancelled else "FINISHED"  # a kept one was followed to the end
        assert moto_redshift.status(outcome.job_id) == expected, outcome.case
    assert len(moto_redshift.statements()) == len(outcomes)  # one statement per case: no retry ran it again


@pytest.mark.durable_only
def test_cancel_on_worker_shutdown_restores_the_cancel_on_sigterm(moto_redshift):
    from resumable_jobs.testing import LifecycleCase, run_lifecycle_case

    moto_redshift.finish_after(DESCRIBES_WHILE_RUNNING)
    outcome = run_lifecycle_case(lambda: operator(cancel_on_worker_shutdown=True), LifecycleCase.WORKER_SHUTDOWN)
    assert moto_redshift.status(outcome.job_id) == "ABORTED"


def test_zz_print_the_statements_seen():
    """Not an assertion: the per-mode, per-crash-point figures for the report (``-s`` shows them)."""
    for (mode, point), count in sorted(STATEMENTS_SEEN.items()):
        print(f"{mode:12} {point:22} statements: {count}")
