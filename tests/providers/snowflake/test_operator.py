"""What a DAG author relies on: results, XCom, the request id, failures, migration, bad input."""

from __future__ import annotations

import uuid

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator
from resumable_jobs.providers.snowflake.request_ids import NAMESPACE, request_id_for
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try

KEY = "snowflake_query_ids"


def make(**kwargs):
    kwargs.setdefault("sql", "SELECT 1")
    kwargs.setdefault("poll_interval", 0)
    return SnowflakeSqlApiOperator(task_id="load", **kwargs)


def posts(account):
    return [r for r in account.requests if r["method"] == "POST" and r["path"] == "/api/v2/statements"]


@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_a_multi_statement_request_returns_and_pushes_one_handle_per_statement(account, deferrable):
    ti = FakeTaskInstance()
    result = run_try(
        make(sql="SELECT 1; SELECT 2; SELECT 3", statement_count=3, deferrable=deferrable),
        make_context(InMemoryTaskStateStore(), ti),
    )

    (execution,) = account.executions
    handles = [s.handle for s in execution.statements]
    assert len(handles) == 3 and execution.state == "SUCCESS"
    assert result == handles
    assert ti.xcom == {"query_ids": handles}


def test_a_single_statement_returns_its_handle_as_a_list(account):
    result = run_try(make(), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    (execution,) = account.executions
    assert result == [execution.handle]
    assert execution.statements[0].text == "SELECT 1"


@pytest.mark.durable_only
def test_the_request_id_is_derived_from_the_submission_token_and_moves_on_with_the_generation(account):
    store, ti = InMemoryTaskStateStore(), FakeTaskInstance(max_tries=2)
    account.fail_next = 1
    with pytest.raises(ExternalJobFailed):
        run_try(make(), make_context(store, ti))
    run_try(make(), make_context(store, ti.next_try()))

    first, second = (p["requestId"] for p in posts(account))
    assert first != second  # a failed request is not handed back: the retry is a new generation
    assert all(uuid.UUID(r).version == 5 for r in (first, second))
    assert [e.state for e in account.executions] == ["FAILED", "SUCCESS"]


def test_request_ids_are_stable_per_token_and_unguessable_without_it():
    token = "load-g1-0123456789abcdef01234567"
    assert request_id_for(token) == request_id_for(token) == str(uuid.uuid5(NAMESPACE, token))
    assert request_id_for(token) != request_id_for("load-g2-0123456789abcdef01234567")
    with pytest.raises(ValueError, match="submission token"):
        request_id_for("")


@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_a_failed_statement_fails_the_task_naming_the_handle_and_snowflakes_error(account, deferrable):
    account.fail_next = 1
    with pytest.raises(ExternalJobFailed) as failure:
        run_try(
            make(sql="SELECT 1; SELECT * FROM missing_table", deferrable=deferrable),
            make_context(InMemoryTaskStateStore(), FakeTaskInstance()),
        )
    failed = account.executions[0].statements[-1]
    message = str(failure.value)
    assert failed.handle in message and "does not exist or not authorized" in message and "002003" in message


@pytest.mark.durable_only
def test_statements_snowflake_no_longer_knows_are_submitted_again(account):
    store = InMemoryTaskStateStore()
    store.set(KEY, ["01b0ffff-0000-4f2a-0000-00000000ffff"])  # an id Snowflake answers 404 for
    result = run_try(make(), make_context(store, FakeTaskInstance()))
    (execution,) = account.executions
    assert result == [execution.handle] and store.get(KEY) == [execution.handle]


@pytest.mark.durable_only
def test_a_task_switched_from_upstreams_operator_reconnects_to_the_handles_it_stored(account):
    """Upstream's durable operator stores the bare list of handles under the same key."""
    running = account._execute(["INSERT INTO t VALUES (1)"], request_id=None)  # started by upstream's try
    store = InMemoryTaskStateStore()
    store.set(KEY, [running.handle])
    result = run_try(make(sql="INSERT INTO t VALUES (1)"), make_context(store, FakeTaskInstance(try_number=2)))
    assert result == [running.handle]
    assert len(account.executions) == 1 and posts(account) == []  # reconnected, nothing resubmitted


def test_without_durability_every_try_submits_with_a_new_request_id(account):
    store = InMemoryTaskStateStore()
    for ti in (FakeTaskInstance(), FakeTaskInstance(try_number=2)):
        run_try(make(durable=False), make_context(store, ti))
    assert len(account.executions) == 2
    assert len({p["requestId"] for p in posts(account)}) == 2
    assert store.snapshot() == {}


def test_the_deferred_task_waits_in_upstreams_trigger_with_the_persisted_handles(account):
    from airflow.providers.snowflake.triggers.snowflake_trigger import SnowflakeSqlApiTrigger

    operator = make(sql="SELECT 1; SELECT 2", deferrable=True, cancel_on_kill=False)
    trigger = operator.build_trigger(["a", "b"], make_context())
    assert isinstance(trigger, SnowflakeSqlApiTrigger)  # upstream's, with its status reads off the loop
    assert (trigger.query_ids, trigger.poll_interval, trigger.cancel_on_kill) == (["a", "b"], 0, False)
    classpath, kwargs = trigger.serialize()
    assert classpath == "resumable_jobs.providers.snowflake.trigger.SnowflakeStatementsTrigger"
    assert kwargs == SnowflakeSqlApiTrigger(**kwargs).serialize()[1]  # upstream's kwargs, unchanged


def test_the_trigger_builds_headers_off_the_event_loop(account, monkeypatch):
    """Upstream's hook builds headers synchronously (connection lookup, OAuth refresh): never on the loop."""
    import asyncio
    import threading

    from resumable_jobs.providers.snowflake.imports import sql_api_hook_class

    hook_class = sql_api_hook_class()
    built_on: list[int] = []
    original = hook_class.get_request_url_header_params

    def recording(self, *args, **kwargs):
        built_on.append(threading.get_ident())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(hook_class, "get_request_url_header_params", recording)
    handles = run_try(make(wait_for_termination=False), make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    trigger = make(deferrable=True).build_trigger(handles, make_context())

    async def first_event():
        loop_thread = threading.get_ident()
        async for event in trigger.run():
            return loop_thread, event.payload

    loop_thread, payload = asyncio.run(first_event())
    assert payload == {"status": "success", "statement_query_ids": handles}
    assert built_on and loop_thread not in built_on


def test_the_trigger_builds_the_connections_headers_once_not_per_statement_or_poll(account, monkeypatch):
    """A thread hop (connection lookup, key, JWT) per poll or per trigger would queue 1,000 triggers
    behind the loop's small default pool."""
    import asyncio

    from resumable_jobs.providers.snowflake.imports import sql_api_hook_class

    hook_class = sql_api_hook_class()
    built: list[str] = []
    original = hook_class.get_request_url_header_params

    def recording(self, query_id, *args, **kwargs):
        built.append(query_id)
        return original(self, query_id, *args, **kwargs)

    monkeypatch.setattr(hook_class, "get_request_url_header_params", recording)
    account.active_reads = 4  # each statement answers "running" a few times before it ends
    sql = {"sql": "SELECT 1; SELECT 2", "statement_count": 2}
    handles = run_try(
        make(wait_for_termination=False, **sql), make_context(InMemoryTaskStateStore(), FakeTaskInstance())
    )
    assert len(handles) == 2
    trigger = make(deferrable=True, **sql).build_trigger(handles, make_context())

    async def first_event():
        async for event in trigger.run():
            return event.payload

    assert asyncio.run(first_event()) == {"status": "success", "statement_query_ids": handles}
    status_reads = [r for r in account.requests if r["method"] == "GET"]
    assert len(status_reads) > 2 * len(handles)  # several polls of several statements ...
    assert len(built) == 1  # ... and the connection's headers built once


def test_an_error_event_names_the_handles_it_came_from(account):
    operator = make(deferrable=True)
    with pytest.raises(ExternalJobFailed, match=r"\['h1'\].*Snowflake: boom"):
        operator.execute_complete(
            make_context(InMemoryTaskStateStore(), FakeTaskInstance()),
            {"status": "error", "message": "boom"},
            query_ids=["h1"],
        )


# ----------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "names"),
    [
        ({"sql": ["SELECT 1"]}, TypeError, "sql"),
        ({"sql": "  "}, ValueError, "sql"),
        ({"statement_count": -1}, ValueError, "statement_count"),
        ({"statement_count": "2"}, ValueError, "statement_count"),
        ({"timeout": -5}, ValueError, "timeout"),
        ({"bindings": [1, 2]}, TypeError, "bindings"),
        ({"poll_interval": -1}, ValueError, "poll_interval"),
        ({"deferrable": "false"}, TypeError, "deferrable"),
        ({"wait_for_termination": "no"}, TypeError, "wait_for_termination"),
        ({"cancel_on_kill": "yes"}, TypeError, "cancel_on_kill"),
        ({"token_life_time": 3600}, ValueError, "token_life_time"),
        ({"durable": "true"}, TypeError, "durable"),
    ],
    ids=lambda v: next(iter(v)) if isinstance(v, dict) else None,
)
def test_bad_input_fails_at_construction_naming_the_parameter(kwargs, error, names):
    with pytest.raises(error, match=names):
        make(**kwargs)


def test_a_templated_sql_is_accepted_at_construction():
    operator = make(sql="{{ params.statement }}")
    assert operator.sql == "{{ params.statement }}"
    assert "sql" in SnowflakeSqlApiOperator.template_fields


def test_deferrable_without_waiting_warns_naming_the_fix():
    with pytest.warns(UserWarning, match="wait_for_termination=True"):
        make(deferrable=True, wait_for_termination=False)
