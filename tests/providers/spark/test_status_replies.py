"""Every status and failure reply of the REST server, through the operator, behind requests-mock."""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed, JobNotFoundError
from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.rest_client import SparkRestError
from resumable_jobs.testing import make_context
from tests.providers.spark.fake_master import ERROR_TRACE, FakeSparkMaster


def _op(**kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "/apps/job.py")
    kwargs.setdefault("status_poll_interval", 0)
    return SparkSubmitOperator(**kwargs)


def _driver_in_state(master, state, message=None):
    op = _op()
    driver_id = op.submit_job(make_context())
    master.finish(driver_id, state, message)
    return op, driver_id


@pytest.mark.parametrize("state", ["SUBMITTED", "RUNNING", "RELAUNCHING", "UNKNOWN"])
def test_states_a_retry_reconnects_to(master, state):
    op, driver_id = _driver_in_state(master, state)
    status = op.get_job_status(driver_id, make_context())
    assert status == state
    assert op.is_job_active(status) and not op.is_job_succeeded(status)


def test_finished_is_success(master):
    op, driver_id = _driver_in_state(master, "FINISHED")
    status = op.get_job_status(driver_id, make_context())
    assert op.is_job_succeeded(status) and not op.is_job_active(status)
    op.poll_until_complete(driver_id, make_context())  # returns: the driver succeeded


@pytest.mark.parametrize(
    ("state", "message", "expected"),
    [
        ("FAILED", None, r"ended FAILED on worker 127\.0\.0\.1:7078 \(the application exited with a non-zero code"),
        ("KILLED", None, r"ended KILLED"),
        ("ERROR", ERROR_TRACE, r"(?s)ended ERROR.*java\.io\.FileNotFoundException: /apps/missing\.py"),
    ],
)
def test_failed_states_fail_the_task_with_the_masters_message(master, state, message, expected):
    op, driver_id = _driver_in_state(master, state, message)
    status = op.get_job_status(driver_id, make_context())
    assert not op.is_job_active(status) and not op.is_job_succeeded(status)
    with pytest.raises(ExternalJobFailed, match=expected):
        op.poll_until_complete(driver_id, make_context())


def test_poll_waits_through_running_until_finished(master, task_logs):
    master.running_polls = 3
    op = _op()
    driver_id = op.submit_job(make_context())
    op.poll_until_complete(driver_id, make_context())
    assert master.drivers[driver_id].status_calls == 4
    assert f"Spark driver {driver_id} is RUNNING" in task_logs.at("info")
    assert f"Spark driver {driver_id} is FINISHED" in task_logs.at("info")


def test_unknown_driver_is_not_found(master):
    # A master restarted without recovery answers success=false and no driverState.
    with pytest.raises(JobNotFoundError, match="driver-20250101000000-0042"):
        _op().get_job_status("driver-20250101000000-0042", make_context())


def test_driver_forgotten_while_polling_fails_the_try_naming_the_restart(master):
    op = _op()
    driver_id = op.submit_job(make_context())
    master.forget_all()
    with pytest.raises(ExternalJobFailed, match="master may have restarted without recovery"):
        op.poll_until_complete(driver_id, make_context())


def test_standby_master_is_skipped_for_the_active_one(requests_mock, monkeypatch):
    standby, leader = FakeSparkMaster(standby=True), FakeSparkMaster()
    standby.mount(requests_mock, "http://standby.test:6066")
    leader.mount(requests_mock, "http://leader.test:6066")
    monkeypatch.setenv(
        "AIRFLOW_CONN_SPARK_DEFAULT", '{"conn_type": "spark", "host": "spark://standby.test:7077,leader.test:7077"}'
    )
    op = _op()
    driver_id = op.submit_job(make_context())
    assert op.get_job_status(driver_id, make_context()) == "RUNNING"
    assert len(leader.creates) == 1 and standby.creates == []


def test_standby_master_alone_is_an_error_not_a_missing_driver(requests_mock, monkeypatch):
    # "not found" would make the mixin submit a second driver; a standby knows nothing, so it must not.
    FakeSparkMaster(standby=True).mount(requests_mock, "http://standby.test:6066")
    monkeypatch.setenv("AIRFLOW_CONN_SPARK_DEFAULT", '{"conn_type": "spark", "host": "spark://standby.test"}')
    with pytest.raises(SparkRestError, match="Current state is not alive: STANDBY"):
        _op().get_job_status("driver-1", make_context())
    with pytest.raises(SparkRestError, match="Current state is not alive: STANDBY"):
        _op().submit_job(make_context())


def test_malformed_request_reply_is_raised_with_the_servers_message(master, requests_mock):
    requests_mock.post(
        "http://spark-master.test:6066/v1/submissions/create",
        status_code=400,
        json={"action": "ErrorResponse", "message": "Malformed request: Application jar is missing."},
    )
    with pytest.raises(SparkRestError, match="HTTP 400: Malformed request: Application jar is missing"):
        _op().submit_job(make_context())


def test_non_json_reply_is_an_error_quoting_the_body(master, requests_mock):
    requests_mock.get(
        "http://spark-master.test:6066/v1/submissions/status/driver-1", status_code=502, text="<html>Bad gateway</html>"
    )
    with pytest.raises(SparkRestError, match=r"HTTP 502 without a JSON object: '<html>Bad gateway"):
        _op().get_job_status("driver-1", make_context())


def test_create_sends_the_request_body(master):
    driver_id = _op(application_args=["a"]).submit_job(make_context())
    assert driver_id == "driver-20260101000000-0000"
    assert master.creates[0]["appArgs"] == ["job.py", "", "a"]
