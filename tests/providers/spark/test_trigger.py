"""The deferrable path's trigger against a fake master on real HTTP (aiohttp, no mocks)."""

from __future__ import annotations

import socket

from resumable_jobs.providers.spark.trigger import SparkDriverTrigger
from resumable_jobs.testing import run_trigger_until_event
from tests.providers.spark.fake_master import ERROR_TRACE, FakeSparkMaster


def _submit(master: FakeSparkMaster) -> str:
    _, reply = master.create({"action": "CreateSubmissionRequest", "mainClass": "x", "appResource": "/a.py"})
    return reply["submissionId"]


def _event(rest_urls, driver_id, **kwargs):
    kwargs.setdefault("poll_interval", 0)
    return run_trigger_until_event(SparkDriverTrigger(driver_id, rest_urls, **kwargs), timeout=30)


def test_finished_driver_fires_success_after_polling_through_running():
    master = FakeSparkMaster(running_polls=3)
    driver_id = _submit(master)
    with master.serve() as url:
        event = _event([url], driver_id)
    assert event == {"status": "success", "external_id": driver_id, "message": f"Spark driver {driver_id} FINISHED"}
    assert master.drivers[driver_id].status_calls == 4


def test_failed_driver_fires_error_with_the_masters_message():
    master = FakeSparkMaster(outcome="ERROR", outcome_message=ERROR_TRACE)
    driver_id = _submit(master)
    with master.serve() as url:
        event = _event([url], driver_id)
    assert event["status"] == "error" and event["external_id"] == driver_id
    assert "ended ERROR" in event["message"] and "FileNotFoundException: /apps/missing.py" in event["message"]


def test_unknown_driver_fires_error_naming_a_master_restart():
    master = FakeSparkMaster()
    with master.serve() as url:
        event = _event([url], "driver-20250101000000-0003")
    assert event["status"] == "error"
    assert "driver-20250101000000-0003" in event["message"] and "master restart" in event["message"]


def test_standby_master_is_skipped():
    standby, leader = FakeSparkMaster(standby=True), FakeSparkMaster()
    driver_id = _submit(leader)
    with standby.serve() as standby_url, leader.serve() as leader_url:
        event = _event([standby_url, leader_url], driver_id)
    assert event["status"] == "success"


def test_unreachable_master_fires_error_after_consecutive_failures_saying_the_driver_may_run():
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    event = _event([url], "driver-1", max_consecutive_errors=3)
    assert event["status"] == "error"
    assert "3 times in a row" in event["message"] and "may still run" in event["message"]
