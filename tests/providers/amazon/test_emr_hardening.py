"""Issue 13's hostile-user scenarios on the EMR operators, behind moto (real upstream hooks).

A StartJobRun is a submission, counted with ListJobRuns; the scenarios are ``tests/hardening.py``'s.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from resumable_jobs.providers.amazon import EmrContainerOperator, EmrServerlessStartJobOperator
from tests.hardening import HardeningScenarios
from tests.providers.amazon.emr_fixtures import EKS_DRIVER, REGION, ROLE

pytestmark = pytest.mark.durable_only

SECRET = "emr-argument-secret-0123"


def _serverless_driver(*arguments: str) -> dict:
    return {"sparkSubmit": {"entryPoint": "s3://rj/etl.py", "entryPointArguments": list(arguments)}}


def _eks_driver(*arguments: str) -> dict:
    return {"sparkSubmitJobDriver": {**EKS_DRIVER["sparkSubmitJobDriver"], "entryPointArguments": list(arguments)}}


class TestEmrServerlessHardening(HardeningScenarios):
    secret = SECRET
    secret_request: ClassVar[dict] = {"job_driver": _serverless_driver("--password", SECRET)}
    first_request: ClassVar[dict] = {"job_driver": _serverless_driver("--day", "1")}
    changed_request: ClassVar[dict] = {"job_driver": _serverless_driver("--day", "2")}

    @pytest.fixture
    def backend(self, serverless_app):
        self.app = serverless_app
        return serverless_app

    def make(self, **kwargs):
        defaults = {"task_id": "spark_etl", "application_id": self.app.application_id, "execution_role_arn": ROLE}
        defaults.update(job_driver=_serverless_driver(), aws_conn_id=None, region_name=REGION, waiter_delay=0)
        return EmrServerlessStartJobOperator(**{**defaults, **kwargs})

    def submissions(self, backend):
        return len(backend.runs())

    def assert_left_running(self, backend, old_id):
        assert backend.run(old_id)["state"] != "CANCELLED"


class TestEmrContainerHardening(HardeningScenarios):
    secret = SECRET
    secret_request: ClassVar[dict] = {"job_driver": _eks_driver("--password", SECRET)}
    first_request: ClassVar[dict] = {"job_driver": _eks_driver("--day", "1")}
    changed_request: ClassVar[dict] = {"job_driver": _eks_driver("--day", "2")}

    @pytest.fixture
    def backend(self, virtual_cluster):
        virtual_cluster.release()
        self.cluster = virtual_cluster
        return virtual_cluster

    def make(self, **kwargs):
        defaults = {"task_id": "eks_etl", "name": "etl", "virtual_cluster_id": self.cluster.virtual_cluster_id}
        defaults.update(execution_role_arn=ROLE, release_label="emr-6.15.0-latest", job_driver=_eks_driver())
        defaults.update(aws_conn_id=None, region_name=REGION, poll_interval=0)
        return EmrContainerOperator(**{**defaults, **kwargs})

    def submissions(self, backend):
        return len(backend.runs())

    def assert_left_running(self, backend, old_id):
        assert backend.run(old_id)["state"] != "CANCELLED"
