"""Below Airflow 3.3 (no ``task_state_store``): every try triggers a run, as the upstream operator does."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.dbt.cause import token_in
from resumable_jobs.testing import DEFERRABLE_POINTS, SYNC_POINTS, run_crash_scenario
from tests.providers.dbt.builders import run_job

pytestmark = pytest.mark.shim_only


@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_every_retry_triggers_a_new_run_on_the_sync_path(dbt_cloud, point):
    outcome = run_crash_scenario(run_job, point)
    assert len(dbt_cloud.triggers) == len(dbt_cloud.runs) == 2
    assert len({token_in(c) for c in dbt_cloud.causes()}) == 2  # a fresh token per try
    assert outcome.result == outcome.final_job and outcome.store.operations == []


@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_every_retry_triggers_a_new_run_on_the_deferrable_path(dbt_cloud, point):
    outcome = run_crash_scenario(lambda: run_job(deferrable=True), point)
    assert len(dbt_cloud.triggers) == len(dbt_cloud.runs) == 2
    assert dbt_cloud.runs[outcome.result].status == 10


def test_explicit_durable_warns_that_it_has_no_effect():
    with pytest.warns(UserWarning, match=r"durable= has no effect on Airflow 3\.[0-2]\..*needs Airflow 3\.3"):
        op = run_job(durable=True)
    assert op.durable is False
