"""Below Airflow 3.3 (no ``task_state_store``): every try starts a run, as the upstream operators did."""

from __future__ import annotations

import warnings

import pytest

from resumable_jobs.testing import DEFERRABLE_POINTS, SYNC_POINTS, run_crash_scenario
from tests.providers.databricks.builders import OPERATORS

pytestmark = pytest.mark.shim_only


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_every_retry_starts_a_new_run_on_the_sync_path(workspace, make, endpoint, key, point):
    outcome = run_crash_scenario(make, point)
    assert len(workspace.started(endpoint)) == 2 and len(workspace.runs) == 2
    assert len(set(workspace.tokens(endpoint))) == 2  # a fresh token per try: Databricks does not dedupe
    assert outcome.result == outcome.final_job
    assert outcome.store.operations == []


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_every_retry_starts_a_new_run_on_the_deferrable_path(workspace, make, endpoint, key, point):
    outcome = run_crash_scenario(lambda: make(deferrable=True), point)
    assert len(workspace.started(endpoint)) == 2 and len(workspace.runs) == 2
    assert workspace.runs[outcome.result].result == "SUCCESS"


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_explicit_durable_warns_that_it_has_no_effect(make, endpoint, key):
    with pytest.warns(UserWarning, match=r"durable= has no effect on Airflow 3\.[0-2]\..*needs Airflow 3\.3"):
        op = make(durable=True)
    assert op.durable is False


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_no_warning_when_durable_is_not_given(make, endpoint, key):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        make()
        make(deferrable=True)


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_user_token_is_sent_unchanged_as_upstream_does(workspace, make, endpoint, key):
    make(idempotency_token="nightly-2026-01-01", wait_for_termination=False).execute({})
    assert workspace.tokens(endpoint) == ["nightly-2026-01-01"]
