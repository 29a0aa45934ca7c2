"""A Snowflake SQL API (v2) account model that the real ``SnowflakeSqlApiHook`` and trigger talk to.

What it is for: the Snowflake operator's unit tests and the production crash suite need a Snowflake
that answers like the SQL API where crash safety depends on it, without an account: a request
resubmitted with the same ``requestId`` and ``retry=true`` does not run its statements again, a
statement answers 202 while it runs, 200 when it succeeded and 422 when it failed or was
cancelled, an unknown handle answers 404, ``/cancel`` ends a running statement.

How it works: :class:`SnowflakeSqlApi` answers ``handle_request(method, path, query, headers,
body)`` and is reached through real HTTP - a thread in the test process, or a process of its own
for the crash suite (:mod:`resumable_jobs.local.standins.server`). Where each behaviour comes
from:

* the Snowflake SQL API reference and its guides (docs.snowflake.com/en/developer-guide/sql-api):
  the three endpoints; ``requestId`` (a UUID) and ``retry=true`` - a resubmitted request with the
  request id of a request that ran is answered with that request's statement handles and runs
  nothing; a request id sent again *without* ``retry=true`` is treated as a new request (the
  guide's warning that a plain resubmission runs the statements twice); the 202 body (code
  ``333334``, ``statementHandle``, ``statementStatusUrl``); the 200 result body (code ``090001``,
  ``resultSetMetaData``, ``data``); 422 with ``code``, ``sqlState``, ``message`` and
  ``statementHandle`` for a failed statement; a multi-statement request (statements separated by
  ``;``, ``MULTI_STATEMENT_COUNT`` checked unless 0, error ``000008`` on a mismatch) answers with
  the parent ``statementHandle`` and one handle per statement in ``statementHandles``;
* the key-pair authentication guide: ``Authorization: Bearer <JWT>`` with
  ``X-Snowflake-Authorization-Token-Type: KEYPAIR_JWT``, an RS256 JWT whose ``sub`` is
  ``ACCOUNT.USER`` (upper case, account without region) and whose ``iss`` is ``sub`` followed by
  ``.SHA256:`` and the base64 SHA-256 fingerprint of the user's public key (DER,
  SubjectPublicKeyInfo). The stand-in checks the signature with the public key registered for the
  user (:meth:`SnowflakeSqlApi.register_user`, Snowflake's ``ALTER USER ... SET RSA_PUBLIC_KEY``)
  and answers 401 (code ``390144``) otherwise;
* our own choice, not Snowflake's: how long a statement runs (``active_reads`` status reads, or
  held until :meth:`SnowflakeSqlApi.release` / ``hold_seconds``), the handle format, the result
  rows (``[["1"]]``), the codes for "not found" (404, ``000709``) and "cancelled" (422,
  ``000604``, SQL state ``57014``, Snowflake's "SQL execution canceled").

Every request is logged (:attr:`SnowflakeSqlApi.requests`) and every execution is one
:class:`SnowflakeRequest` (:attr:`SnowflakeSqlApi.executions`), which is what tests count.

What it does not do: run SQL, result partitions, bindings, sessions, transactions, OAuth or PAT
authentication, or how long Snowflake remembers a request id (here: forever).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ACCOUNT",
    "ACTIVE_READS",
    "USER",
    "SnowflakeRequest",
    "SnowflakeSqlApi",
    "SnowflakeStatement",
    "connection",
    "key_pair",
    "public_key_fingerprint",
]

ACCOUNT = "RJLOCAL"
USER = "AIRFLOW"
ACTIVE_READS = 2  # status reads a statement answers 202 before it ends (when not held)
_HANDLE_PATH = re.compile(r"^/api/v2/statements/(?P<handle>[^/]+)(?P<cancel>/cancel)?/?$")
RUNNING, SUCCESS, FAILED, CANCELLED = "RUNNING", "SUCCESS", "FAILED", "CANCELLED"
FAILURE = {
    "code": "002003",
    "sqlState": "02000",
    "message": "SQL compilation error:\nObject 'MISSING_TABLE' does not exist or not authorized.",
}


def public_key_fingerprint(public_key: Any) -> str:
    """``SHA256:<base64>`` of the key's DER SubjectPublicKeyInfo: the JWT issuer's suffix."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    der = public_key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return "SHA256:" + base64.b64encode(hashlib.sha256(der).digest()).decode()


