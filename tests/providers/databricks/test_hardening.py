"""Issue 13 on both Databricks operators, behind the fake workspace (real hook, requests-mock).

A POST to ``runs/submit`` or ``run-now`` is a submission; the scenarios are
``tests/hardening.py``'s.
"""

from __future__ import annotations

import pytest

from tests.hardening import HardeningScenarios, run_two_tries_at_once
from tests.providers.databricks.builders import NOTEBOOK_TASKS, run_now, submit_run

pytestmark = pytest.mark.durable_only

SECRET = "dapi-0123456789abcdef"


class _Databricks(HardeningScenarios):
    endpoint = ""
    secret = SECRET

    @pytest.fixture
    def backend(self, workspace):
        return workspace

    def submissions(self, backend):
        return len(backend.started(self.endpoint))

    def assert_left_running(self, backend, old_id):
        assert backend.runs[old_id].life_cycle in ("PENDING", "RUNNING") and not backend.calls("runs/cancel")

    def test_two_tries_at_once_get_one_run_from_the_idempotency_token(self, backend):
        first, second, tokens = run_two_tries_at_once(self.make)
        (run_id,) = backend.runs
        assert first == second == run_id
        assert len(set(tokens)) == 1 and len(set(backend.tokens(self.endpoint))) == 1


class TestSubmitRunHardening(_Databricks):
    endpoint = "runs/submit"
    secret_request = {
        "tasks": [{**NOTEBOOK_TASKS[0], "notebook_task": {"notebook_path": "/etl", "base_parameters": {"k": SECRET}}}]
    }
    first_request = {"run_name": "part-1"}
    changed_request = {"run_name": "part-2"}

    def make(self, **kwargs):
        return submit_run(**kwargs)


class TestRunNowHardening(_Databricks):
    endpoint = "run-now"
    secret_request = {"job_parameters": {"key": SECRET}}
    first_request = {"job_parameters": {"part": "1"}}
    changed_request = {"job_parameters": {"part": "2"}}

    def make(self, **kwargs):
        return run_now(**kwargs)
