"""Issue 13 on BatchOperator, behind moto's Batch API (in-process, real ``BatchClientHook``).

A SubmitJob is a submission; the scenarios are ``tests/hardening.py``'s. moto finishes a job
inside SubmitJob, which none of them depends on.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import BatchOperator
from tests.hardening import HardeningScenarios
from tests.providers.amazon.conftest import DEFINITION, JOB_NAME, QUEUE, REGION

pytestmark = pytest.mark.durable_only


class TestBatchHardening(HardeningScenarios):
    secret = "batch-parameter-secret-0123"
    secret_request = {"parameters": {"token": secret}}
    first_request = {"parameters": {"day": "1"}}
    changed_request = {"parameters": {"day": "2"}}

    @pytest.fixture
    def backend(self, moto_batch):
        return moto_batch

    def make(self, **kwargs):
        defaults = {"task_id": "batch", "job_name": JOB_NAME, "job_queue": QUEUE, "job_definition": DEFINITION}
        defaults.update(aws_conn_id=None, region_name=REGION, poll_interval=0)
        return BatchOperator(**{**defaults, **kwargs})

    def submissions(self, backend):
        return len(backend.job_ids())
