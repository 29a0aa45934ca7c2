"""Issue 13 on BigQueryInsertJobOperator, behind the fake jobs API (real hook and client).

A jobs.insert POST is a submission; the shared scenarios are in ``tests/hardening.py``.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.google import BigQueryInsertJobOperator
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

pytestmark = pytest.mark.durable_only

SECRET = "AKIA-not-for-the-store"


def _factory(query="SELECT 1", **kwargs):
    kwargs.setdefault("task_id", "load_orders")
    kwargs.setdefault("configuration", {"query": {"query": query, "useLegacySql": False}})
    kwargs.setdefault("poll_interval", 0)
    return lambda: BigQueryInsertJobOperator(**kwargs)


def _inserts(bigquery):
    return lambda: len(bigquery.insert_ids)


@pytest.mark.parametrize("record", DAMAGED_RECORDS)
def test_a_damaged_record_inserts_no_job(bigquery, record):
    assert_refuses_damaged_record(_factory(), _inserts(bigquery), record)


def test_a_record_of_a_newer_release_inserts_no_job(bigquery):
    assert_refuses_newer_record(_factory(), _inserts(bigquery))


def test_fields_of_a_newer_release_survive(bigquery):
    assert_keeps_unknown_fields(_factory(), _inserts(bigquery))


def test_an_empty_stored_job_id_counts_as_absent(bigquery, task_logs):
    job_id = assert_empty_id_is_absent(_factory(), _inserts(bigquery), task_logs)
    assert bigquery.state(job_id) == "DONE"


def test_the_record_holds_a_digest_of_the_request_not_its_secret(bigquery):
    query = f"SELECT * FROM EXTERNAL_QUERY('conn', 'SELECT 1 WHERE key = \"{SECRET}\"')"
    assert_fingerprint_is_a_digest(_factory(query), SECRET)


def test_a_changed_request_names_the_job_it_leaves_running(bigquery, task_logs):
    bigquery.gets_until_done = 5
    old_job, _ = assert_request_change_names_the_job_left_running(
        _factory("SELECT 1"), _factory("SELECT 2"), task_logs
    )
    assert bigquery.cancels == [] and bigquery.state(old_job) == "RUNNING"


def test_two_tries_at_once_follow_one_job_through_the_derived_job_id(bigquery):
    first, second, tokens = run_two_tries_at_once(_factory())
    (job_id,) = bigquery.inserted_jobs
    assert first == second == job_id
    assert len(set(tokens)) == 1
    assert bigquery.insert_ids == [job_id, job_id]  # the later insert got 409 and followed the job
