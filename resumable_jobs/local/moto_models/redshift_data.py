"""Redshift Data API: what moto 5.2 leaves out, added the way the AWS API reference documents it.

What it is for: running upstream's real ``RedshiftDataHook``, ``RedshiftDataTrigger`` and our
``RedshiftDataOperator`` against moto - in-process (``mock_aws`` or moto's threaded server) and in
the ``moto_server`` process of the Airflow deployments - with the behaviour the crash-safety claim
rests on: a repeated ``ClientToken`` answers with the first statement, and a statement can stay
running until a test or a drill lets it finish.

How it works: :func:`install` (idempotent) patches moto's ``redshiftdata`` backend and response
classes. Statements are :class:`ModelStatement` objects, a moto ``Statement`` that is also a moto
``ManagedState`` (model name :data:`MODEL_NAME`, one transition STARTED -> FINISHED), so moto's own
state manager paces them: ``/moto-api/state-manager/set-transition`` over HTTP, or
``moto.moto_api.state_manager.set_transition`` in-process. :func:`hold_statements` and
:func:`release_statements` wrap both.

Where each behaviour comes from:

* **moto 5.2.5** (``moto/redshiftdata``, unchanged): ExecuteStatement creates a statement with a
  UUID id, status STARTED; DescribeStatement and GetStatementResult answer for it
  (ResourceNotFoundException for an unknown id, ValidationException for a malformed one);
  GetStatementResult returns a fixed three-row result whatever the SQL; CancelStatement turns a
  STARTED statement ABORTED and refuses (ValidationException) one in any other state.
* **Added, from the Redshift Data API reference** (the botocore model of ``redshift-data``
  2019-12-20 carries the same text): ``ClientToken`` on ExecuteStatement and
  BatchExecuteStatement ("a unique, case-sensitive identifier that you provide to ensure the
  idempotency of the request", 1 to 64 characters): a request repeating a token answers with the
  first statement's id, whatever that statement's state, and starts nothing. BatchExecuteStatement
  (moto has none): one statement whose DescribeStatement lists ``SubStatements`` ``<id>:1``,
  ``<id>:2``..., each describable and with a result. ``WorkgroupName``, ``StatementName``,
  ``SessionId`` (echoed, or a new one when ``SessionKeepAliveSeconds`` is given) in the answers.
  ListStatements (moto has none): newest first, ``Status`` filter (default FINISHED, ``ALL`` for
  every state), ``StatementName`` prefix, ``MaxResults``/``NextToken`` paging. A statement
  finishes: STARTED -> FINISHED through the state manager (default transition ``immediate``: the
  first DescribeStatement shows FINISHED; ``{"progression": "manual", "times": N}``: the Nth).
* **A choice where the reference is silent**: a token repeated with *different* parameters. The
  reference names no error for it and ExecuteStatement lists no ``IdempotentParameterMismatch``
  (the error EC2 documents for that case); the model answers ``ValidationException`` (the
  reference's error for invalid input) naming the token, so a client never silently gets another
  request's statement. How long AWS remembers a token is not documented either: the model keeps
  it as long as the backend lives.

What it does not do: run SQL, check credentials, secrets, clusters or workgroups, enforce session
rules, or expire statements and tokens. :func:`fail_statement` (in-process only) ends a statement
FAILED with an error message, for tests of that path.
"""

from __future__ import annotations

import json
import urllib.request
import uuid
from datetime import datetime
from typing import Any

__all__ = [
    "HOLD",
    "MODEL_NAME",
    "RELEASE",
    "fail_statement",
    "hold_statements",
    "install",
    "release_statements",
]

#: The moto state-manager model that paces statements (STARTED -> FINISHED).
MODEL_NAME = "redshift-data::statement"
#: Keep every running statement STARTED (DescribeStatement calls never reach the count).
HOLD = {"progression": "manual", "times": 10**9}
#: Let every statement finish at its next DescribeStatement.
RELEASE = {"progression": "immediate"}
_INSTALLED = "_resumable_jobs_redshift_data_model"


def install() -> None:
    """Patch moto's redshift-data backend and responses (see the module docstring). Idempotent."""
    from moto.moto_api import state_manager
    from moto.redshiftdata import models, responses

    backend_class, response_class = models.RedshiftDataAPIServiceBackend, responses.RedshiftDataAPIServiceResponse
    if getattr(backend_class, _INSTALLED, False):
        return
    state_manager.register_default_transition(MODEL_NAME, RELEASE)
    backend_class.submit = _backend_submit
    backend_class.find_statement = _backend_find_statement
    backend_class.describe_statement = _backend_describe_statement
    backend_class.get_statement_result = _wrap_result(backend_class.get_statement_result)
    backend_class.list_statements = _backend_list_statements
    response_class.execute_statement = _respond_execute_statement
    response_class.batch_execute_statement = _respond_batch_execute_statement
    response_class.list_statements = _respond_list_statements
    setattr(backend_class, _INSTALLED, True)


