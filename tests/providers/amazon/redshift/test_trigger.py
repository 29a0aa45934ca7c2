"""RedshiftDataStatementTrigger against moto + our model: the events the operator resumes from, errors, on_kill.

Also the upgrade case: a task deferred on upstream's ``RedshiftDataTrigger`` by the previous release
resumes from that trigger's event with the operator of this one.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import socket
from typing import Any

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_trigger_until_event
from tests.providers.amazon.redshift.conftest import REGION, operator
from tests.providers.amazon.redshift.test_operator import _deferred


def _trigger(statement_id: str, **kwargs: Any) -> Any:
    from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

    kwargs.setdefault("aws_conn_id", None)
    kwargs.setdefault("region_name", REGION)
    return RedshiftDataStatementTrigger(statement_id, poll_interval=kwargs.pop("poll_interval", 0), **kwargs)


def _deferred_statement(moto_redshift, **kwargs: Any) -> tuple[Any, Any, Any]:
    """A held statement of a deferred try: (operator, context, TaskDeferred)."""
    moto_redshift.hold()
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    op = operator(deferrable=True, **kwargs)
    return op, context, _deferred(op, context)


def test_the_operator_defers_to_our_trigger_which_serialises_to_itself(moto_redshift):
    from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

    _, _, deferred = _deferred_statement(moto_redshift, poll_interval=7, cancel_on_kill=False)
    (statement,) = moto_redshift.statements()
    trigger = deferred.trigger
    assert isinstance(trigger, RedshiftDataStatementTrigger)
    classpath, kwargs = trigger.serialize()
    module, _, name = classpath.rpartition(".")
    rebuilt = getattr(importlib.import_module(module), name)(**kwargs)
    assert (rebuilt.statement_id, rebuilt.poll_interval, rebuilt.cancel_on_kill) == (statement.id, 7, False)
    assert (rebuilt.aws_conn_id, rebuilt.region_name) == (None, REGION)


def test_a_running_statement_is_read_until_it_finishes_then_the_try_returns_its_ids(moto_redshift):
    moto_redshift.finish_after(3)
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    op = operator(deferrable=True)
    deferred = _deferred(op, context)
    event = run_trigger_until_event(deferred.trigger)
    (statement,) = moto_redshift.statements()
    assert event == {"status": "success", "external_id": statement.id, "message": "statement finished"}
    assert op.execute_complete(context, event=event) == [statement.id]


@pytest.mark.parametrize("end", ["FAILED", "ABORTED"])
def test_a_statement_that_did_not_finish_is_an_error_event_with_its_status_and_error(moto_redshift, end):
    op, context, deferred = _deferred_statement(moto_redshift)
    statement_id = deferred.trigger.statement_id
    if end == "FAILED":
        moto_redshift.fail(statement_id, "division by zero")
    else:
        moto_redshift.backend.statements[statement_id].status = "ABORTED"
    event = run_trigger_until_event(deferred.trigger)
    assert event["status"] == "error" and event["external_id"] == statement_id
    assert f"Redshift Data statement {statement_id!r} ended {end}" in event["message"]
    with pytest.raises(ExternalJobFailed, match=f"ended {end}"):
        op.execute_complete(context, event=event)


def test_an_unknown_statement_is_an_error_event_naming_it_and_the_data_apis_answer(moto_redshift):
    event = run_trigger_until_event(_trigger("0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"))
    assert event["status"] == "error"
    assert "Redshift Data statement '0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6'" in event["message"]
    assert "ResourceNotFoundException" in event["message"]


def test_a_bad_connection_is_an_error_event_naming_the_statement_and_the_cause(moto_redshift, monkeypatch):
    # (A connection id that does not exist is not an error: upstream's hook falls back to boto3's defaults.)
    extra = {"role_arn": "arn:aws:iam::123456789012:role/etl", "assume_role_method": "rj_no_such_method"}
    monkeypatch.setenv("AIRFLOW_CONN_RJ_BAD_ROLE", json.dumps({"conn_type": "aws", "extra": extra}))
    event = run_trigger_until_event(_trigger("rsd-1", aws_conn_id="rj_bad_role"))
    assert event["status"] == "error"
    assert event["message"].startswith("could not read Redshift Data statement 'rsd-1': ")
    assert "rj_no_such_method" in event["message"]


class _Log:
    """The trigger's logger, recorded (Airflow 3.3's triggers log through structlog, which caplog does not see)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def _record(self, level: str, message: str, *args: Any) -> None:
        self.lines.append(f"{level}: {message % args}")

    def info(self, message: str, *args: Any) -> None:
        self._record("info", message, *args)

    def warning(self, message: str, *args: Any) -> None:
        self._record("warning", message, *args)

    def debug(self, message: str, *args: Any) -> None:
        self._record("debug", message, *args)


