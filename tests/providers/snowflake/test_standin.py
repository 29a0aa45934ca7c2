"""The Snowflake SQL API stand-in, checked by upstream's own code: hook, trigger and operator.

If the real ``SnowflakeSqlApiHook`` signs in, submits, polls, cancels and reads results here, and
the real ``SnowflakeSqlApiTrigger`` and ``SnowflakeSqlApiOperator`` run to the end, the stand-in
answers in the shapes upstream parses. The ``requestId`` / ``retry`` behaviour and the key-pair
JWT checks are the documented ones (see the stand-in's module docstring).
"""

from __future__ import annotations

import datetime
import json

import jwt
import pytest
import requests

from resumable_jobs.local.standins.snowflake import ACCOUNT, USER, key_pair, public_key_fingerprint
from resumable_jobs.testing import (
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_trigger_until_event,
    run_try,
)

BASE = f"https://{ACCOUNT.lower()}.snowflakecomputing.com/api/v2/statements"


def hook():
    from resumable_jobs.providers.snowflake.imports import sql_api_hook_class

    return sql_api_hook_class()("snowflake_default")


def submit(headers, *, request_id, retry=False, statement="SELECT 1", count=1):
    params = {"requestId": request_id, "async": "true", **({"retry": "true"} if retry else {})}
    body = {"statement": statement, "parameters": {"MULTI_STATEMENT_COUNT": count}}
    return requests.post(BASE, params=params, json=body, headers=headers, timeout=10)


def test_upstreams_hook_submits_polls_cancels_and_reads_results(account):
    sql_api = hook()
    handles = sql_api.execute_query("SELECT 1; SELECT 2", statement_count=2)
    (execution,) = account.executions
    assert handles == [s.handle for s in execution.statements]  # statementHandles of a multi-statement request
    assert sql_api.get_sql_api_query_status(handles[0])["status"] == "running"
    assert sql_api.wait_for_query(handles[0], poll_interval=0)["status"] == "success"
    assert sql_api.get_result_from_successful_sql_api_query(handles[0]) == [{"1": "1"}]
    sql_api.cancel_queries([handles[1]])
    cancelled = sql_api.get_sql_api_query_status(handles[1])
    assert cancelled["status"] == "error" and "000604" in cancelled["message"]
    with pytest.raises(requests.HTTPError, match="404"):
        sql_api.get_sql_api_query_status("01b0ffff-0000-4f2a-0000-00000000ffff")


def test_upstreams_trigger_reports_success_and_a_failed_statement(account):
    from airflow.providers.snowflake.triggers.snowflake_trigger import SnowflakeSqlApiTrigger

    def trigger(handles):
        return SnowflakeSqlApiTrigger(
            poll_interval=0,
            query_ids=handles,
            snowflake_conn_id="snowflake_default",
            token_life_time=datetime.timedelta(minutes=59),
            token_renewal_delta=datetime.timedelta(minutes=54),
        )

    ok = hook().execute_query("SELECT 1", statement_count=1)
    assert run_trigger_until_event(trigger(ok)) == {"status": "success", "statement_query_ids": ok}
    account.fail_next = 1
    failed = hook().execute_query("SELECT 1; SELECT 2", statement_count=2)
    event = run_trigger_until_event(trigger(failed))
    assert event["status"] == "error" and failed[1] in event["message"] and "002003" in event["message"]


@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_upstreams_operator_runs_to_the_end(account, deferrable):
    from airflow.providers.snowflake.operators.snowflake import SnowflakeSqlApiOperator

    operator = SnowflakeSqlApiOperator(
        task_id="upstream", sql="SELECT 1; SELECT 2", statement_count=2, poll_interval=0, deferrable=deferrable
    )
    ti = FakeTaskInstance()
    run_try(operator, make_context(InMemoryTaskStateStore(), ti))
    (execution,) = account.executions
    assert execution.state == "SUCCESS"
    assert operator.query_ids == [s.handle for s in execution.statements] == ti.xcom["query_ids"]


