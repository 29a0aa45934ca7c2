"""Issue 13 on SparkSubmitOperator, behind the fake standalone master (REST, requests-mock).

A CreateSubmissionRequest is a submission; the scenarios are ``tests/hardening.py``'s. Two
tries at once are not here: the master can neither be searched nor deduplicate, so both submit
(the README says so).
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from tests.hardening import HardeningScenarios, assert_empty_id_is_absent

pytestmark = pytest.mark.durable_only


class TestSparkSubmitHardening(HardeningScenarios):
    secret = "s3a-secret-0123456789"
    secret_request = {"conf": {"spark.hadoop.fs.s3a.secret.key": secret}}
    first_request = {"application_args": ["--day", "1"]}
    changed_request = {"application_args": ["--day", "2"]}

    @pytest.fixture
    def backend(self, master):
        master.running_polls = 3
        return master

    def make(self, **kwargs):
        kwargs.setdefault("task_id", "spark_job")
        kwargs.setdefault("application", "/apps/job.py")
        kwargs.setdefault("status_poll_interval", 0)
        return SparkSubmitOperator(**kwargs)

    def submissions(self, backend):
        return len(backend.creates)

    def assert_left_running(self, backend, old_id):
        assert backend.kills == [] and backend.drivers[old_id].state == "RUNNING"

    def test_an_empty_driver_id_is_never_asked_about(self, backend, task_logs, requests_mock):
        # Before: the master was asked for the status of driver '' and answered 400 on every try.
        driver_id = assert_empty_id_is_absent(self.make, lambda: self.submissions(backend), task_logs)
        assert backend.drivers[driver_id].state == "FINISHED"
        assert not [r for r in requests_mock.request_history if r.path.rstrip("/").endswith("/status")]