# ---------------------------------------------------------------------------- the statement
def _statement_class() -> type:
    """:class:`ModelStatement`, built on first use so importing this module never imports moto."""
    global ModelStatement
    if ModelStatement is not None:
        return ModelStatement
    from moto.moto_api._internal.managed_state_model import ManagedState
    from moto.redshiftdata.models import Statement

    class _ModelStatement(Statement, ManagedState):
        """A moto ``Statement`` whose status the state manager moves from STARTED to FINISHED."""

        def __init__(self, request: dict[str, Any], sqls: list[str] | None) -> None:
            Statement.__init__(
                self,
                cluster_identifier=request.get("ClusterIdentifier"),
                database=request.get("Database"),
                db_user=request.get("DbUser"),
                query_parameters=request.get("Parameters"),
                query_string=request.get("Sql") if sqls is None else "; ".join(sqls),
                secret_arn=request.get("SecretArn"),
            )
            ManagedState.__init__(self, MODEL_NAME, [("STARTED", "FINISHED")])
            self.workgroup_name = request.get("WorkgroupName")
            self.statement_name = request.get("StatementName")
            self.session_id = request.get("SessionId") or (
                str(uuid.uuid4()) if request.get("SessionKeepAliveSeconds") is not None else None
            )
            self.sqls = sqls
            self.error: str | None = None

        def sub_statements_data(self, status: str | None) -> list[dict[str, Any]]:
            return [
                _without_none(
                    {
                        "Id": f"{self.id}:{number}",
                        "Status": status,
                        "QueryString": sql,
                        "CreatedAt": self.created_at,
                        "UpdatedAt": self.updated_at,
                        "Duration": self.duration,
                        "HasResultSet": self.has_result_set,
                        "ResultRows": self.result_rows,
                        "ResultSize": self.result_size,
                        "RedshiftQueryId": self.redshift_query_id,
                        "Error": self.error,
                    }
                )
                for number, sql in enumerate(self.sqls or (), start=1)
            ]

        def describe(self, sub_statement: int | None = None) -> dict[str, Any]:
            status = self.status
            data = dict(self)
            data.update(
                Status=status,
                SubStatements=self.sub_statements_data(status),
                WorkgroupName=self.workgroup_name,
                SessionId=self.session_id,
                Error=self.error,
            )
            if sub_statement is not None:
                data.update(self.sub_statements_data(status)[sub_statement - 1], SubStatements=[])
            return _without_none(data)

        def summary(self) -> dict[str, Any]:
            return _without_none(
                {
                    "Id": self.id,
                    "QueryString": None if self.sqls is not None else self.query_string,
                    "QueryStrings": self.sqls,
                    "IsBatchStatement": self.sqls is not None,
                    "SecretArn": self.secret_arn,
                    "Status": self.status,
                    "StatementName": self.statement_name,
                    "CreatedAt": self.created_at,
                    "UpdatedAt": self.updated_at,
                    "QueryParameters": self.query_parameters,
                    "SessionId": self.session_id,
                }
            )

    ModelStatement = _ModelStatement
    return ModelStatement


ModelStatement: Any = None


def _without_none(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}


# ---------------------------------------------------------------------------- backend methods
def _tokens(backend: Any) -> dict[str, tuple[str, str]]:
    """ClientToken -> (request fingerprint, statement id), per account and region."""
    return backend.__dict__.setdefault("_client_tokens", {})


def _backend_submit(backend: Any, action: str, request: dict[str, Any]) -> Any:
    """ExecuteStatement / BatchExecuteStatement with ClientToken; returns the (first) statement."""
    from moto.redshiftdata.exceptions import ValidationException

    token = request.get("ClientToken")
    fingerprint = json.dumps(
        {"action": action, **{k: v for k, v in request.items() if k != "ClientToken"}}, sort_keys=True
    )
    if token is not None:
        if not 1 <= len(token) <= 64:
            raise ValidationException("ClientToken must be between 1 and 64 characters long")
        known = _tokens(backend).get(token)
        if known is not None:
            if known[0] != fingerprint:
                raise ValidationException(
                    f"ClientToken {token!r} was already used for a request with different parameters"
                )
            return backend.statements[known[1]]
    sqls = request.get("Sqls") if action == "BatchExecuteStatement" else None
    statement = _statement_class()(request, sqls)
    backend.statements[statement.id] = statement
    if token is not None:
        _tokens(backend)[token] = (fingerprint, statement.id)
    return statement


