"""The one POST to ``/api/v2/statements``, carrying the ``requestId`` that closes the window.

What it is for: ``SnowflakeSqlApiHook.execute_query`` picks a random ``requestId`` inside the
call and has no ``retry`` flag, so a retry can neither send the request id of the request its
crashed predecessor made nor tell Snowflake it is a resubmission. This module makes the same
request the hook makes (same URL, headers, body and query parameters, the hook's JWT/OAuth/PAT
headers and its retry policy) with a request id derived from the submission token.

How it works: :func:`submit_statements` POSTs with ``requestId`` and ``async=true``, and with
``retry=true`` when the operator resubmits in the same generation (the previous try may have
reached Snowflake) and on every attempt after the first inside the hook's retry policy (a timed
out POST may have reached Snowflake too). The statement handles come from ``statementHandles``
(a multi-statement request) or ``statementHandle``. Like the hook, it reports the SQL to
Airflow's hook-level lineage.

What it does not do: poll, cancel or read results - the hook's own methods do that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from airflow.providers.snowflake.hooks.snowflake_sql_api import SnowflakeSqlApiHook

__all__ = ["SubmissionRejected", "statements_url", "submit_statements"]


class SubmissionRejected(RuntimeError):
    """Snowflake answered the POST with an error (422): nothing runs; the message says why."""


def statements_url(hook: SnowflakeSqlApiHook) -> str:
    """``https://<account>[.<region>].snowflakecomputing.com/api/v2/statements``, as the hook builds it."""
    return f"{hook.account_identifier}.snowflakecomputing.com/api/v2/statements"


def request_body(
    hook: SnowflakeSqlApiHook, *, sql: str, statement_count: int, bindings: dict[str, Any] | None, timeout: int | None
) -> dict[str, Any]:
    """The body the hook's ``execute_query`` sends, with the same defaults from the connection."""
    conn = hook._get_conn_params()
    body: dict[str, Any] = {
        "statement": sql,
        "resultSetMetaData": {"format": "json"},
        "database": hook.database or conn["database"],
        "schema": hook.schema or conn["schema"],
        "warehouse": hook.warehouse or conn["warehouse"],
        "role": hook.role or conn["role"],
        "bindings": bindings or {},
        "parameters": {"MULTI_STATEMENT_COUNT": statement_count, "query_tag": ""},
    }
    if timeout is not None:
        body["timeout"] = timeout
    return body


def submit_statements(
    hook: SnowflakeSqlApiHook,
    *,
    sql: str,
    statement_count: int,
    bindings: dict[str, Any] | None,
    timeout: int | None,
    request_id: str,
    resubmission: bool,
) -> list[str]:
    """POST the statements; return their handles (see the module docstring)."""
    import requests
    from tenacity import Retrying

    if bindings is not None and not isinstance(bindings, dict):
        raise TypeError(f"bindings must be a dict or None, got {type(bindings).__name__}")
    if bindings and ";" in sql.strip():
        hook.log.warning("Bindings are not supported for multi-statement queries. Bindings will be ignored.")
    url = statements_url(hook)
    body = request_body(hook, sql=sql, statement_count=statement_count, bindings=bindings, timeout=timeout)
    extra = dict(getattr(hook, "http_request_kwargs", None) or {})
    answer: dict[str, Any] = {}
    with requests.Session() as session:
        for attempt in Retrying(**hook.retry_config):
            with attempt:
                params: dict[str, Any] = {"requestId": request_id, "async": True, "pageSize": 10}
                if resubmission or attempt.retry_state.attempt_number > 1:
                    params["retry"] = True
                response = session.request(
                    **{
                        **extra,
                        "method": "post",
                        "url": url,
                        "headers": hook.get_headers(),
                        "params": params,
                        "json": body,
                    }
                )
                if response.status_code >= 400 and response.status_code != 422:
                    response.raise_for_status()
                answer = response.json()
                if response.status_code == 422:
                    raise SubmissionRejected(
                        f"Snowflake refused the statements (requestId {request_id}): "
                        f"{answer.get('message', 'no message')} (code {answer.get('code')}, "
                        f"SQL state {answer.get('sqlState')})"
                    )
    handles = answer.get("statementHandles") or ([answer["statementHandle"]] if answer.get("statementHandle") else [])
    if not handles:
        raise RuntimeError(f"Snowflake's answer names no statementHandle/statementHandles: {answer}")
    hook.query_ids = list(handles)
    _report_lineage(hook, sql, handles)
    return list(handles)


def _report_lineage(hook: Any, sql: str, handles: list[str]) -> None:
    """Hook-level lineage as the hook reports it: one entry per statement when they can be paired."""
    try:
        from airflow.providers.common.sql.hooks.lineage import send_sql_hook_lineage
    except ImportError:  # an older common.sql provider: no hook-level lineage
        return
    try:
        statements = sql.split(";")
        if len(handles) == 1:
            send_sql_hook_lineage(context=hook, sql=sql, job_id=handles[0])
        elif len(statements) == len(handles):
            for text, handle in zip(statements, handles, strict=True):
                send_sql_hook_lineage(context=hook, sql=text, job_id=handle)
        else:
            send_sql_hook_lineage(context=hook, sql=sql)
    except Exception as err:  # noqa: BLE001 - lineage must never fail a submitted request
        hook.log.warning("Could not report hook-level lineage for the Snowflake statements: %s", err)
