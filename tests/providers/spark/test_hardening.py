"""Issue 13 on SparkSubmitOperator, behind the fake standalone master (REST, requests-mock).

A CreateSubmissionRequest is a submission; the shared scenarios are in ``tests/hardening.py``.
Two tries at once are not here: the master cannot be searched or asked to deduplicate, so both
submit (the README says so).
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.spark import SparkSubmitOperator
from tests.hardening import (
    DAMAGED_RECORDS,
    assert_empty_id_is_absent,
    assert_fingerprint_is_a_digest,
    assert_keeps_unknown_fields,
    assert_refuses_damaged_record,
    assert_refuses_newer_record,
    assert_request_change_names_the_job_left_running,
)

pytestmark = pytest.mark.durable_only

SECRET = "s3a-secret-0123456789"


def _factory(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "/apps/job.py")
    kwargs.setdefault("status_poll_interval", 0)
    return lambda: SparkSubmitOperator(**kwargs)


def _creates(master):
    return lambda: len(master.creates)


@pytest.mark.parametrize("record", DAMAGED_RECORDS)
def test_a_damaged_record_submits_no_driver(master, record):
    assert_refuses_damaged_record(_factory(), _creates(master), record)


def test_a_record_of_a_newer_release_submits_no_driver(master):
    assert_refuses_newer_record(_factory(), _creates(master))


def test_fields_of_a_newer_release_survive(master):
    assert_keeps_unknown_fields(_factory(), _creates(master))


def test_an_empty_stored_driver_id_counts_as_absent(master, task_logs):
    # Before: the master was asked for the status of driver '' and answered 400 on every try.
    driver_id = assert_empty_id_is_absent(_factory(), _creates(master), task_logs)
    assert master.drivers[driver_id].state == "FINISHED"


def test_the_record_holds_a_digest_of_the_request_not_its_secret(master):
    assert_fingerprint_is_a_digest(_factory(conf={"spark.hadoop.fs.s3a.secret.key": SECRET}), SECRET)


def test_a_changed_request_names_the_driver_it_leaves_running(master, task_logs):
    master.running_polls = 5
    old_driver, _ = assert_request_change_names_the_job_left_running(
        _factory(application_args=["--day", "1"]), _factory(application_args=["--day", "2"]), task_logs
    )
    assert master.kills == [] and old_driver in master.drivers