def test_throttling_is_read_again_at_the_next_poll_and_logged(moto_redshift, monkeypatch):
    from botocore.exceptions import ClientError

    from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

    _, _, deferred = _deferred_statement(moto_redshift)
    moto_redshift.release()
    real_describe = RedshiftDataStatementTrigger.describe
    reads: list[str] = []

    async def throttled_twice(self, lease):
        reads.append("read")
        if len(reads) <= 2:
            error = {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}
            raise ClientError({**error, "ResponseMetadata": {"HTTPStatusCode": 400}}, "DescribeStatement")
        return await real_describe(self, lease)

    log = _Log()
    monkeypatch.setattr(RedshiftDataStatementTrigger, "log", property(lambda self: log))
    object.__setattr__(deferred.trigger, "describe", throttled_twice.__get__(deferred.trigger))
    event = run_trigger_until_event(deferred.trigger)
    assert event["status"] == "success" and len(reads) == 3
    statement = f"Redshift Data statement {deferred.trigger.statement_id!r}"
    throttled = "An error occurred (ThrottlingException) when calling the DescribeStatement operation: Rate exceeded"
    assert log.lines == [
        f"warning: Could not read {statement} (failed reads in a row: 1; the wait ends at 5): {throttled}",
        f"warning: Could not read {statement} (failed reads in a row: 2; the wait ends at 5): {throttled}",
        f"debug: {statement} is FINISHED",
    ]


def test_an_unreachable_endpoint_is_an_error_event_after_five_failed_reads_in_a_row(moto_redshift, monkeypatch):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL_REDSHIFT_DATA", f"http://127.0.0.1:{port}")
    no_retries = {"retries": {"max_attempts": 1}, "connect_timeout": 1}
    event = run_trigger_until_event(_trigger("rsd-1", botocore_config=no_retries))
    assert event["status"] == "error"
    assert event["message"].startswith("could not read Redshift Data statement 'rsd-1' 5 times in a row")
    assert f"127.0.0.1:{port}" in event["message"]


@pytest.mark.parametrize("cancel_on_kill", [True, False])
def test_on_kill_cancels_the_statement_only_with_cancel_on_kill(moto_redshift, cancel_on_kill):
    _, _, deferred = _deferred_statement(moto_redshift, cancel_on_kill=cancel_on_kill)
    asyncio.run(deferred.trigger.on_kill())
    (statement,) = moto_redshift.statements()
    assert statement.status == ("ABORTED" if cancel_on_kill else "STARTED")


# ---------------------------------------------------------------- the upgrade: deferred on upstream's trigger
@pytest.mark.parametrize("outcome", ["finished", "failed"])
def test_a_task_deferred_on_upstreams_trigger_resumes_from_its_event_after_the_upgrade(moto_redshift, outcome):
    from airflow.providers.amazon.aws.triggers.redshift_data import RedshiftDataTrigger

    op, context, deferred = _deferred_statement(moto_redshift)
    statement_id = deferred.trigger.statement_id
    # What the previous release wrote in the trigger row: upstream's trigger with upstream's kwargs.
    upstream = RedshiftDataTrigger(
        statement_id=statement_id, task_id="load", poll_interval=0, aws_conn_id=None, region_name=REGION
    )
    if outcome == "finished":
        moto_redshift.release()
    else:
        moto_redshift.fail(statement_id, "division by zero")
    event = run_trigger_until_event(upstream)
    assert event["statement_id"] == statement_id and "external_id" not in event
    if outcome == "finished":
        assert op.execute_complete(context, event=event) == [statement_id]
    else:
        with pytest.raises(ExternalJobFailed, match="ended FAILED; error: division by zero"):
            op.execute_complete(context, event=event)
    assert len(moto_redshift.statements()) == 1
