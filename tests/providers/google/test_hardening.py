"""Issue 13 on BigQueryInsertJobOperator, behind the fake jobs API (real hook and client).

A jobs.insert POST is a submission; the scenarios are ``tests/hardening.py``'s.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.google import BigQueryInsertJobOperator
from tests.hardening import HardeningScenarios, run_two_tries_at_once

pytestmark = pytest.mark.durable_only


def _query(sql):
    return {"configuration": {"query": {"query": sql, "useLegacySql": False}}}


class TestBigQueryInsertJobHardening(HardeningScenarios):
    secret = "AKIA-not-for-the-store"
    secret_request = _query(f"SELECT * FROM EXTERNAL_QUERY('conn', 'SELECT 1 WHERE key = \"{secret}\"')")
    first_request = _query("SELECT 1")
    changed_request = _query("SELECT 2")

    @pytest.fixture
    def backend(self, bigquery):
        return bigquery

    def make(self, **kwargs):
        kwargs.setdefault("task_id", "load_orders")
        kwargs.setdefault("configuration", _query("SELECT 1")["configuration"])
        kwargs.setdefault("poll_interval", 0)
        return BigQueryInsertJobOperator(**kwargs)

    def submissions(self, backend):
        return len(backend.insert_ids)

    def assert_left_running(self, backend, old_id):
        assert backend.cancels == [] and backend.state(old_id) == "RUNNING"

    def test_two_tries_at_once_follow_one_job_through_the_derived_job_id(self, backend):
        first, second, tokens = run_two_tries_at_once(self.make)
        (job_id,) = backend.inserted_jobs
        assert first == second == job_id
        assert len(set(tokens)) == 1
        assert backend.insert_ids == [job_id, job_id]  # the later insert got 409 and followed the job
