"""YARN: the ResourceManager client (HA, errors, auth), the status mapping, find by tag, kill, the trigger.

Against the stand-in ResourceManager (resumable_jobs.local.yarn_resource_manager), whose replies
have the RM's JSON shapes; no mocks of our own code.
"""

from __future__ import annotations

import json
import socket

import pytest
import requests

from resumable_jobs import ExternalJobFailed, JobNotFoundError
from resumable_jobs.local.yarn_resource_manager import LocalResourceManager
from resumable_jobs.providers.spark import SparkSubmitOperator
from resumable_jobs.providers.spark.yarn.manager import yarn_tag
from resumable_jobs.providers.spark.yarn.rm_client import (
    ResourceManagerClient,
    ResourceManagerRefused,
    ResourceManagerUnavailable,
)
from resumable_jobs.providers.spark.yarn.status import YarnApplicationStatus
from resumable_jobs.providers.spark.yarn.trigger import YarnApplicationTrigger
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_trigger_until_event, run_try


def _free_url() -> str:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


class CountingAuth(requests.auth.AuthBase):
    """A yarn_rm_auth stand-in: counts the requests it signed."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request):
        self.calls += 1
        request.headers["Authorization"] = "Negotiate standin"
        return request


# ---------------------------------------------------------------- status mapping
@pytest.mark.parametrize(
    ("state", "final", "active", "succeeded", "shown"),
    [
        ("NEW_SAVING", "UNDEFINED", True, False, "NEW_SAVING"),
        ("ACCEPTED", "UNDEFINED", True, False, "ACCEPTED"),
        ("RUNNING", "UNDEFINED", True, False, "RUNNING"),
        ("FINISHED", "SUCCEEDED", False, True, "FINISHED/SUCCEEDED"),
        ("FINISHED", "FAILED", False, False, "FINISHED/FAILED"),  # the driver threw: not a success
        ("FAILED", "FAILED", False, False, "FAILED/FAILED"),
        ("KILLED", "KILLED", False, False, "KILLED/KILLED"),
    ],
)
def test_state_and_final_status_decide_together(yarn, state, final, active, succeeded, shown):
    app_id = yarn.register(name="etl")
    yarn.finish(app_id, state, final, "diag")
    status = YarnApplicationStatus.from_report(ResourceManagerClient([yarn.url]).application(app_id))
    assert (status.active, status.succeeded, status.state) == (active, succeeded, shown)
    if not active:
        assert status.describe().startswith(f"YARN application {app_id} ended {shown}: diag")


def test_unknown_application_is_not_found(yarn):
    with pytest.raises(JobNotFoundError, match="application_1_0042.*not found"):
        ResourceManagerClient([yarn.url]).application("application_1_0042")


# ---------------------------------------------------------------- high availability
def test_standby_rm_first_is_skipped_for_the_active_one():
    active, standby = LocalResourceManager(), LocalResourceManager(standby=True)
    with active.serve() as active_url, standby.serve() as standby_url:
        standby.active_url = active_url
        app_id = active.register()
        client = ResourceManagerClient([standby_url, active_url])
        assert client.application(app_id)["id"] == app_id
        assert client.active_url == active_url


def test_a_standby_names_the_active_rm_even_when_only_the_standby_is_configured():
    active, standby = LocalResourceManager(), LocalResourceManager(standby=True)
    with active.serve() as active_url, standby.serve() as standby_url:
        standby.active_url = active_url
        app_id = active.register()
        client = ResourceManagerClient([standby_url])
        assert client.application(app_id)["state"] == "ACCEPTED"
        assert client.kill(app_id) == "RUNNING" and active.kills == [app_id]  # the state when the kill arrived


def test_no_active_rm_is_unavailable_never_not_found():
    # "not found" would make the mixin submit a second application; a standby knows nothing.
    standby = LocalResourceManager(standby=True)
    with standby.serve() as url:
        with pytest.raises(ResourceManagerUnavailable, match="standby"):
            ResourceManagerClient([url, _free_url()]).application("application_1_0001")


def test_a_proxy_404_page_is_not_taken_for_a_missing_application(requests_mock):
    requests_mock.get("http://rm.test:8088/ws/v1/cluster/apps/application_1_0001", status_code=404, text="<html>Not Found</html>")
    with pytest.raises(ResourceManagerUnavailable, match="404 without JSON"):
        ResourceManagerClient(["http://rm.test:8088"]).application("application_1_0001")


def test_a_forbidden_kill_is_refused_with_the_rms_message(requests_mock):
    requests_mock.put(
        "http://rm.test:8088/ws/v1/cluster/apps/application_1_0001/state",
        status_code=403,
        json={"RemoteException": {"exception": "ForbiddenException", "message": "User dr.who cannot kill"}},
    )
    with pytest.raises(ResourceManagerRefused, match="HTTP 403: User dr.who cannot kill"):
        ResourceManagerClient(["http://rm.test:8088"]).kill("application_1_0001")


# ---------------------------------------------------------------- through the operator
def _op(binary, **kwargs):
    kwargs.setdefault("task_id", "spark_job")
    kwargs.setdefault("application", "hdfs:///jobs/etl.py")
    kwargs.setdefault("status_poll_interval", 0)
    return SparkSubmitOperator(spark_binary=str(binary.path), **kwargs)


def test_find_job_matches_the_token_tag_and_prefers_a_live_application(yarn, standin_spark_submit):
    op = _op(standin_spark_submit)
    token = "etl-g1-0123456789abcdef01234567"
    failed = yarn.register(tags=["team-a", yarn_tag(token)])
    yarn.finish(failed, "FAILED", "FAILED")
    live = yarn.register(tags=[yarn_tag(token)])
    yarn.register(tags=[yarn_tag("other-g1-ffffffffffffffffffffffff")])
    assert op.find_job(token, make_context()) == live
    assert op.find_job("absent-g1-000000000000000000000000", make_context()) is None


def test_the_users_own_yarn_tags_are_kept_next_to_the_token(yarn, standin_spark_submit):
    ti = FakeTaskInstance()
    run_try(_op(standin_spark_submit, conf={"spark.yarn.tags": "team-a, nightly"}), make_context(InMemoryTaskStateStore(), ti))
    (app,) = yarn.submissions
    assert app["tags"][:2] == ["team-a", "nightly"] and app["tags"][2].startswith("resumable-jobs-submission-")


def test_a_failed_application_fails_the_task_with_its_diagnostics(yarn, standin_spark_submit):
    yarn.outcome = ("FINISHED", "FAILED", "User class threw exception: java.lang.IllegalStateException: bad input")
    with pytest.raises(ExternalJobFailed, match="FINISHED/FAILED: User class threw exception.*bad input"):
        run_try(_op(standin_spark_submit), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def test_an_application_the_rm_forgot_while_polling_fails_the_try_naming_why(yarn, standin_spark_submit):
    yarn.running_polls = 50
    op = _op(standin_spark_submit)
    app_id = op.submit_job(make_context())
    yarn.forget_all()
    with pytest.raises(ExternalJobFailed, match="no longer knows it"):
        op.poll_until_complete(app_id, make_context())


def test_yarn_rm_auth_signs_every_resource_manager_call(yarn, standin_spark_submit):
    auth = CountingAuth()
    ti = FakeTaskInstance()
    result = run_try(_op(standin_spark_submit, yarn_rm_auth=auth, deferrable=False), make_context(InMemoryTaskStateStore(), ti))
    assert result == yarn.submissions[0]["id"]
    assert auth.calls >= 3  # the status reads of ACCEPTED, RUNNING, FINISHED
    assert ti.xcom["spark_master_ui_url"] == f"{yarn.url}/cluster/app/{result}"


def test_cancel_kills_through_the_state_api(yarn, standin_spark_submit):
    op = _op(standin_spark_submit)
    app_id = op.submit_job(make_context())
    op.cancel_job(app_id, make_context())
    assert yarn.kills == [app_id]
    assert op.get_job_status(app_id, make_context()) == "KILLED/KILLED"


def test_the_submit_command_carries_upstreams_yarn_parameters(yarn, standin_spark_submit, monkeypatch):
    from tests.providers.spark.conftest import submit_calls

    monkeypatch.setenv(
        "AIRFLOW_CONN_SPARK_DEFAULT",
        json.dumps(
            {
                "conn_type": "spark",
                "host": "yarn",
                "extra": json.dumps({"yarn_resourcemanager_webapp_address": yarn.url, "queue": "from-connection"}),
            }
        ),
    )
    op = _op(
        standin_spark_submit,
        java_class="com.example.Etl",
        application="hdfs:///jobs/etl.jar",
        application_args=["--day", "2026-01-01"],
        num_executors=3,
        executor_cores=2,
        executor_memory="2g",
        driver_memory="1g",
        proxy_user="etl",
        properties_file="/etc/spark/etl.conf",
        verbose=True,
        env_vars={"HADOOP_USER_NAME": "etl"},
        conf={"spark.sql.shuffle.partitions": 8, "spark.dynamicAllocation.enabled": False},
    )
    op.submit_job(make_context())
    (call,) = submit_calls(standin_spark_submit)
    assert call["options"] == {
        "--master": "yarn",
        "--deploy-mode": "cluster",
        "--properties-file": "/etc/spark/etl.conf",
        "--num-executors": "3",
        "--executor-cores": "2",
        "--executor-memory": "2g",
        "--driver-memory": "1g",
        "--proxy-user": "etl",
        "--name": "arrow-spark",
        "--class": "com.example.Etl",
        "--queue": "from-connection",
        "--verbose": True,
    }
    assert call["conf"]["spark.sql.shuffle.partitions"] == "8"
    assert call["conf"]["spark.dynamicAllocation.enabled"] == "false"
    assert call["conf"]["spark.yarn.submit.waitAppCompletion"] == "false"
    assert call["conf"]["spark.yarn.appMasterEnv.HADOOP_USER_NAME"] == "etl"
    assert (call["application"], call["args"]) == ("hdfs:///jobs/etl.jar", ["--day", "2026-01-01"])
    assert yarn.submissions[0]["queue"] == "from-connection"


def test_conf_asking_spark_submit_to_wait_is_refused(yarn, standin_spark_submit):
    op = _op(standin_spark_submit, conf={"spark.yarn.submit.waitAppCompletion": "true"})
    with pytest.raises(ValueError, match="waitAppCompletion='true'.*exit once the cluster has the application"):
        op.submit_job(make_context())
    assert yarn.submissions == []


# ---------------------------------------------------------------- the trigger
def _trigger_event(app_id, urls, **kwargs):
    kwargs.setdefault("poll_interval", 0)
    return run_trigger_until_event(YarnApplicationTrigger(app_id, urls, **kwargs), timeout=30)


def test_trigger_fires_success_after_polling_through_running(yarn):
    yarn.running_polls = 3
    app_id = yarn.register()
    event = _trigger_event(app_id, [yarn.url])
    assert event == {"status": "success", "external_id": app_id, "message": f"YARN application {app_id} FINISHED/SUCCEEDED"}
    assert yarn.apps[app_id].reads == 5  # ACCEPTED, RUNNING x3, FINISHED


def test_trigger_fires_error_with_the_diagnostics(yarn):
    yarn.outcome = ("FINISHED", "FAILED", "Container killed on request. Exit code is 143")
    app_id = yarn.register()
    event = _trigger_event(app_id, [yarn.url])
    assert event["status"] == "error" and "Exit code is 143" in event["message"]


def test_trigger_unknown_application_fires_error(yarn):
    event = _trigger_event("application_1_0099", [yarn.url])
    assert event["status"] == "error" and "no longer knows it" in event["message"]


def test_trigger_unreachable_rms_fire_error_saying_the_application_may_run():
    event = _trigger_event("application_1_0001", [_free_url(), _free_url()], max_consecutive_errors=3)
    assert event["status"] == "error" and "3 times in a row" in event["message"] and "may still run" in event["message"]


def test_trigger_serialises_to_json_and_round_trips():
    trigger = YarnApplicationTrigger("application_1_0001", ["http://rm1:8088", "http://rm2:8088/"], kerberos=True, poll_interval=7)
    classpath, kwargs = trigger.serialize()
    module, _, name = classpath.rpartition(".")
    rebuilt = getattr(__import__(module, fromlist=[name]), name)(**kwargs)
    assert rebuilt.serialize() == (classpath, kwargs)
    assert json.loads(json.dumps(kwargs)) == {
        "app_id": "application_1_0001",
        "rm_urls": ["http://rm1:8088", "http://rm2:8088"],
        "kerberos": True,
        "request_timeout": 30.0,
        "poll_interval": 7.0,
        "max_consecutive_errors": 5,
    }


def test_trigger_logs_each_state_once_not_every_poll(yarn, caplog, capsys):
    yarn.running_polls = 3
    app_id = yarn.register()
    with caplog.at_level("INFO"):
        _trigger_event(app_id, [yarn.url])
    captured = capsys.readouterr()
    # std logging or Airflow's structlog output (on some versions both carry the same line)
    text = next(t for t in (caplog.text, captured.out + captured.err) if f"{app_id} is ACCEPTED" in t)
    assert text.count(f"YARN application {app_id} is ACCEPTED") == 1
    assert text.count(f"YARN application {app_id} is RUNNING") == 1  # three RUNNING polls, one line
