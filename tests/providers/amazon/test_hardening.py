"""Issue 13 on BatchOperator, behind moto's Batch API (in-process, real ``BatchClientHook``).

A SubmitJob is a submission; the shared scenarios are in ``tests/hardening.py``. moto finishes a
job inside SubmitJob, which none of these scenarios depends on.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import BatchOperator
from tests.hardening import (
    DAMAGED_RECORDS,
    assert_empty_id_is_absent,
    assert_fingerprint_is_a_digest,
    assert_keeps_unknown_fields,
    assert_refuses_damaged_record,
    assert_refuses_newer_record,
    assert_request_change_names_the_job_left_running,
)
from tests.providers.amazon.conftest import DEFINITION, JOB_NAME, QUEUE, REGION

pytestmark = pytest.mark.durable_only

SECRET = "batch-parameter-secret-0123"


def _factory(**kwargs):
    kwargs.setdefault("task_id", "batch")
    kwargs.setdefault("job_name", JOB_NAME)
    kwargs.setdefault("job_queue", QUEUE)
    kwargs.setdefault("job_definition", DEFINITION)
    kwargs.setdefault("aws_conn_id", None)
    kwargs.setdefault("region_name", REGION)
    kwargs.setdefault("poll_interval", 0)
    return lambda: BatchOperator(**kwargs)


def _jobs(moto_batch):
    return lambda: len(moto_batch.job_ids())


@pytest.mark.parametrize("record", DAMAGED_RECORDS)
def test_a_damaged_record_submits_no_job(moto_batch, record):
    assert_refuses_damaged_record(_factory(), _jobs(moto_batch), record)


def test_a_record_of_a_newer_release_submits_no_job(moto_batch):
    assert_refuses_newer_record(_factory(), _jobs(moto_batch))


def test_fields_of_a_newer_release_survive(moto_batch):
    assert_keeps_unknown_fields(_factory(), _jobs(moto_batch))


def test_an_empty_stored_job_id_counts_as_absent(moto_batch, task_logs):
    job_id = assert_empty_id_is_absent(_factory(), _jobs(moto_batch), task_logs)
    assert moto_batch.describe(job_id)["status"] == "SUCCEEDED"


def test_the_record_holds_a_digest_of_the_request_not_its_secret(moto_batch):
    assert_fingerprint_is_a_digest(_factory(parameters={"token": SECRET}), SECRET)


def test_a_changed_request_names_the_job_it_leaves_running(moto_batch, task_logs):
    old_job, _ = assert_request_change_names_the_job_left_running(
        _factory(parameters={"day": "1"}), _factory(parameters={"day": "2"}), task_logs
    )
    assert len(moto_batch.job_ids()) == 2 and old_job in moto_batch.job_ids()
