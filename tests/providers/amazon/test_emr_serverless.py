"""EmrServerlessStartJobOperator against moto's EMR Serverless (ThreadedMotoServer + our models).

The real ``EmrServerlessHook`` submits and polls; our ``EmrServerlessJobRunTrigger`` waits
in the deferrable tests (aiobotocore against the same server). Job runs are counted from
ListJobRuns: what the service saw, not what the operator says it did. What EMR on EKS shares
(failed runs, submit-only, the trigger, every crash point, the job lifecycle) is in test_emr_runs.py.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.testing import (
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_trigger_until_event,
    run_try,
)
from tests.providers.amazon.emr_fixtures import REGION
from tests.providers.amazon.emr_fixtures import serverless_operator as _op

ID_KEY = "emr_serverless_job_run_id"


# ---------------------------------------------------------------- every Airflow version
def test_fresh_run_starts_one_job_run_with_the_submission_token_and_returns_its_id(serverless_app):
    ti = FakeTaskInstance()
    result = run_try(_op(serverless_app), make_context(InMemoryTaskStateStore(), ti))
    (run,) = serverless_app.runs()
    assert result == run["id"]
    assert serverless_app.run(result)["state"] == "SUCCESS"
    assert ti.xcom[ID_KEY] == result
    assert run["name"].startswith(f"emr_serverless_job_airflow_{ti.task_id}-g")


def test_a_stopped_application_is_started_first(serverless_app):
    serverless_app.client.stop_application(applicationId=serverless_app.application_id)
    run_try(_op(serverless_app), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert serverless_app.client.get_application(applicationId=serverless_app.application_id)["application"][
        "state"
    ] == ("STARTED")
    assert len(serverless_app.runs()) == 1


def test_deferrable_defers_to_upstreams_application_trigger_while_the_application_starts(serverless_app):
    serverless_app.client.stop_application(applicationId=serverless_app.application_id)
    operator = _op(serverless_app, deferrable=True)
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    with pytest.raises(BaseException) as deferred:
        operator.execute(context)
    assert type(deferred.value.trigger).__name__ == "EmrServerlessStartApplicationTrigger"
    assert deferred.value.method_name == "execute" and serverless_app.runs() == []
    event = run_trigger_until_event(deferred.value.trigger)
    with pytest.raises(BaseException) as job_deferred:
        operator.execute(context, event=event)
    assert type(job_deferred.value.trigger).__name__ == "EmrServerlessJobRunTrigger"
    assert len(serverless_app.runs()) == 1


def test_links_are_pushed_from_the_monitoring_configuration(serverless_app):
    ti = FakeTaskInstance()
    overrides = {
        "monitoringConfiguration": {
            "s3MonitoringConfiguration": {"logUri": "s3://rj-logs/emr/"},
            "cloudWatchLoggingConfiguration": {"enabled": True, "logGroupName": "/rj/emr"},
        }
    }
    run_id = run_try(
        _op(serverless_app, configuration_overrides=overrides, enable_application_ui_links=True),
        make_context(InMemoryTaskStateStore(), ti),
    )
    app = serverless_app.application_id
    assert ti.xcom["emr_serverless_s3_logs_url"] == (
        f"https://console.aws.amazon.com/s3/buckets/rj-logs?region={REGION}&prefix=emr/applications/{app}/jobs/{run_id}/"
    )
    assert ti.xcom["emr_serverless_cloudwatch_logs_url"] == (
        f"https://console.aws.amazon.com/cloudwatch/home?region={REGION}#logsV2:log-groups/log-group/%2Frj%2Femr"
        f"$3FlogStreamNameFilter$3D%2Fapplications%2F{app}%2Fjobs%2F{run_id}"
    )
    assert ti.xcom["emr_serverless_dashboard_run"] == {
        "application_id": app,
        "job_run_id": run_id,
        "aws_conn_id": None,
        "region_name": REGION,
    }


def test_a_users_client_request_token_is_sent_on_the_first_submission(serverless_app):
    sent = []
    operator = _op(serverless_app, client_request_token="nightly-2026-01-01")
    original = operator.hook.conn.start_job_run

    def recording(**kwargs):
        sent.append(kwargs["clientToken"])
        return original(**kwargs)

    operator.hook.conn.start_job_run = recording
    run_try(operator, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert sent == ["nightly-2026-01-01"]


# ---------------------------------------------------------------- crash safety (Airflow >= 3.3)
@pytest.mark.durable_only
def test_a_failed_run_is_followed_by_a_new_generation_with_a_new_token(serverless_app):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    serverless_app.fail()
    with pytest.raises(ExternalJobFailed):
        run_try(_op(serverless_app), make_context(store, ti))
    serverless_app.release()
    result = run_try(_op(serverless_app), make_context(store, ti.next_try()))
    first, second = serverless_app.runs()
    assert result == second["id"] != first["id"]
    assert serverless_app.run(first["id"])["state"] == "FAILED"


@pytest.mark.durable_only
def test_a_users_token_is_only_the_first_generations(serverless_app):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    serverless_app.fail()
    with pytest.raises(ExternalJobFailed):
        run_try(_op(serverless_app, client_request_token="users-token"), make_context(store, ti))
    serverless_app.release()
    run_try(_op(serverless_app, client_request_token="users-token"), make_context(store, ti.next_try()))
    assert len(serverless_app.runs()) == 2  # the retry did not get the failed run back
