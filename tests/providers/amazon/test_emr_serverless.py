"""EmrServerlessStartJobOperator against moto's EMR Serverless (ThreadedMotoServer + our models).

The real ``EmrServerlessHook`` submits and polls; the real ``EmrServerlessStartJobTrigger`` waits
in the deferrable tests (aiobotocore against the same server). Job runs are counted from
ListJobRuns: what the service saw, not what the operator says it did.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.amazon import EmrServerlessStartJobOperator
from resumable_jobs.testing import (
    DEFERRABLE_POINTS,
    SUBMIT_ONLY_POINTS,
    SYNC_POINTS,
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    assert_crash_safe,
    assert_job_lifecycle,
    crash_at,
    make_context,
    run_crash_scenario,
    run_trigger_until_event,
    run_try,
)
from tests.providers.amazon.emr_fixtures import (
    REGION,
    ROLE,
    SPARK_DRIVER,
)

ID_KEY = "emr_serverless_job_run_id"


def _op(app, **kwargs):
    kwargs.setdefault("task_id", "spark_etl")
    kwargs.setdefault("application_id", app.application_id)
    kwargs.setdefault("execution_role_arn", ROLE)
    kwargs.setdefault("job_driver", SPARK_DRIVER)
    kwargs.setdefault("aws_conn_id", None)
    kwargs.setdefault("region_name", REGION)
    kwargs.setdefault("waiter_delay", 0)
    return EmrServerlessStartJobOperator(**kwargs)


# ---------------------------------------------------------------- every Airflow version
def test_fresh_run_starts_one_job_run_with_the_submission_token_and_returns_its_id(serverless_app):
    ti = FakeTaskInstance()
    result = run_try(_op(serverless_app), make_context(InMemoryTaskStateStore(), ti))
    (run,) = serverless_app.runs()
    assert result == run["id"]
    assert serverless_app.run(result)["state"] == "SUCCESS"
    assert ti.xcom[ID_KEY] == result
    assert run["name"].startswith(f"emr_serverless_job_airflow_{ti.task_id}-g")


def test_a_failed_run_fails_the_try_with_its_state_details(serverless_app):
    serverless_app.fail()
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED; stateDetails: Job run failed"):
        run_try(_op(serverless_app), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert len(serverless_app.runs()) == 1


def test_submit_only_returns_the_id_without_waiting(serverless_app):
    serverless_app.hold()
    result = run_try(_op(serverless_app, wait_for_completion=False), make_context(None, FakeTaskInstance()))
    assert [run["id"] for run in serverless_app.runs()] == [result]
    assert serverless_app.run(result)["state"] == "RUNNING"


def test_deferrable_run_waits_in_upstreams_trigger_and_returns_the_id(serverless_app):
    ti = FakeTaskInstance()
    operator = _op(serverless_app, deferrable=True)
    with pytest.raises(BaseException) as deferred:
        operator.execute(make_context(InMemoryTaskStateStore(), ti))
    trigger = deferred.value.trigger
    assert type(trigger).__name__ == "EmrServerlessStartJobTrigger"
    assert trigger.job_id == ti.xcom[ID_KEY] and trigger.cancel_on_kill is True
    event = run_trigger_until_event(trigger)
    assert operator.execute_complete(make_context(InMemoryTaskStateStore(), ti), event=event) == trigger.job_id


def test_deferrable_failed_run_raises_with_its_state(serverless_app):
    serverless_app.fail()
    with pytest.raises(ExternalJobFailed, match=r"ended FAILED"):
        run_try(_op(serverless_app, deferrable=True), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


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
    assert type(job_deferred.value.trigger).__name__ == "EmrServerlessStartJobTrigger"
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
@pytest.mark.parametrize("point", SYNC_POINTS, ids=lambda p: p.name)
def test_sync_crash_points_leave_one_job_run(serverless_app, point):
    assert_crash_safe(lambda: _op(serverless_app), points=[point], submit_window_closed=True)
    assert len(serverless_app.runs()) == 1


@pytest.mark.durable_only
@pytest.mark.parametrize("point", DEFERRABLE_POINTS, ids=lambda p: p.name)
def test_deferrable_crash_points_leave_one_job_run(serverless_app, point):
    assert_crash_safe(lambda: _op(serverless_app, deferrable=True), points=[point], submit_window_closed=True)
    assert len(serverless_app.runs()) == 1


@pytest.mark.durable_only
@pytest.mark.parametrize("point", SUBMIT_ONLY_POINTS, ids=lambda p: p.name)
def test_submit_only_crash_points_leave_one_job_run(serverless_app, point):
    serverless_app.hold()
    assert_crash_safe(lambda: _op(serverless_app, wait_for_completion=False), points=[point], submit_window_closed=True)
    assert len(serverless_app.runs()) == 1


@pytest.mark.durable_only
def test_the_lost_submission_is_answered_by_the_client_token(serverless_app):
    """Crash between StartJobRun and persisting: the retry repeats StartJobRun with the same token."""
    outcome = run_crash_scenario(lambda: _op(serverless_app), CrashPoint.AFTER_SUBMIT)
    (run,) = serverless_app.runs()
    assert outcome.submitted_ids == [run["id"], run["id"]]  # two StartJobRun calls, one run
    assert outcome.result == run["id"] and outcome.store.get(ID_KEY) == run["id"]


@pytest.mark.durable_only
def test_a_retry_whose_run_is_still_active_defers_again_to_the_same_run(serverless_app):
    serverless_app.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = _op(serverless_app, deferrable=True)
    with crash_at(first, CrashPoint.AFTER_DEFER, store), pytest.raises(BaseException, match="simulated worker"):
        first.execute(make_context(store, ti))
    (run,) = serverless_app.runs()
    retry, context = _op(serverless_app, deferrable=True), make_context(store, ti.next_try())
    with pytest.raises(BaseException) as deferred:
        retry.execute(context)
    assert deferred.value.trigger.job_id == run["id"]
    serverless_app.release()
    assert retry.execute_complete(context, event=run_trigger_until_event(deferred.value.trigger)) == run["id"]
    assert len(serverless_app.runs()) == 1


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


@pytest.mark.durable_only
def test_job_lifecycle_durable(serverless_app):
    serverless_app.progress(times=2)
    outcomes = assert_job_lifecycle(lambda: _op(serverless_app))
    cancelled = {job for outcome in outcomes for job in outcome.cancelled_ids}
    assert {serverless_app.run(job)["state"] for job in cancelled} == {"CANCELLED"}
    assert len(serverless_app.runs()) == len(outcomes)  # one run per case, kept or cancelled


def test_job_lifecycle_without_crash_recovery(serverless_app):
    serverless_app.progress(times=2)
    outcomes = assert_job_lifecycle(lambda: _op(serverless_app, durable=False))
    assert all(outcome.cancelled for outcome in outcomes)
    assert {run["state"] for run in serverless_app.runs()} == {"CANCELLED"}


@pytest.mark.shim_only
def test_below_33_every_try_starts_its_own_run(serverless_app):
    outcome = run_crash_scenario(lambda: _op(serverless_app), CrashPoint.AFTER_SUBMIT)
    assert len(serverless_app.runs()) == 2 and outcome.result == serverless_app.runs()[1]["id"]