def test_a_resubmitted_request_id_runs_nothing_only_with_retry_true(account):
    headers = hook().get_headers()
    first = submit(headers, request_id="5c0e5b2c-5b1e-4f7e-9d3e-000000000001")
    again = submit(headers, request_id="5c0e5b2c-5b1e-4f7e-9d3e-000000000001", retry=True)
    assert first.status_code == again.status_code == 202
    assert again.json()["statementHandle"] == first.json()["statementHandle"]
    assert len(account.executions) == 1
    plain = submit(headers, request_id="5c0e5b2c-5b1e-4f7e-9d3e-000000000001")  # no retry flag: runs again
    assert plain.json()["statementHandle"] != first.json()["statementHandle"]
    assert len(account.executions) == 2


def test_a_request_that_failed_runs_again_on_retry(account):
    headers = hook().get_headers()
    account.fail_next = 1
    account.active_reads = 0
    first = submit(headers, request_id="5c0e5b2c-5b1e-4f7e-9d3e-000000000002").json()["statementHandle"]
    assert hook().get_sql_api_query_status(first)["status"] == "error"
    again = submit(headers, request_id="5c0e5b2c-5b1e-4f7e-9d3e-000000000002", retry=True).json()["statementHandle"]
    assert again != first and len(account.executions) == 2
    assert hook().get_sql_api_query_status(again)["status"] == "success"


def test_a_statement_count_that_does_not_match_is_refused(account):
    answer = submit(
        hook().get_headers(), request_id="5c0e5b2c-5b1e-4f7e-9d3e-000000000003", statement="SELECT 1; SELECT 2"
    )
    assert answer.status_code == 422 and answer.json()["code"] == "000008"
    assert account.executions == []


def _jwt(private_pem, *, sub, iss):
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    now = datetime.datetime.now(datetime.UTC)
    claims = {"sub": sub, "iss": iss, "iat": now, "exp": now + datetime.timedelta(minutes=5)}
    return jwt.encode(claims, load_pem_private_key(private_pem.encode(), None), algorithm="RS256")


def test_key_pair_jwts_are_checked_against_the_registered_public_key(account, user_keys, monkeypatch):
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    private, public = user_keys
    sub = f"{ACCOUNT}.{USER}"
    iss = f"{sub}.{public_key_fingerprint(load_pem_public_key(public.encode()))}"

    def answer(token, token_type="KEYPAIR_JWT"):
        headers = {"Authorization": f"Bearer {token}", "X-Snowflake-Authorization-Token-Type": token_type}
        return submit(headers, request_id="5c0e5b2c-5b1e-4f7e-9d3e-000000000004")

    assert answer(_jwt(private, sub=sub, iss=iss)).status_code == 202
    other_private, _ = key_pair()
    assert answer(_jwt(other_private, sub=sub, iss=iss)).status_code == 401  # signed with another key
    assert answer(_jwt(private, sub=sub.lower(), iss=iss)).status_code == 401  # sub not ACCOUNT.USER
    assert answer(_jwt(private, sub=sub, iss=f"{sub}.SHA256:bm90IHRoZSBrZXk=")).status_code == 401
    assert answer(_jwt(private, sub=sub, iss=iss), token_type="OAUTH").status_code == 401
    refused = answer("not-a-jwt")
    assert refused.status_code == 401 and refused.json()["code"] == "390144"
    assert len(account.executions) == 1
    # the hook's own JWT with a key the account does not know is refused too
    monkeypatch.setenv(
        "AIRFLOW_CONN_SNOWFLAKE_DEFAULT",
        json.dumps(
            {
                "conn_type": "snowflake",
                "login": "airflow",
                "extra": {"account": "rjlocal", "private_key_content": other_private},
            }
        ),
    )
    with pytest.raises(requests.HTTPError, match="401"):
        hook().execute_query("SELECT 1", statement_count=1)