def key_pair() -> tuple[str, str]:
    """A fresh RSA key pair as PEM text: ``(private PKCS#8, public SubjectPublicKeyInfo)``.

    What a Snowflake user makes with ``openssl genrsa`` / ``openssl rsa -pubout`` for key-pair
    authentication; the private half goes into the Airflow connection, the public half to
    :meth:`SnowflakeSqlApi.register_user`.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private.decode(), public.decode()


def connection(private_key_pem: str, *, account: str = ACCOUNT, user: str = USER) -> dict[str, Any]:
    """The Airflow ``snowflake`` connection (JSON form) that signs key-pair JWTs with this key."""
    return {
        "conn_type": "snowflake",
        "login": user.lower(),
        "schema": "PUBLIC",
        "extra": {
            "account": account.lower(),
            "warehouse": "RJ_WH",
            "database": "RJ_DB",
            "role": "RJ_ROLE",
            "private_key_content": private_key_pem,
        },
    }


@dataclass
class SnowflakeStatement:
    """One statement: its handle, its text, and how it ends."""

    handle: str
    text: str
    outcome: str = SUCCESS
    state: str = RUNNING
    reads_left: int = ACTIVE_READS
    hold_until: float | None = None
    released: bool = False
    ended: float | None = None

    def advance(self, now: float) -> None:
        if self.state != RUNNING:
            return
        if self.hold_until is not None:
            if not self.released and now < self.hold_until:
                return
        elif self.reads_left > 0:
            self.reads_left -= 1
            return
        self.state, self.ended = self.outcome, now

    def answer(self, request_id: str) -> tuple[int, dict[str, Any]]:
        """The GET /api/v2/statements/{handle} answer as the statement is now."""
        url = f"/api/v2/statements/{self.handle}"
        if self.state == RUNNING:
            return 202, {
                "code": "333334",
                "message": "Asynchronous execution in progress. Use provided query id to perform query "
                "monitoring and management.",
                "statementHandle": self.handle,
                "statementStatusUrl": url,
            }
        if self.state == SUCCESS:
            return 200, {
                "resultSetMetaData": {
                    "numRows": 1,
                    "format": "jsonv2",
                    "rowType": [{"name": "1", "type": "fixed", "nullable": False}],
                    "partitionInfo": [{"rowCount": 1, "uncompressedSize": 6}],
                },
                "data": [["1"]],
                "code": "090001",
                "statementStatusUrl": url,
                "requestId": request_id,
                "sqlState": "00000",
                "statementHandle": self.handle,
                "message": "Statement executed successfully.",
                "createdOn": int((self.ended or 0) * 1000),
            }
        if self.state == CANCELLED:
            return 422, {
                "code": "000604",
                "sqlState": "57014",
                "message": "SQL execution canceled",
                "statementHandle": self.handle,
            }
        return 422, {**FAILURE, "statementHandle": self.handle}


@dataclass
class SnowflakeRequest:
    """One execution of a POST /api/v2/statements: its request id and its statements."""

    handle: str
    request_id: str | None
    statements: list[SnowflakeStatement]
    created: float

    @property
    def multi(self) -> bool:
        return len(self.statements) > 1

    @property
    def state(self) -> str:
        states = [s.state for s in self.statements]
        for state in (RUNNING, FAILED, CANCELLED):
            if state in states:
                return state
        return SUCCESS

    def submit_answer(self) -> tuple[int, dict[str, Any]]:
        """What the POST answers (async): 202 with the handle(s) while a statement runs."""
        answer: dict[str, Any] = {
            "code": "333334",
            "message": "Asynchronous execution in progress. Use provided query id to perform query "
            "monitoring and management.",
            "statementHandle": self.handle,
            "statementStatusUrl": f"/api/v2/statements/{self.handle}",
        }
        if self.multi:
            answer["statementHandles"] = [s.handle for s in self.statements]
        return (202 if self.state == RUNNING else 200), answer

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.handle,
            "request_id": self.request_id,
            "handles": [s.handle for s in self.statements],
            "state": self.state,
            "created": self.created,
            "ended": max((s.ended or 0.0 for s in self.statements), default=None) if self.state != RUNNING else None,
        }


@dataclass
class SnowflakeSqlApi:
    """The SQL API of one account (see the module docstring)."""

    account: str = ACCOUNT
    #: Status reads a new statement answers 202 before it ends (when ``hold_seconds`` is None).
    active_reads: int = ACTIVE_READS
    #: When set, new statements run this long (or until released) instead of counting reads.
    hold_seconds: float | None = None
    #: The next N executions end with their last statement failed.
    fail_next: int = 0
    clock: Callable[[], float] = time.time
    #: Public keys by user name (upper case), as ``ALTER USER ... SET RSA_PUBLIC_KEY`` registers them.
    public_keys: dict[str, Any] = field(default_factory=dict)
    executions: list[SnowflakeRequest] = field(default_factory=list)
    statements: dict[str, SnowflakeStatement] = field(default_factory=dict)
    #: Handles a cancel request named, in order.
    cancels: list[str] = field(default_factory=list)
    #: ``{"time", "method", "path", "requestId", "retry", "status"}`` for every API request.
    requests: list[dict[str, Any]] = field(default_factory=list)
    _by_request_id: dict[str, SnowflakeRequest] = field(default_factory=dict)
    _parents: dict[str, SnowflakeRequest] = field(default_factory=dict)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.RLock = field(default_factory=threading.RLock)

    # ------------------------------------------------------------- set-up and control surface
    def register_user(self, user: str, public_key_pem: str | bytes) -> None:
        """Accept key-pair JWTs of ``user`` signed with the private half of this public key."""
        from cryptography.hazmat.primitives.serialization import load_pem_public_key

        pem = public_key_pem.encode() if isinstance(public_key_pem, str) else public_key_pem
        self.public_keys[user.upper()] = load_pem_public_key(pem)

    def control(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, Any] | None:
        """``POST /_standin/users`` ``{"user", "public_key"}`` registers a key; None for other paths."""
        if method == "POST" and path == "/_standin/users":
            self.register_user(body["user"], body["public_key"])
            return 200, {"registered": body["user"].upper()}
        return None

    def summaries(self) -> list[dict[str, Any]]:
        """Every execution, oldest first (states brought up to date for held statements)."""
        with self._lock:
            now = self.clock()
            for statement in self.statements.values():
                if statement.hold_until is not None:
                    statement.advance(now)
            return [execution.summary() for execution in self.executions]

    def release(self, handle: str) -> bool:
        """Let the held statements of the execution ``handle`` names (parent or child) finish."""
        with self._lock:
            execution = self._execution_of(str(handle))
            if execution is None:
                return False
            for statement in execution.statements:
                statement.released = True
            return True

    def _execution_of(self, handle: str) -> SnowflakeRequest | None:
        if handle in self._parents:
            return self._parents[handle]
        return next((e for e in self.executions if any(s.handle == handle for s in e.statements)), None)

    # ------------------------------------------------------------- the API
    def handle_request(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        with self._lock:
            status, answer = self._answer(method, path, query, headers, body)
            self.requests.append(
                {
                    "time": self.clock(),
                    "method": method,
                    "path": path,
                    "requestId": query.get("requestId"),
                    "retry": query.get("retry"),
                    "status": status,
                }
            )
            return status, answer

    def _answer(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        refused = self._authenticate(headers)
        if refused is not None:
            return 401, {"code": "390144", "message": f"JWT token is invalid. {refused}"}
        if method == "POST" and path.rstrip("/") == "/api/v2/statements":
            return self._submit(query, body)
        match = _HANDLE_PATH.match(path)
        if match is None:
            return 404, {"code": "000404", "message": f"no endpoint {method} {path}"}
        handle = match["handle"]
        if handle in self._parents:
            return self._parent_answer(self._parents[handle], cancel=bool(match["cancel"]) and method == "POST")
        statement = self.statements.get(handle)
        if statement is None:
            return 404, {"code": "000709", "message": f"Statement {handle} not found", "statementHandle": handle}
        if match["cancel"] and method == "POST":
            return self._cancel([statement])
        if method == "GET":
            statement.advance(self.clock())
            return statement.answer(query.get("requestId", ""))
        return 405, {"message": f"{method} not allowed on {path}"}

    def _authenticate(self, headers: dict[str, str]) -> str | None:
        """None when the request carries a valid key-pair JWT of a registered user; else why not."""
        import jwt

        lowered = {k.lower(): v for k, v in headers.items()}
        if lowered.get("x-snowflake-authorization-token-type", "").upper() != "KEYPAIR_JWT":
            return "expected X-Snowflake-Authorization-Token-Type: KEYPAIR_JWT"
        scheme, _, token = lowered.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return "expected Authorization: Bearer <JWT>"
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError as err:
            return f"unreadable JWT: {err}"
        subject, issuer = str(claims.get("sub", "")), str(claims.get("iss", ""))
        account, _, user = subject.partition(".")
        if account != self.account.upper() or not user or subject != subject.upper():
            return f"sub must be {self.account.upper()}.<USER> in upper case, got {subject!r}"
        key = self.public_keys.get(user)
        if key is None:
            return f"no public key registered for user {user}"
        if issuer != f"{subject}.{public_key_fingerprint(key)}":
            return "iss must be <sub>.SHA256:<fingerprint of the registered public key>"
        try:
            jwt.decode(token, key=key, algorithms=["RS256"], options={"require": ["exp", "iat"]})
        except jwt.PyJWTError as err:
            return f"signature or lifetime rejected: {err}"
        return None

    def _submit(self, query: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request_id = query.get("requestId")
        retry = str(query.get("retry", "")).lower() == "true"
        known = self._by_request_id.get(request_id) if request_id else None
        if known is not None and retry and known.state not in (FAILED, CANCELLED):
            return known.submit_answer()  # the guide: a resubmitted request id runs nothing again
        texts = [part.strip() for part in str(body.get("statement", "")).split(";") if part.strip()]
        if not texts:
            return 422, {"code": "000900", "sqlState": "42601", "message": "SQL compilation error: empty statement"}
        wanted = int((body.get("parameters") or {}).get("MULTI_STATEMENT_COUNT", 1) or 0)
        if wanted and wanted != len(texts):
            return 422, {
                "code": "000008",
                "sqlState": "0A000",
                "message": f"Actual statement count {len(texts)} did not match the desired statement count {wanted}.",
            }
        execution = self._execute(texts, request_id)
        return execution.submit_answer()

    def _execute(self, texts: list[str], request_id: str | None) -> SnowflakeRequest:
        now = self.clock()
        hold_until = now + self.hold_seconds if self.hold_seconds is not None else None
        statements = [
            SnowflakeStatement(self._new_handle(), text, reads_left=self.active_reads, hold_until=hold_until)
            for text in texts
        ]
        if self.fail_next:
            self.fail_next -= 1
            statements[-1].outcome = FAILED
        parent = statements[0].handle if len(statements) == 1 else self._new_handle()
        execution = SnowflakeRequest(parent, request_id, statements, now)
        self.executions.append(execution)
        for statement in statements:
            self.statements[statement.handle] = statement
        if len(statements) > 1:
            self._parents[parent] = execution
        if request_id:
            self._by_request_id[request_id] = execution
        return execution

    def _new_handle(self) -> str:
        n = next(self._ids)
        return f"01b{n:05x}-0000-4f2a-0000-{n:012x}"

    def _cancel(self, statements: list[SnowflakeStatement]) -> tuple[int, dict[str, Any]]:
        now = self.clock()
        for statement in statements:
            self.cancels.append(statement.handle)
            statement.advance(now)
            if statement.state == RUNNING:
                statement.state, statement.ended = CANCELLED, now
        handle = statements[0].handle
        return 200, {
            "code": "000000",
            "sqlState": "00000",
            "message": "successfully canceled",
            "statementHandle": handle,
            "statementStatusUrl": f"/api/v2/statements/{handle}",
        }

    def _parent_answer(self, execution: SnowflakeRequest, *, cancel: bool) -> tuple[int, dict[str, Any]]:
        if cancel:
            return self._cancel(execution.statements)
        now = self.clock()
        for statement in execution.statements:
            statement.advance(now)
        if execution.state == RUNNING:
            return 202, execution.submit_answer()[1]
        failed = next((s for s in execution.statements if s.state != SUCCESS), None)
        if failed is not None:
            return failed.answer("")
        return 200, {
            "code": "090001",
            "sqlState": "00000",
            "message": "Statement executed successfully.",
            "statementHandle": execution.handle,
            "statementHandles": [s.handle for s in execution.statements],
            "data": [["Multiple statements executed successfully."]],
        }

    # ------------------------------------------------------------- what tests assert on
    def executed_request_ids(self) -> list[str | None]:
        return [execution.request_id for execution in self.executions]

    def running_handles(self) -> list[str]:
        with self._lock:
            return [h for h, s in self.statements.items() if s.state == RUNNING]
