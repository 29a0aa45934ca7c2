"""The custom-operator example passes the conformance kit against a fake of its service."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from resumable_jobs.testing import CrashPoint, assert_crash_safe, run_crash_scenario

from tests.examples.fake_report_service import FakeReportService

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "example_dags"))
from custom_resumable_operator import ReportRenderOperator  # noqa: E402


@pytest.fixture
def service(requests_mock):
    fake = FakeReportService()
    fake.install(requests_mock)
    return fake


def _operator(service):
    return ReportRenderOperator(task_id="render", report="weekly_kpis", base_url=service.base_url, poll_interval=0)


@pytest.mark.durable_only
def test_example_operator_is_crash_safe_at_every_point(service):
    results = assert_crash_safe(lambda: _operator(service))
    assert [r.jobs for r in results] == [1] * len(results)
    assert service.posts == len(results)  # one render per scenario, never a second one


@pytest.mark.durable_only
def test_lost_id_is_found_by_client_token(service):
    outcome = run_crash_scenario(lambda: _operator(service), CrashPoint.AFTER_SUBMIT)
    assert service.posts == 1
    assert outcome.result == f"{service.base_url}/files/{outcome.final_job}.pdf"


@pytest.mark.shim_only
def test_example_operator_resubmits_below_3_3(service):
    outcome = run_crash_scenario(lambda: _operator(service), CrashPoint.MID_POLL)
    assert service.posts == 2 and outcome.jobs == 2
