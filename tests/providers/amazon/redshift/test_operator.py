"""RedshiftDataOperator behind the real RedshiftDataHook and our RedshiftDataStatementTrigger, against moto + our model.

See ``redshift_fixtures`` for the transport. Statements are counted in moto's backend: the
number the Data API really started.
"""

from __future__ import annotations

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    crash_at,
    make_context,
    run_crash_scenario,
    run_trigger_until_event,
    run_try,
)
from tests.providers.amazon.redshift.conftest import CLUSTER, DATABASE, operator

ID_KEY = "redshift_statement_id"
CANNED_FIRST_ROW = [{"longValue": 10}, {"stringValue": "Alpha st"}, {"stringValue": "Vancouver"}]


def _tokens(moto_redshift) -> list[str]:
    return list(moto_redshift.backend.__dict__.get("_client_tokens", {}))


def _deferred(op, context):
    with pytest.raises(BaseException) as raised:
        op.execute(context)
    assert type(raised.value).__name__ == "TaskDeferred", raised.value  # its module differs across versions
    return raised.value


# ---------------------------------------------------------------- what one try does (every version)
def test_fresh_run_starts_one_statement_with_the_token_and_returns_its_id_in_a_list(moto_redshift):
    ti = FakeTaskInstance()
    result = run_try(operator(), make_context(InMemoryTaskStateStore(), ti))
    (statement,) = moto_redshift.statements()
    assert result == [statement.id]  # upstream's return value: a list of statement ids
    assert ti.xcom[ID_KEY] == statement.id
    assert moto_redshift.status(statement.id) == "FINISHED"
    (token,) = _tokens(moto_redshift)
    assert token.startswith(f"{ti.task_id}-") and len(token) <= 64


def test_the_request_reaches_execute_statement_as_given(moto_redshift):
    op = operator(
        sql="SELECT * FROM sales WHERE day = :day",
        workgroup_name="etl-wg",
        db_user="loader",
        secret_arn="arn:aws:secretsmanager:us-east-1:123456789012:secret:rs",
        parameters=[{"name": "day", "value": "2026-12-01"}],
        statement_name="nightly-sales",
    )
    run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    (statement,) = moto_redshift.statements()
    assert statement.query_string == "SELECT * FROM sales WHERE day = :day"
    assert (statement.workgroup_name, statement.cluster_identifier) == ("etl-wg", None)
    assert (statement.database, statement.db_user, statement.statement_name) == (DATABASE, "loader", "nightly-sales")
    assert statement.query_parameters == [{"name": "day", "value": "2026-12-01"}]
    assert statement.secret_arn.endswith(":secret:rs")


def test_a_list_of_sql_is_one_batch_and_returns_the_sub_statement_ids(moto_redshift):
    result = run_try(operator(sql=["DELETE FROM t", "INSERT INTO t SELECT 1"]), make_context(InMemoryTaskStateStore()))
    (statement,) = moto_redshift.statements()
    assert statement.sqls == ["DELETE FROM t", "INSERT INTO t SELECT 1"]
    assert result == [f"{statement.id}:1", f"{statement.id}:2"]


def test_return_sql_result_returns_each_statements_get_statement_result(moto_redshift):
    result = run_try(
        operator(sql=["SELECT 1", "SELECT 2"], return_sql_result=True), make_context(InMemoryTaskStateStore())
    )
    assert len(result) == 2
    assert [answer["Records"][0] for answer in result] == [CANNED_FIRST_ROW, CANNED_FIRST_ROW]  # moto's fixed rows
    assert [column["name"] for column in result[0]["ColumnMetadata"]] == ["Number", "Street", "City"]


def test_a_session_id_goes_to_xcom_as_upstream_pushes_it(moto_redshift):
    ti = FakeTaskInstance()
    run_try(operator(session_keep_alive_seconds=600), make_context(InMemoryTaskStateStore(), ti))
    (statement,) = moto_redshift.statements()
    assert ti.xcom["session_id"] == statement.session_id is not None


def test_submit_only_returns_the_id_list_while_the_statement_runs(moto_redshift):
    moto_redshift.hold()
    ti = FakeTaskInstance()
    result = run_try(operator(wait_for_completion=False), make_context(InMemoryTaskStateStore(), ti))
    (statement,) = moto_redshift.statements()
    assert result == [statement.id]
    assert moto_redshift.status(statement.id) == "STARTED"
    assert ti.xcom[ID_KEY] == statement.id


def test_a_failed_statement_fails_the_try_with_the_data_apis_error(moto_redshift):
    moto_redshift.hold()
    op = operator()
    original_poll = op.poll_until_complete

    def fail_then_poll(statement_id, context):
        moto_redshift.fail(statement_id, 'relation "staging" does not exist')
        return original_poll(statement_id, context)

    object.__setattr__(op, "poll_until_complete", fail_then_poll)
    with pytest.raises(ExternalJobFailed, match=r'ended FAILED; error: relation "staging" does not exist'):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def test_deferrable_defers_to_our_trigger_with_the_stored_id(moto_redshift):
    from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

    moto_redshift.hold()
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance()
    deferred = _deferred(operator(deferrable=True, poll_interval=7, cancel_on_kill=False), make_context(store, ti))
    (statement,) = moto_redshift.statements()
    assert isinstance(deferred.trigger, RedshiftDataStatementTrigger)
    assert (deferred.trigger.statement_id, deferred.trigger.poll_interval) == (statement.id, 7)
    assert deferred.trigger.cancel_on_kill is False
    assert deferred.method_name == "execute_complete"
    assert ti.xcom[ID_KEY] == statement.id


