"""GlueJobRunTrigger against a scripted GetJobRun endpoint, and which trigger the operator defers to.

The operator's deferrable path with this trigger over HTTP runs in ``test_glue_moto_server.py``;
a resume from upstream's ``GlueJobCompleteTrigger`` event (the upgrade case) is below.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.local.http_standin import serve_http
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_trigger_until_event
from tests.providers.amazon.glue.conftest import JOB, REGION, ROLE_ARN, SCRIPT

RUN = "jr_" + "0" * 60 + "1"


class _FakeGlue:
    """GetJobRun (JSON 1.1, ``POST /``): each run answers the next state of its script, then repeats the last."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[str]] = {}
        self.calls = 0

    def dispatch(self, method: str, target: str, body: Any) -> tuple[int, Any, dict[str, str]]:
        self.calls += 1
        script = self.scripts.get((body or {}).get("RunId"))
        if script is None:
            error = "EntityNotFoundException"
            return 400, {"__type": error, "Message": "Job Run not found"}, {"x-amzn-ErrorType": error}
        state = script[min(self.calls, len(script)) - 1]
        run = {"Id": body["RunId"], "JobName": body["JobName"], "JobRunState": state, "Attempt": 0}
        if state == "FAILED":
            run["ErrorMessage"] = "ZeroDivisionError: division by zero"
        return 200, {"JobRun": run}, {}


@pytest.fixture
def glue_api(monkeypatch):
    api = _FakeGlue()
    with serve_http(api.dispatch) as url:
        connection = {"conn_type": "aws", "login": "testing", "password": "testing",
                      "extra": {"endpoint_url": url, "region_name": REGION}}  # fmt: skip
        monkeypatch.setenv("AIRFLOW_CONN_RJ_GLUE", json.dumps(connection))
        yield api


def _trigger(**kwargs: Any) -> Any:
    from resumable_jobs.providers.amazon.glue_trigger import GlueJobRunTrigger

    kwargs.setdefault("waiter_delay", 0)
    return GlueJobRunTrigger(job_name=JOB, run_id=RUN, aws_conn_id="rj_glue", **kwargs)


def test_a_running_run_is_read_each_poll_until_it_succeeds(glue_api):
    glue_api.scripts[RUN] = ["STARTING", "RUNNING", "SUCCEEDED"]
    assert run_trigger_until_event(_trigger()) == {"status": "success", "run_id": RUN, "message": "job run succeeded"}
    assert glue_api.calls == 3


@pytest.mark.parametrize("end", ["FAILED", "STOPPED", "TIMEOUT", "ERROR", "EXPIRED"])
def test_a_run_that_did_not_succeed_is_an_error_event_with_its_state(glue_api, end):
    glue_api.scripts[RUN] = ["RUNNING", end]
    event = run_trigger_until_event(_trigger())
    assert (event["status"], event["run_id"]) == ("error", RUN)
    assert event["message"].startswith(f"AWS Glue job run {RUN!r} of job {JOB!r} ended {end}")


def test_after_waiter_max_attempts_reads_of_a_running_run_the_wait_ends_in_an_error_event(glue_api):
    glue_api.scripts[RUN] = ["RUNNING"]
    event = run_trigger_until_event(_trigger(waiter_max_attempts=2))
    assert event["status"] == "error" and "was still RUNNING after 2 status reads" in event["message"]
    assert glue_api.calls == 2


def test_a_run_glue_does_not_know_is_an_error_event_naming_it_and_the_job(glue_api):
    event = run_trigger_until_event(_trigger())
    assert event["status"] == "error"
    assert event["message"].startswith(f"could not read AWS Glue job run {RUN!r} of job {JOB!r}: ")
    assert "EntityNotFoundException" in event["message"]
    assert glue_api.calls == 1


def _op(**kwargs: Any) -> Any:
    from resumable_jobs.providers.amazon import GlueJobOperator

    return GlueJobOperator(task_id="glue", job_name=JOB, script_location=SCRIPT, iam_role_arn=ROLE_ARN,
                           aws_conn_id=None, region_name=REGION, deferrable=True, **kwargs)  # fmt: skip


@pytest.mark.parametrize(("verbose", "expected"), [(False, "GlueJobRunTrigger"), (True, "GlueJobCompleteTrigger")])
def test_the_operator_defers_to_ours_and_to_upstreams_when_it_must_forward_the_logs(verbose, expected):
    trigger = _op(verbose=verbose, waiter_delay=15, waiter_max_attempts=9).build_trigger(RUN, context={})
    _, kwargs = trigger.serialize()
    assert type(trigger).__name__ == expected
    assert (kwargs["job_name"], kwargs["run_id"], kwargs["waiter_delay"], kwargs["waiter_max_attempts"]) == (
        JOB,
        RUN,
        15,
        9,
    )


@pytest.mark.parametrize("end", ["SUCCEEDED", "FAILED"])
def test_a_task_deferred_on_upstreams_trigger_resumes_from_its_event_after_the_upgrade(moto_glue, end):
    """The previous release deferred to upstream's trigger; its event (``status``, ``run_id``, ``message``) resumes."""
    moto_glue.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    op, context = _op(), make_context(store, ti)
    with pytest.raises(BaseException) as deferred:
        op.execute(context)
    assert type(deferred.value).__name__ == "TaskDeferred"
    (run_id,) = moto_glue.run_ids()
    moto_glue.release(run_id, end)
    if end == "SUCCEEDED":
        assert op.execute_complete(context, {"status": "success", "run_id": run_id}) == run_id
    else:
        upstream_error = {
            "status": "error",
            "message": "AWS Glue job failed.: Waiter job_complete failed",
            "run_id": run_id,
        }
        with pytest.raises(ExternalJobFailed, match="ended FAILED"):
            op.execute_complete(context, upstream_error)
    assert moto_glue.run_ids() == [run_id]
