"""Our ``DbtCloudRunTrigger`` against the dbt Cloud stand-in over TLS: the events the operator resumes from.

What a user relies on: the event for each way a run ends (and its run id), that a refused read,
an unknown run or a bad connection ends the wait naming the run and the cause, that dbt Cloud's
transient errors are ridden out for a few polls, that the operator's timeouts end the wait as
upstream's trigger did, and that a task deferred by the previous release (upstream's trigger)
still resumes.
"""

from __future__ import annotations

import json
import time

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.local.standins.dbt_cloud import ACCOUNT_ID, CANCELLED, ERROR
from resumable_jobs.providers.dbt.trigger import DbtCloudRunTrigger
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_trigger_until_event
from tests.providers.dbt.builders import JOB, run_job


def _trigger(run_id, **kwargs):
    arguments = {
        "conn_id": "dbt_cloud_default",
        "run_id": run_id,
        "end_time": time.time() + 3600,
        "poll_interval": 0,
        "account_id": ACCOUNT_ID,
    }
    return DbtCloudRunTrigger(**{**arguments, **kwargs})


def _reads(dbt_cloud, run_id):
    return [r for r in dbt_cloud.requests if r["method"] == "GET" and r["path"].endswith(f"/runs/{run_id}/")]


def test_a_running_run_is_followed_until_it_succeeds(dbt_cloud):
    run_id = dbt_cloud.add_run(job_id=JOB)  # three active answers, then success

    event = run_trigger_until_event(_trigger(run_id))

    assert event == {"status": "success", "message": f"Job run {run_id} has completed successfully.", "run_id": run_id}
    assert len(_reads(dbt_cloud, run_id)) == 4


def test_the_account_comes_from_the_connection_when_the_operator_names_none(dbt_cloud):
    run_id = dbt_cloud.add_run(job_id=JOB, active_reads=0)

    assert run_trigger_until_event(_trigger(run_id, account_id=None))["status"] == "success"
    assert _reads(dbt_cloud, run_id)[0]["path"] == f"/api/v2/accounts/{ACCOUNT_ID}/runs/{run_id}/"


@pytest.mark.parametrize(("result", "outcome", "says"), [(ERROR, "error", "has failed"), (CANCELLED, "cancelled", "")])
def test_a_run_that_ends_without_success_gives_upstreams_event(dbt_cloud, result, outcome, says):
    run_id = dbt_cloud.add_run(job_id=JOB, result=result)

    event = run_trigger_until_event(_trigger(run_id))

    assert (event["status"], event["run_id"]) == (outcome, run_id)
    assert says in event["message"]


def test_an_unknown_run_ends_the_wait_naming_the_run_and_the_404(dbt_cloud):
    event = run_trigger_until_event(_trigger(99999))

    assert event["status"] == "error" and event["run_id"] == 99999
    assert "dbt Cloud run 99999" in event["message"] and "HTTP 404" in event["message"]
    assert "Run not found." in event["message"]
    assert len(_reads(dbt_cloud, 99999)) == 1  # refused: not retried


def test_a_refused_token_ends_the_wait_with_the_401(dbt_cloud, monkeypatch):
    run_id = dbt_cloud.add_run(job_id=JOB)
    dbt_cloud.token = "another-token"

    event = run_trigger_until_event(_trigger(run_id))

    assert event["status"] == "error" and "HTTP 401" in event["message"] and "Invalid token." in event["message"]


def test_a_missing_connection_ends_the_wait_naming_it(dbt_cloud):
    event = run_trigger_until_event(_trigger(7, conn_id="no_such_dbt_connection"))

    assert event["status"] == "error" and event["run_id"] == 7
    assert "could not read connection 'no_such_dbt_connection'" in event["message"]
    assert dbt_cloud.requests == []