def test_deferrable_run_waits_in_the_real_trigger_and_returns_the_id_list(moto_redshift):
    result = run_try(operator(deferrable=True), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert result == moto_redshift.statement_ids()


def test_the_triggers_error_event_fails_the_try_with_the_statements_error(moto_redshift):
    moto_redshift.hold()
    context = make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    op = operator(deferrable=True)
    deferred = _deferred(op, context)
    moto_redshift.fail(deferred.trigger.statement_id, "division by zero")
    event = run_trigger_until_event(deferred.trigger)
    assert event["status"] == "error"
    with pytest.raises(ExternalJobFailed, match="ended FAILED; error: division by zero"):
        op.execute_complete(context, event=event)


def test_on_kill_of_a_stopped_task_cancels_the_statement(moto_redshift):
    from resumable_jobs.testing import LifecycleCase, run_lifecycle_case

    moto_redshift.finish_after(6)
    outcome = run_lifecycle_case(operator, LifecycleCase.STOPPED_ON_PURPOSE)
    assert outcome.cancelled_ids == [outcome.job_id]
    assert moto_redshift.status(outcome.job_id) == "ABORTED"


def test_cancel_on_kill_false_never_cancels(moto_redshift):
    from resumable_jobs.testing import LifecycleCase, run_lifecycle_case

    moto_redshift.finish_after(6)
    for case in (LifecycleCase.STOPPED_ON_PURPOSE, LifecycleCase.EXECUTION_TIMEOUT, LifecycleCase.FAILED_LAST_TRY):
        outcome = run_lifecycle_case(lambda: operator(cancel_on_kill=False), case)
        assert not outcome.cancelled
        assert moto_redshift.status(outcome.job_id) != "ABORTED"


# ---------------------------------------------------------------- retries (crash recovery: Airflow 3.3+)
@pytest.mark.durable_only
def test_a_crash_before_the_id_was_stored_gets_the_same_statement_back_by_client_token(moto_redshift):
    moto_redshift.hold()
    outcome = run_crash_scenario(lambda: operator(wait_for_termination=False), CrashPoint.AFTER_SUBMIT)
    (statement,) = moto_redshift.statements()  # the retry's ExecuteStatement started nothing new
    assert outcome.submitted_ids == [statement.id, statement.id]
    assert outcome.store.get(ID_KEY) == statement.id


@pytest.mark.durable_only
def test_a_failed_statement_is_followed_by_a_new_generation_with_a_new_token(moto_redshift):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    moto_redshift.hold()
    first_try = operator()
    with crash_at(first_try, CrashPoint.MID_POLL, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first_try, make_context(store, ti))
    (first,) = moto_redshift.statement_ids()
    moto_redshift.fail(first, "disk full")
    moto_redshift.release()
    result = run_try(operator(), make_context(store, ti.next_try()))
    second = moto_redshift.statement_ids()[1]
    assert result == [second] and len(moto_redshift.statements()) == 2
    assert len(set(_tokens(moto_redshift))) == 2


@pytest.mark.durable_only
def test_a_statement_the_data_api_forgot_is_run_again(moto_redshift):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    store.set(ID_KEY, "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6")  # e.g. stored days ago, expired since
    result = run_try(operator(), make_context(store, ti))
    assert result == moto_redshift.statement_ids()
    assert len(moto_redshift.statements()) == 1


@pytest.mark.durable_only
def test_a_statement_stored_by_upstreams_operator_is_reconnected_after_the_switch(moto_redshift):
    from airflow.providers.amazon.aws.operators.redshift_data import RedshiftDataOperator as Upstream

    moto_redshift.hold()
    store = InMemoryTaskStateStore()
    upstream = Upstream(
        task_id="load",
        sql="SELECT 1",
        database=DATABASE,
        cluster_identifier=CLUSTER,
        aws_conn_id=None,
        region_name="us-east-1",
    )
    statement_id = upstream.submit_job(make_context(store, FakeTaskInstance()))
    store.set(ID_KEY, statement_id)  # what upstream's durable path persists
    moto_redshift.release()
    result = run_try(operator(sql="SELECT 1"), make_context(store, FakeTaskInstance(try_number=2)))
    assert result == [statement_id]
    assert len(moto_redshift.statements()) == 1


@pytest.mark.durable_only
def test_a_changed_request_runs_a_new_statement(moto_redshift):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    moto_redshift.hold()
    run_try(operator(sql="SELECT 1", wait_for_termination=False), make_context(store, ti))
    moto_redshift.release()
    run_try(operator(sql="SELECT 2"), make_context(store, ti.next_try()))
    assert [s.query_string for s in moto_redshift.statements()] == ["SELECT 1", "SELECT 2"]


@pytest.mark.durable_only
def test_a_cleared_task_runs_its_statement_again(moto_redshift):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=1)
    first = run_try(operator(), make_context(store, ti))
    second = run_try(operator(), make_context(store, ti.cleared()))
    assert first != second and len(moto_redshift.statements()) == 2


@pytest.mark.parametrize("durable", [False, None], ids=["durable-False", "no-store"])
def test_without_crash_recovery_every_try_runs_the_sql_with_a_token_of_its_own(moto_redshift, durable):
    moto_redshift.hold()
    outcome = run_crash_scenario(
        lambda: operator(durable=durable, wait_for_termination=False),
        CrashPoint.AFTER_PERSIST,
        with_store=durable is not None,
    )
    assert len(moto_redshift.statements()) == 2 == outcome.jobs
    assert len(set(_tokens(moto_redshift))) == 2
