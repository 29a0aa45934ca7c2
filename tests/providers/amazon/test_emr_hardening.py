"""Issue 13's hostile-user scenarios on the EMR operators, behind moto (real upstream hooks).

A StartJobRun is a submission, counted with ListJobRuns; the scenarios are ``tests/hardening.py``'s.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from tests.hardening import HardeningScenarios
from tests.providers.amazon.emr_fixtures import EKS_DRIVER, container_operator, serverless_operator

pytestmark = pytest.mark.durable_only

SECRET = "emr-argument-secret-0123"


def _serverless_driver(*arguments: str) -> dict:
    return {"sparkSubmit": {"entryPoint": "s3://rj/etl.py", "entryPointArguments": list(arguments)}}


class _EmrRuns(HardeningScenarios):
    """Both services: a submission is a run in ListJobRuns; a run left alone is not CANCELLED."""

    def submissions(self, backend):
        return len(backend.runs())

    def assert_left_running(self, backend, old_id):
        assert backend.run(old_id)["state"] != "CANCELLED"


def _eks_driver(*arguments: str) -> dict:
    return {"sparkSubmitJobDriver": {**EKS_DRIVER["sparkSubmitJobDriver"], "entryPointArguments": list(arguments)}}


class TestEmrServerlessHardening(_EmrRuns):
    secret = SECRET
    secret_request: ClassVar[dict] = {"job_driver": _serverless_driver("--password", SECRET)}
    first_request: ClassVar[dict] = {"job_driver": _serverless_driver("--day", "1")}
    changed_request: ClassVar[dict] = {"job_driver": _serverless_driver("--day", "2")}

    @pytest.fixture
    def backend(self, serverless_app):
        self.app = serverless_app
        return serverless_app

    def make(self, **kwargs):
        return serverless_operator(self.app, **{"job_driver": _serverless_driver(), **kwargs})


class TestEmrContainerHardening(_EmrRuns):
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
        return container_operator(self.cluster, **{"name": "etl", "job_driver": _eks_driver(), **kwargs})
