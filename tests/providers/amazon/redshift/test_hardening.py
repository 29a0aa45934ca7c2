"""Issue 13's hostile-store scenarios on RedshiftDataOperator; a submission is a statement moto started."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from tests.hardening import HardeningScenarios
from tests.providers.amazon.redshift.conftest import operator

pytestmark = pytest.mark.durable_only


class TestRedshiftDataHardening(HardeningScenarios):
    secret = "redshift-parameter-secret-0123"
    secret_request: ClassVar[dict[str, Any]] = {"parameters": [{"name": "token", "value": secret}]}
    first_request: ClassVar[dict[str, Any]] = {"sql": "INSERT INTO t SELECT 1"}
    changed_request: ClassVar[dict[str, Any]] = {"sql": "INSERT INTO t SELECT 2"}

    @pytest.fixture
    def backend(self, moto_redshift):
        moto_redshift.finish_after(6)  # running for a few DescribeStatement calls, then FINISHED
        return moto_redshift

    def make(self, **kwargs):
        return operator(**kwargs)

    def submissions(self, backend):
        return len(backend.statements())

    def assert_left_running(self, backend, old_id):
        assert backend.status(old_id) != "ABORTED"  # not cancelled: the task only stopped following it
