"""Worker crashes at every point of the conformance matrix, in every mode, against the stand-in.

What counts is how many times the stand-in *ran* the statements (executions), not how many POSTs
it saw: a retry that lost the handles POSTs again with the same ``requestId`` and ``retry=true``,
and the SQL API answers with the first request's handles. The HTTP side is the real
``SnowflakeSqlApiHook`` and the real ``SnowflakeSqlApiTrigger``.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    assert_crash_safe,
    run_crash_scenario,
)

pytestmark = pytest.mark.durable_only

SQL = "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)"
MODES = {
    "sync": ({}, SYNC_POINTS),
    "deferrable": ({"deferrable": True}, DEFERRABLE_POINTS),
    "submit-only": ({"wait_for_termination": False}, SUBMIT_ONLY_POINTS),
}
CASES = [
    pytest.param(mode, point, id=f"{mode}-{point.name}") for mode, (_, points) in MODES.items() for point in points
]


def make(**kwargs):
    return SnowflakeSqlApiOperator(task_id="load", sql=SQL, statement_count=2, poll_interval=0, **kwargs)


@pytest.mark.parametrize(("mode", "point"), CASES)
def test_every_crash_point_runs_the_statements_once(account, mode, point):
    outcome = run_crash_scenario(lambda: make(**MODES[mode][0]), point)

    (execution,) = account.executions  # the statements ran once
    handles = [s.handle for s in execution.statements]
    assert outcome.store.get("snowflake_query_ids") == handles
    assert outcome.result == handles  # every path returns the statement handles
    assert outcome.ti.xcom == {"query_ids": handles}  # upstream's XCom key, on every path
    posts = [r for r in account.requests if r["method"] == "POST" and r["path"] == "/api/v2/statements"]
    assert len({p["requestId"] for p in posts}) == 1  # one request id per generation
    if point is CrashPoint.AFTER_SUBMIT:
        # the retry could not know whether Snowflake had the request: it resubmitted it as a retry
        assert [p["retry"] for p in posts] == [None, "True"]
    else:
        assert len(posts) == 1
    if mode != "submit-only":
        assert execution.state == "SUCCESS"


@pytest.mark.parametrize("mode", list(MODES))
def test_conformance_kit_passes_with_the_submit_window_closed(account, mode):
    kwargs, points = MODES[mode]
    results = assert_crash_safe(lambda: make(**kwargs))  # find_job makes the kit expect a closed window
    assert len(results) == len(points)
    assert len(account.executions) == len(points)  # one execution per scenario, never two