def test_a_connection_without_token_ends_the_wait(dbt_cloud, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_DBT_NO_TOKEN", json.dumps({"conn_type": "dbt_cloud", "login": "4242"}))

    event = run_trigger_until_event(_trigger(7, conn_id="dbt_no_token"))

    assert event["status"] == "error" and "has no API token" in event["message"]


def _failing(dbt_cloud, monkeypatch, replies):
    """The next status reads answer ``replies`` (HTTP codes) before the stand-in answers again."""
    real = dbt_cloud.handle
    queue = list(replies)

    def handle(method, path, body):
        if method == "GET" and "/runs/" in path and queue:
            return queue.pop(0), {"status": {"code": 503, "user_message": "Service unavailable"}}
        return real(method, path, body)

    monkeypatch.setattr(dbt_cloud, "handle", handle)
    return queue


def test_transient_errors_are_retried_on_the_next_poll(dbt_cloud, monkeypatch):
    run_id = dbt_cloud.add_run(job_id=JOB, active_reads=1)
    left = _failing(dbt_cloud, monkeypatch, [503, 429, 502, 500])

    event = run_trigger_until_event(_trigger(run_id))

    assert event["status"] == "success" and left == []
    assert len(_reads(dbt_cloud, run_id)) == 2  # the stand-in's own answers after the four failures


def test_transient_errors_in_a_row_end_the_wait_saying_the_run_may_still_run(dbt_cloud, monkeypatch):
    run_id = dbt_cloud.add_run(job_id=JOB)
    _failing(dbt_cloud, monkeypatch, [503] * 10)

    event = run_trigger_until_event(_trigger(run_id, max_consecutive_errors=3))

    assert event["status"] == "error" and "3 times in a row" in event["message"]
    assert "HTTP 503" in event["message"] and "may still be running" in event["message"]
    assert dbt_cloud.runs[run_id].status != ERROR


def test_an_unreachable_tenant_is_transient_and_then_named(dbt_cloud, monkeypatch):
    connection = {"conn_type": "dbt_cloud", "host": "127.0.0.1:9", "login": "4242", "password": "x"}
    monkeypatch.setenv("AIRFLOW_CONN_DBT_UNREACHABLE", json.dumps(connection))

    event = run_trigger_until_event(_trigger(7, conn_id="dbt_unreachable", max_consecutive_errors=2))

    assert event["status"] == "error" and "2 times in a row" in event["message"]
    assert "ClientConnectorError" in event["message"] or "Cannot connect" in event["message"]


def test_the_operators_timeout_ends_the_wait_as_upstream_does(dbt_cloud):
    run_id = dbt_cloud.add_run(job_id=JOB, active_reads=50)

    event = run_trigger_until_event(_trigger(run_id, end_time=time.time() - 1))

    assert event["status"] == "error" and "within the configured timeout" in event["message"]
    assert dbt_cloud.runs[run_id].active and len(_reads(dbt_cloud, run_id)) == 1


def test_the_execution_deadline_gives_the_timeout_event_the_operator_cancels_on(dbt_cloud):
    run_id = dbt_cloud.add_run(job_id=JOB, active_reads=50)

    event = run_trigger_until_event(_trigger(run_id, execution_deadline=time.time() - 1))

    assert event == {"status": "timeout", "message": f"Job run {run_id} has timed out.", "run_id": run_id}


def test_it_serialises_under_its_own_class_path_without_secrets_and_drops_non_json_hook_params():
    trigger = _trigger(5, hook_params={"timeout_seconds": 10, "retry_args": {"wait": object()}})

    classpath, kwargs = trigger.serialize()

    assert classpath == "resumable_jobs.providers.dbt.trigger.DbtCloudRunTrigger"
    assert kwargs["hook_params"] == {"timeout_seconds": 10}
    assert DbtCloudRunTrigger(**kwargs).serialize() == (classpath, kwargs)


def test_the_operator_defers_to_our_trigger_with_its_interval_timeout_and_deadline(dbt_cloud):
    import datetime

    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    operator = run_job(deferrable=True, check_interval=9, timeout=600, execution_timeout=datetime.timedelta(hours=1))
    before = time.time()
    with pytest.raises(BaseException) as deferred:
        operator.execute(make_context(store, ti))

    trigger = deferred.value.trigger
    assert isinstance(trigger, DbtCloudRunTrigger)
    (run_id,) = dbt_cloud.runs
    assert (trigger.run_id, trigger.poll_interval, trigger.account_id) == (run_id, 9, None)
    assert before + 600 <= trigger.end_time <= time.time() + 600
    assert before + 3600 <= trigger.execution_deadline <= time.time() + 3600


def test_a_task_deferred_by_the_previous_release_resumes_from_upstreams_trigger(dbt_cloud):
    """After an upgrade, a task deferred to upstream's ``DbtCloudRunJobTrigger`` resumes from its event."""
    from airflow.providers.dbt.cloud.triggers.dbt import DbtCloudRunJobTrigger

    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    with pytest.raises(BaseException) as deferred:
        run_job(deferrable=True).execute(make_context(store, ti))
    assert type(deferred.value).__name__ == "TaskDeferred"
    (run_id,) = dbt_cloud.runs
    upstream = DbtCloudRunJobTrigger(
        conn_id="dbt_cloud_default", run_id=run_id, end_time=time.time() + 60, poll_interval=0, account_id=None
    )
    event = run_trigger_until_event(upstream)

    assert event["status"] == "success"
    assert run_job(deferrable=True).execute_complete(make_context(store, ti), event=event) == run_id

    dbt_cloud.fail_next = 1
    failed_store = InMemoryTaskStateStore()
    with pytest.raises(BaseException) as deferred:
        run_job(deferrable=True).execute(make_context(failed_store, FakeTaskInstance()))
    assert type(deferred.value).__name__ == "TaskDeferred"
    failed = max(dbt_cloud.runs)
    upstream_failed = DbtCloudRunJobTrigger(
        conn_id="dbt_cloud_default", run_id=failed, end_time=time.time() + 60, poll_interval=0, account_id=None
    )
    with pytest.raises(ExternalJobFailed, match="has failed"):
        run_job(deferrable=True).execute_complete(
            make_context(failed_store, FakeTaskInstance()), event=run_trigger_until_event(upstream_failed)
        )
