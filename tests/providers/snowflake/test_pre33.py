"""Below Airflow 3.3 (no ``task_state_store``): every try runs the statements, as upstream's operator did."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator
from resumable_jobs.testing import DEFERRABLE_POINTS, SYNC_POINTS, run_crash_scenario

pytestmark = pytest.mark.shim_only


def make(**kwargs):
    return SnowflakeSqlApiOperator(
        task_id="load", sql="SELECT 1; SELECT 2", statement_count=2, poll_interval=0, **kwargs
    )


@pytest.mark.parametrize(
    ("deferrable", "point"),
    [(False, p) for p in SYNC_POINTS] + [(True, p) for p in DEFERRABLE_POINTS],
    ids=lambda v: v.name if hasattr(v, "name") else ("deferrable" if v else "sync"),
)
def test_every_retry_runs_the_statements_again_with_a_new_request_id(account, deferrable, point):
    outcome = run_crash_scenario(lambda: make(deferrable=deferrable), point)
    assert len(account.executions) == 2  # the shim cannot reconnect: a fresh request per try
    assert len(set(account.executed_request_ids())) == 2
    assert outcome.result == [s.handle for s in account.executions[-1].statements]
    assert outcome.store.operations == []


def test_explicit_durable_warns_that_it_has_no_effect():
    with pytest.warns(UserWarning, match=r"durable= has no effect on Airflow 3\.[0-2]\..*needs Airflow 3\.3"):
        operator = make(durable=True)
    assert operator.durable is False