def _backend_find_statement(backend: Any, statement_id: str) -> tuple[Any, int | None]:
    """The statement for an id or a sub-statement id (``<id>:<n>``), and the sub-statement number."""
    from moto.redshiftdata.exceptions import ResourceNotFoundException
    from moto.redshiftdata.models import _validate_uuid

    _validate_uuid(statement_id)
    parent, _, number = statement_id.partition(":")
    statement = backend.statements.get(parent)
    if statement is None:
        raise ResourceNotFoundException()
    if not number:
        return statement, None
    if not 1 <= int(number) <= len(getattr(statement, "sqls", None) or ()):
        raise ResourceNotFoundException()
    return statement, int(number)


def _backend_describe_statement(backend: Any, statement_id: str) -> Any:
    statement, sub_statement = backend.find_statement(statement_id)
    if isinstance(statement, _statement_class()):
        statement.advance()  # one DescribeStatement: one tick for a "manual" transition
        return statement.describe(sub_statement)
    return dict(statement)


def _wrap_result(get_statement_result: Any) -> Any:
    def get_result(backend: Any, statement_id: str) -> Any:
        statement, _ = backend.find_statement(statement_id)
        return get_statement_result(backend, statement.id)

    get_result.__wrapped__ = get_statement_result
    return get_result


def _backend_list_statements(backend: Any, request: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    status = request.get("Status") or "FINISHED"
    prefix = request.get("StatementName") or ""
    listed = [
        statement.summary()
        for statement in reversed(list(backend.statements.values()))
        if isinstance(statement, _statement_class())
        and (status == "ALL" or statement.status == status)
        and (statement.statement_name or "").startswith(prefix)
    ]
    start = int(request.get("NextToken") or 0)
    size = request.get("MaxResults") or 100
    page = listed[start : start + size]
    return page, str(start + size) if start + size < len(listed) else None


def fail_statement(
    statement_id: str, error: str, *, account_id: str = "123456789012", region: str = "us-east-1"
) -> None:
    """End a statement FAILED with ``error`` (in-process tests only: the backend must be this process's)."""
    from moto.redshiftdata.models import redshiftdata_backends

    statement = redshiftdata_backends[account_id][region].statements[statement_id]
    statement.status = "FAILED"
    statement.error = error
    statement.updated_at = datetime.now().isoformat(timespec="seconds")


# ---------------------------------------------------------------------------- response methods
def _request(response: Any) -> dict[str, Any]:
    return json.loads(response.body or "{}")


def _submission_answer(statement: Any) -> str:
    return json.dumps(
        _without_none(
            {
                "Id": statement.id,
                "CreatedAt": statement.created_at,
                "ClusterIdentifier": statement.cluster_identifier,
                "Database": statement.database,
                "DbUser": statement.db_user,
                "SecretArn": statement.secret_arn,
                "WorkgroupName": getattr(statement, "workgroup_name", None),
                "SessionId": getattr(statement, "session_id", None),
            }
        )
    )


def _respond_execute_statement(response: Any) -> tuple[int, dict, str]:
    statement = response.redshiftdata_backend.submit("ExecuteStatement", _request(response))
    return 200, {}, _submission_answer(statement)


def _respond_batch_execute_statement(response: Any) -> tuple[int, dict, str]:
    statement = response.redshiftdata_backend.submit("BatchExecuteStatement", _request(response))
    return 200, {}, _submission_answer(statement)


def _respond_list_statements(response: Any) -> tuple[int, dict, str]:
    statements, next_token = response.redshiftdata_backend.list_statements(_request(response))
    return 200, {}, json.dumps(_without_none({"Statements": statements, "NextToken": next_token}))


# ---------------------------------------------------------------------------- pacing
def _set_transition(transition: dict[str, Any], endpoint_url: str | None) -> None:
    if endpoint_url is None:
        from moto.moto_api import state_manager

        state_manager.set_transition(MODEL_NAME, transition)
        return
    request = urllib.request.Request(
        f"{endpoint_url.rstrip('/')}/moto-api/state-manager/set-transition",
        data=json.dumps({"model_name": MODEL_NAME, "transition": transition}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10):
        pass


def hold_statements(endpoint_url: str | None = None) -> None:
    """Keep running statements STARTED until :func:`release_statements` (this process, or a server)."""
    _set_transition(HOLD, endpoint_url)


def release_statements(endpoint_url: str | None = None) -> None:
    """Let every statement finish at its next DescribeStatement (this process, or a server)."""
    _set_transition(RELEASE, endpoint_url)
