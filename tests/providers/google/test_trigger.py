"""Our ``BigQueryJobTrigger`` against the BigQuery stand-in over real HTTP, with a real service-account refresh.

What a user relies on: the event for a job that succeeds or fails (with BigQuery's reason), that a
refused read, an unknown job or unusable credentials end the wait naming the job and the cause,
that transient errors are ridden out for a few polls, that a user's kill cancels the job when
``cancel_on_kill`` says so, and that a task deferred by the previous release (upstream's trigger)
still resumes.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.local.standins.bigquery import PROJECT, BigQueryJobs, service_account_info
from resumable_jobs.local.standins.server import serve_in_thread
from resumable_jobs.providers.google.trigger import BigQueryJobTrigger
from resumable_jobs.testing import run_trigger_until_event

INVALID_QUERY = {"reason": "invalidQuery", "location": "query", "message": "Syntax error: Unexpected end of script"}


@pytest.fixture
def served(monkeypatch):
    """(BigQuery model, its URL); ``rj_gcp`` is a service-account connection whose token comes from the model."""
    model = BigQueryJobs()
    with serve_in_thread(model, "bigquery") as url:
        keyfile = service_account_info(f"{url}/token", PROJECT)
        connection = {"conn_type": "google_cloud_platform", "extra": {"project": PROJECT, "keyfile_dict": keyfile}}
        monkeypatch.setenv("AIRFLOW_CONN_RJ_GCP", json.dumps(connection))
        monkeypatch.setenv("BIGQUERY_EMULATOR_HOST", url)
        yield model, url


def _job(model, **kwargs):
    body = {"jobReference": {"projectId": PROJECT, "jobId": kwargs.pop("job_id", "job_1")}, "configuration": {}}
    code, resource = model.handle("POST", f"/bigquery/v2/projects/{PROJECT}/jobs", body)
    assert code == 200
    return resource["jobReference"]["jobId"]


def _trigger(job_id, **kwargs):
    arguments = {"conn_id": "rj_gcp", "job_id": job_id, "project_id": PROJECT, "location": "EU", "poll_interval": 0}
    return BigQueryJobTrigger(**{**arguments, **kwargs})


def _reads(model, job_id):
    return [r for r in model.requests if r["method"] == "GET" and r["job_id"] == job_id]


def test_a_running_job_is_followed_until_it_succeeds(served):
    model, _ = served
    job_id = _job(model)

    event = run_trigger_until_event(_trigger(job_id))

    assert event == {"status": "success", "job_id": job_id, "message": "Job completed"}
    assert len(_reads(model, job_id)) == model.gets_until_done + 1  # running reads, then DONE


def test_a_failed_job_gives_an_error_event_with_bigquerys_reason(served):
    model, _ = served
    model.failures.append(INVALID_QUERY)
    job_id = _job(model)

    event = run_trigger_until_event(_trigger(job_id))

    assert event["status"] == "error" and event["job_id"] == job_id
    assert event["message"] == (
        f"BigQuery job {job_id} failed: invalidQuery: Syntax error: Unexpected end of script (at query)"
    )


def test_an_unknown_job_ends_the_wait_naming_it_and_the_404(served):
    model, _ = served

    event = run_trigger_until_event(_trigger("no_such_job"))

    assert event["status"] == "error" and event["job_id"] == "no_such_job"
    assert "BigQuery job no_such_job" in event["message"] and "HTTP 404" in event["message"]
    assert "Not found: Job" in event["message"]
    assert len(_reads(model, "no_such_job")) == 1  # refused: not retried


def test_unusable_credentials_end_the_wait_naming_the_connection(served, monkeypatch):
    model, url = served
    keyfile = service_account_info(f"{url}/no-token-here", PROJECT)  # the token endpoint answers 404
    connection = {"conn_type": "google_cloud_platform", "extra": {"project": PROJECT, "keyfile_dict": keyfile}}
    monkeypatch.setenv("AIRFLOW_CONN_RJ_GCP_BAD", json.dumps(connection))
    job_id = _job(model)

    event = run_trigger_until_event(_trigger(job_id, conn_id="rj_gcp_bad"))

    assert event["status"] == "error" and event["job_id"] == job_id
    assert "could not get an access token from connection 'rj_gcp_bad'" in event["message"]
    assert _reads(model, job_id) == []


def _failing(model, monkeypatch, codes):
    real = model.handle
    queue = list(codes)

    def handle(method, path, body):
        if method == "GET" and "/jobs/" in path and queue:
            code = queue.pop(0)
            return code, {"error": {"code": code, "message": "Backend error", "errors": []}}
        return real(method, path, body)

    monkeypatch.setattr(model, "handle", handle)
    return queue


def test_transient_errors_are_retried_on_the_next_poll(served, monkeypatch):
    model, _ = served
    job_id = _job(model)
    left = _failing(model, monkeypatch, [503, 429, 500])

    event = run_trigger_until_event(_trigger(job_id))

    assert event["status"] == "success" and left == []


def test_transient_errors_in_a_row_end_the_wait_saying_the_job_may_still_run(served, monkeypatch):
    model, _ = served
    job_id = _job(model)
    _failing(model, monkeypatch, [503] * 10)

    event = run_trigger_until_event(_trigger(job_id, max_consecutive_errors=3))

    assert event["status"] == "error" and event["job_id"] == job_id
    assert "3 times in a row" in event["message"] and "HTTP 503" in event["message"]
    assert "may still be running" in event["message"]


def test_the_token_is_fetched_once_for_many_triggers_of_one_connection(served, monkeypatch):
    from google.oauth2 import service_account

    model, _ = served
    refreshes: list[str] = []
    real_refresh = service_account.Credentials.refresh

    def counting_refresh(credentials, request):
        refreshes.append(credentials.service_account_email)
        return real_refresh(credentials, request)

    monkeypatch.setattr(service_account.Credentials, "refresh", counting_refresh)
    jobs = [_job(model, job_id=f"job_{n}") for n in range(10)]

    async def all_of_them():
        return await asyncio.gather(*(_first_event(_trigger(job)) for job in jobs))

    events = asyncio.run(all_of_them())

    assert [(e["status"], e["job_id"]) for e in events] == [("success", job) for job in jobs]
    assert len(refreshes) == 1


async def _first_event(trigger):
    events = trigger.run()
    try:
        return (await events.__anext__()).payload
    finally:
        await events.aclose()


def test_on_kill_cancels_the_job_only_with_cancel_on_kill(served):
    model, _ = served
    job_id, kept = _job(model, job_id="job_killed"), _job(model, job_id="job_kept")

    asyncio.run(_trigger(job_id).on_kill())
    asyncio.run(_trigger(kept, cancel_on_kill=False).on_kill())

    assert model.cancels == [job_id]
    assert model.state(job_id) == "DONE" and model.state(kept) == "RUNNING"


def test_it_serialises_under_its_own_class_path_without_secrets():
    trigger = _trigger("job_1", impersonation_chain=["a@p.iam.gserviceaccount.com"])

    classpath, kwargs = trigger.serialize()

    assert classpath == "resumable_jobs.providers.google.trigger.BigQueryJobTrigger"
    assert BigQueryJobTrigger(**kwargs).serialize() == (classpath, kwargs)


def test_a_task_deferred_by_the_previous_release_resumes_from_upstreams_events(bigquery):
    """After an upgrade, a task deferred to upstream's ``BigQueryInsertJobTrigger`` resumes from its events."""
    from airflow.providers.google.cloud.triggers.bigquery import BigQueryInsertJobTrigger

    from tests.providers.google.test_bigquery_insert_job import _context, _op

    job_id = _job(bigquery, job_id="job_before_upgrade")
    upstream = BigQueryInsertJobTrigger(
        conn_id="google_cloud_default", job_id=job_id, project_id=PROJECT, location="EU", poll_interval=0
    )
    event = run_trigger_until_event(upstream)
    assert event == {"status": "success", "job_id": job_id, "message": "Job completed"}
    assert _op(deferrable=True).execute_complete(_context(), event, job_id=job_id, job_location="EU") == job_id

    bigquery.failures.append(INVALID_QUERY)
    failed = _job(bigquery, job_id="job_failed_before_upgrade")
    upstream_failed = BigQueryInsertJobTrigger(
        conn_id="google_cloud_default", job_id=failed, project_id=PROJECT, location="EU", poll_interval=0
    )
    error = run_trigger_until_event(upstream_failed)
    assert "job_id" not in error  # upstream's error event names no job: the deferral's kwargs carry it
    with pytest.raises(ExternalJobFailed, match=rf"BigQuery job {failed} failed: invalidQuery"):
        _op(deferrable=True).execute_complete(_context(), error, job_id=failed, job_location="EU")


@pytest.mark.parametrize(
    ("safe", "cancelled"), [(True, True), (False, False)], ids=["task-killed", "triggerer-restart"]
)
def test_before_3_3_a_cancelled_trigger_cancels_the_job_only_when_upstreams_check_says_the_task_was_killed(
    served, monkeypatch, safe, cancelled
):
    from resumable_jobs.providers.google import trigger as module

    model, _ = served
    model.gets_until_done = 1000
    job_id = _job(model, job_id="job_legacy")

    async def legacy_check(self):
        return safe

    monkeypatch.setattr(module, "_has_on_kill", lambda: False)
    monkeypatch.setattr(BigQueryJobTrigger, "_legacy_safe_to_cancel", legacy_check)

    async def cancel_while_waiting():
        waiting = asyncio.ensure_future(_first_event(_trigger(job_id, poll_interval=0.05)))
        while len(_reads(model, job_id)) < 2:
            await asyncio.sleep(0.02)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting

    asyncio.run(cancel_while_waiting())

    assert model.cancels == ([job_id] if cancelled else [])
