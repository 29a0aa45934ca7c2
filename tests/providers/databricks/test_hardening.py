"""Issue 13 on both Databricks operators, behind the fake workspace (real hook, requests-mock).

A POST to ``runs/submit`` or ``run-now`` is a submission; the shared scenarios are in
``tests/hardening.py``.
"""

from __future__ import annotations

import pytest

from tests.hardening import (
    DAMAGED_RECORDS,
    assert_empty_id_is_absent,
    assert_fingerprint_is_a_digest,
    assert_keeps_unknown_fields,
    assert_refuses_damaged_record,
    assert_refuses_newer_record,
    assert_request_change_names_the_job_left_running,
    run_two_tries_at_once,
)
from tests.providers.databricks.builders import NOTEBOOK_TASKS, OPERATORS, run_now, submit_run

pytestmark = pytest.mark.durable_only

SECRET = "dapi-0123456789abcdef"


def _posts(workspace, endpoint):
    return lambda: len(workspace.started(endpoint))


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("record", DAMAGED_RECORDS)
def test_a_damaged_record_starts_no_run(workspace, make, endpoint, key, record):
    assert_refuses_damaged_record(make, _posts(workspace, endpoint), record)


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_a_record_of_a_newer_release_starts_no_run(workspace, make, endpoint, key):
    assert_refuses_newer_record(make, _posts(workspace, endpoint))


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_fields_of_a_newer_release_survive(workspace, make, endpoint, key):
    assert_keeps_unknown_fields(make, _posts(workspace, endpoint))


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_an_empty_stored_run_id_counts_as_absent(workspace, make, endpoint, key, task_logs):
    run_id = assert_empty_id_is_absent(make, _posts(workspace, endpoint), task_logs)
    assert workspace.runs[run_id].result == "SUCCESS"


def test_submit_run_stores_a_digest_of_the_request_not_its_secret(workspace):
    tasks = [{**NOTEBOOK_TASKS[0], "notebook_task": {"notebook_path": "/etl", "base_parameters": {"key": SECRET}}}]
    assert_fingerprint_is_a_digest(lambda: submit_run(tasks=tasks), SECRET)


def test_run_now_stores_a_digest_of_the_request_not_its_secret(workspace):
    assert_fingerprint_is_a_digest(lambda: run_now(job_parameters={"key": SECRET}), SECRET)


@pytest.mark.parametrize(
    ("make", "endpoint", "key", "field", "before", "after"),
    [
        pytest.param(submit_run, "runs/submit", "databricks_run_id", "run_name", "part-1", "part-2", id="SubmitRun"),
        pytest.param(
            run_now, "run-now", "databricks_run_now_id", "job_parameters", {"part": "1"}, {"part": "2"}, id="RunNow"
        ),
    ],
)
def test_a_changed_request_names_the_run_it_leaves_running(
    workspace, make, endpoint, key, field, before, after, task_logs
):
    old_run, _ = assert_request_change_names_the_job_left_running(
        lambda: make(**{field: before}), lambda: make(**{field: after}), task_logs
    )
    assert workspace.runs[old_run].life_cycle != "TERMINATED"  # not cancelled
    assert len(workspace.started(endpoint)) == 2


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_two_tries_at_once_get_one_run_from_the_idempotency_token(workspace, make, endpoint, key):
    first, second, tokens = run_two_tries_at_once(make)
    (run_id,) = workspace.runs
    assert first == second == run_id
    assert len(set(tokens)) == 1 and len(set(workspace.tokens(endpoint))) == 1
