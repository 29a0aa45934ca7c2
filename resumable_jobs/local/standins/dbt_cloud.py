"""A dbt Cloud account (API v2, and the v3 lookups the hook makes) that the real ``DbtCloudHook`` talks to.

What it is for: the dbt Cloud operator's tests and the production crash suite need a dbt Cloud that
answers where crash safety depends on it, without an account: triggering a job run records the
run's ``cause`` (the only free text a run carries, which is how the operator finds its own run
again), listing runs filters and orders them the way the hook and the operator ask, an unknown run
answers 404, cancelling ends a run, and a run reports the numeric statuses the hook and the
trigger read.

Where each behaviour comes from:

* the dbt Cloud API v2 reference (dbt-labs/dbt-cloud-openapi-spec, ``openapi-v2.yaml`` and the
  earlier ``openapi-v2-old.yaml``): the endpoints and their paths; ``Authorization: Token <token>``
  (``Bearer`` accepted as well) and 401 without it; ``cause`` required and non-empty on
  "Trigger Job Run"; the run's statuses 1 queued, 2 starting, 3 running, 10 success, 20 error,
  30 cancelled; the run's ``trigger`` (with ``cause``) and ``run_steps`` only when
  ``include_related`` asks for them; List Runs filters (``job_definition_id``, ``status``,
  ``status__in``), ``order_by`` (``id``, ``created_at``, ``finished_at``, ``-`` for reverse) and
  ``limit`` (at most 100) / ``offset``; "Retry Failed Job" (``rerun``) reruns a failed run, else
  triggers a new one; 404 for what the token cannot see;
* apache/airflow#34676 (runs failing for a ``cause`` over 255 characters; the hook's
  ``DBT_CAUSE_MAX_LENGTH``): a longer ``cause`` is refused with 400;
* upstream's ``DbtCloudHook`` itself: list answers carry ``extra.filters.limit`` and
  ``extra.pagination.{count,total_count}`` (its ``_paginate`` reads them); ``status__in`` arrives as
  ``str(list)`` and ``include_related`` as repeated or bracketed values.

Our own choices, not from any reference: the ids (account 4242, project 1, environment 11, jobs
101 ``nightly`` and 102 ``hourly``), the ``href`` format, the cause a ``rerun`` run carries, and how
a run moves on - by default it answers RUNNING for a number of reads (``active_reads``), which
suits in-process tests; with ``hold_seconds`` it stays RUNNING until released
(:meth:`DbtCloudAccount.release`) or until that time passed, which suits separate processes.
Every request is logged with its time (:attr:`DbtCloudAccount.requests`).

How it works: :class:`DbtCloudAccount` answers ``handle(method, path, body)`` and
``authorize(headers)``; the stand-in server (:mod:`resumable_jobs.local.standins.server`) serves it
over TLS, since the hook only builds ``https://`` URLs.

What it does not do: artifacts, job definitions beyond name and ids, permissions per token, rate
limits.
"""

from __future__ import annotations

import ast
import itertools
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

__all__ = [
    "ACCOUNT_ID",
    "API_TOKEN",
    "CAUSE_MAX_LENGTH",
    "JOBS",
    "DbtCloudAccount",
    "DbtCloudRun",
    "run_href",
]

ACCOUNT_ID = 4242
API_TOKEN = "dbtc-rj-local-standin-0000"
CAUSE_MAX_LENGTH = 255
ACTIVE_READS = 3
PROJECT = {"id": 1, "name": "analytics"}
ENVIRONMENT = {"id": 11, "project_id": 1, "name": "production"}
#: job id -> name
JOBS = {101: "nightly", 102: "hourly"}

QUEUED, STARTING, RUNNING, SUCCESS, ERROR, CANCELLED = 1, 2, 3, 10, 20, 30
_HUMAN = {1: "Queued", 2: "Starting", 3: "Running", 10: "Success", 20: "Error", 30: "Cancelled"}
_TERMINAL = (SUCCESS, ERROR, CANCELLED)
_ORDER_FIELDS = ("id", "created_at", "finished_at")
MAX_LIMIT = 100

_V2 = re.compile(r"^/api/v2/accounts/(?:(?P<account>\d+)/(?P<rest>.*))?$")
_V3 = re.compile(r"^/api/v3/accounts/(?P<account>\d+)/(?P<rest>.*)$")


def run_href(project_id: int, run_id: int) -> str:
    return f"https://cloud.getdbt.com/deploy/{ACCOUNT_ID}/projects/{project_id}/runs/{run_id}/"


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, timezone.utc).isoformat()


def _as_list(value: Any) -> list[str]:
    """``include_related`` / ``status__in`` as sent: a list, ``"[1, 2]"``, ``'["trigger"]'`` or ``"trigger"``."""
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    text = str(value).strip()
    if text.startswith("["):
        try:
            return [str(v) for v in ast.literal_eval(text)]
        except (SyntaxError, ValueError):
            return []
    return [part.strip() for part in text.split(",") if part.strip()]


@dataclass
class DbtCloudRun:
    """One run of a job: its trigger, its planned result, and how it moves on."""

    id: int
    job_id: int
    cause: str
    steps_override: list[str] | None = None
    schema_override: str | None = None
    result: int = SUCCESS
    status: int = QUEUED
    active_reads: int = ACTIVE_READS
    hold_until: float | None = None
    released: bool = False
    created: float = 0.0
    finished: float | None = None
    cause_category: str = "api"

    @property
    def active(self) -> bool:
        return self.status not in _TERMINAL

    def advance(self, now: float) -> None:
        if not self.active:
            return
        if self.hold_until is not None:
            if not self.released and now < self.hold_until:
                self.status = RUNNING
                return
        elif self.active_reads > 0:
            self.active_reads -= 1
            self.status = STARTING if self.status == QUEUED else RUNNING
            return
        self.status, self.finished = self.result, now

    def end(self, status: int, now: float) -> None:
        self.status, self.finished = status, now

    def trigger(self) -> dict[str, Any]:
        return {
            "id": self.id + 50000,
            "cause": self.cause,
            "job_definition_id": self.job_id,
            "steps_override": self.steps_override,
            "schema_override": self.schema_override,
            "cause_category": self.cause_category,
        }

    def describe(self, related: list[str] = ()) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "id": self.id,
            "trigger_id": self.id + 50000,
            "account_id": ACCOUNT_ID,
            "project_id": PROJECT["id"],
            "environment_id": ENVIRONMENT["id"],
            "job_definition_id": self.job_id,
            "job_id": self.job_id,
            "status": self.status,
            "status_humanized": _HUMAN[self.status],
            "status_message": "Run failed: model orders failed" if self.status == ERROR else None,
            "in_progress": self.active,
            "is_complete": not self.active,
            "is_success": self.status == SUCCESS,
            "is_error": self.status == ERROR,
            "is_cancelled": self.status == CANCELLED,
            "created_at": _iso(self.created),
            "finished_at": _iso(self.finished),
            "href": run_href(PROJECT["id"], self.id),
        }
        if "trigger" in related:
            answer["trigger"] = self.trigger()
        if "run_steps" in related:
            answer["run_steps"] = [
                {"index": 1, "name": "Clone Git Repository", "status": SUCCESS},
                {"index": 2, "name": "Invoke dbt with `dbt build`", "status": self.status, "logs": "1 of 1 ERROR"},
            ]
        if "job" in related:
            answer["job"] = {"id": self.job_id, "name": JOBS.get(self.job_id)}
        return answer

    def summary(self) -> dict[str, Any]:
        """What the crash suite asserts on."""
        return {
            "id": self.id,
            "job_id": self.job_id,
            "cause": self.cause,
            "state": _HUMAN[self.status].upper(),
            "created": self.created,
            "ended": self.finished,
        }


@dataclass
class DbtCloudAccount:
    """Runs, every request with its time, and the triggers that started runs (see the module docstring)."""

    runs: dict[int, DbtCloudRun] = field(default_factory=dict)
    #: ``(job_id, body)`` of every Trigger Job Run and rerun request, in order.
    triggers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: ``(run_id, ...)`` of every Cancel Run request.
    cancels: list[int] = field(default_factory=list)
    #: ``{"time", "method", "path", "query"}`` of every API request.
    requests: list[dict[str, Any]] = field(default_factory=list)
    fail_next: int = 0  # the next N new runs end ERROR
    active_reads: int = ACTIVE_READS
    hold_seconds: float | None = None
    token: str = API_TOKEN
    clock: Callable[[], float] = time.time
    _ids: Any = field(default_factory=lambda: itertools.count(70001))
    _lock: threading.RLock = field(default_factory=threading.RLock)

    # ------------------------------------------------------------- control surface
    def summaries(self) -> list[dict[str, Any]]:
        with self._lock:
            now = self.clock()
            for run in self.runs.values():
                if run.hold_until is not None:
                    run.advance(now)
            return [run.summary() for run in self.runs.values()]

    def release(self, run_id: Any) -> bool:
        with self._lock:
            run = self.runs.get(int(run_id))
            if run is None:
                return False
            run.released = True
            return True

    # ------------------------------------------------------------- what tests use
    def add_run(self, *, job_id: int = 101, cause: str = "Kicked off from the dbt Cloud UI", **kwargs: Any) -> int:
        """A run somebody else started (the UI, a schedule, another orchestrator)."""
        with self._lock:
            return self._new_run(job_id, {"cause": cause}, **kwargs).id

    def forget(self, run_id: int) -> None:
        self.runs.pop(run_id, None)

    def causes(self) -> list[str]:
        return [body.get("cause") for _, body in self.triggers]

    # ------------------------------------------------------------- the API
    def authorize(self, headers: Mapping[str, str]) -> tuple[int, dict[str, Any]] | None:
        """None when the ``Authorization`` header carries the account's token; else the 401 answer."""
        scheme, _, token = (headers.get("Authorization") or "").partition(" ")
        if scheme in ("Token", "Bearer") and token == self.token:
            return None
        return 401, _status(401, "Invalid token.")

    def handle(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        path = path if path.endswith("/") else path + "/"
        with self._lock:
            self.requests.append({"time": self.clock(), "method": method, "path": path, "query": dict(body)})
            v3 = _V3.match(path)
            if v3:
                return self._v3(method, int(v3["account"]), v3["rest"], body)
            v2 = _V2.match(path)
            if v2 is None:
                return 404, _status(404, f"no endpoint {method} {path}")
            if v2["account"] is None:
                return (200, {"data": [_account()], "status": _status(200)["status"]}) if method == "GET" else _nope()
            if int(v2["account"]) != ACCOUNT_ID:
                return 404, _status(404, "Unauthorized or Not Found.")
            return self._v2(method, v2["rest"], body)

    def _v2(self, method: str, rest: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        parts = [p for p in rest.split("/") if p]
        if not parts and method == "GET":
            return _ok(_account())
        if parts[:1] == ["jobs"]:
            if len(parts) == 1 and method == "GET":
                return _page([_job(i) for i in JOBS if _job_matches(i, body)], body)
            if len(parts) >= 2 and int(parts[1]) not in JOBS:
                return 404, _status(404, "Job not found.")
            if len(parts) == 2 and method == "GET":
                return _ok(_job(int(parts[1])))
            if len(parts) == 3 and parts[2] == "run" and method == "POST":
                return self._trigger(int(parts[1]), body)
            if len(parts) == 3 and parts[2] == "rerun" and method == "POST":
                return self._rerun(int(parts[1]))
        if parts[:1] == ["runs"]:
            if len(parts) == 1 and method == "GET":
                return self._list_runs(body)
            run = self.runs.get(int(parts[1])) if len(parts) >= 2 and parts[1].isdigit() else None
            if run is None:
                return 404, _status(404, "Run not found.")
            if len(parts) == 2 and method == "GET":
                run.advance(self.clock())
                return _ok(run.describe(_as_list(body.get("include_related"))))
            if len(parts) == 3 and parts[2] == "cancel" and method == "POST":
                self.cancels.append(run.id)
                if run.active:
                    run.end(CANCELLED, self.clock())
                return _ok(run.describe())
        return _nope()

    def _v3(self, method: str, account: int, rest: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if account != ACCOUNT_ID or method != "GET":
            return 404, _status(404, "Unauthorized or Not Found.")
        parts = [p for p in rest.split("/") if p]
        wanted = (body.get("name__icontains") or "").lower()
        if parts == ["projects"]:
            return _page([PROJECT] if wanted in PROJECT["name"].lower() else [], body)
        if parts == ["projects", str(PROJECT["id"])]:
            return _ok(PROJECT)
        if parts == ["projects", str(PROJECT["id"]), "environments"]:
            return _page([ENVIRONMENT] if wanted in ENVIRONMENT["name"].lower() else [], body)
        if parts == ["projects", str(PROJECT["id"]), "environments", str(ENVIRONMENT["id"])]:
            return _ok(ENVIRONMENT)
        return 404, _status(404, "Not found.")

    def _new_run(self, job_id: int, body: dict[str, Any], **kwargs: Any) -> DbtCloudRun:
        now = self.clock()
        kwargs.setdefault("active_reads", self.active_reads)
        if self.hold_seconds is not None:
            kwargs.setdefault("hold_until", now + self.hold_seconds)
        run = DbtCloudRun(
            next(self._ids),
            job_id,
            body.get("cause") or "",
            steps_override=body.get("steps_override"),
            schema_override=body.get("schema_override"),
            created=now,
            **kwargs,
        )
        self.runs[run.id] = run
        return run

    def _planned_result(self) -> int:
        if self.fail_next:
            self.fail_next -= 1
            return ERROR
        return SUCCESS

    def _trigger(self, job_id: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        cause = body.get("cause")
        if not isinstance(cause, str) or not cause:
            return 400, _status(400, "cause: This field is required.")
        if len(cause) > CAUSE_MAX_LENGTH:
            return 400, _status(400, f"cause: Ensure this field has no more than {CAUSE_MAX_LENGTH} characters.")
        self.triggers.append((job_id, dict(body)))
        run = self._new_run(job_id, body, result=self._planned_result())
        return _ok(run.describe(["trigger"]))

    def _rerun(self, job_id: int) -> tuple[int, dict[str, Any]]:
        latest = max((r for r in self.runs.values() if r.job_id == job_id), key=lambda r: r.id, default=None)
        if latest is not None and latest.status == ERROR:
            cause = f"Rerun of run {latest.id}"
        else:
            cause = "Triggered by the rerun endpoint"
        self.triggers.append((job_id, {"rerun": True, "cause": cause}))
        run = self._new_run(job_id, {"cause": cause}, result=self._planned_result(), cause_category="rerun")
        return _ok(run.describe(["trigger"]))

    def _list_runs(self, query: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        now = self.clock()
        runs = list(self.runs.values())
        for run in runs:
            if run.hold_until is not None:
                run.advance(now)  # a held run's status moves on with time, not with reads
        if query.get("job_definition_id") not in (None, ""):
            runs = [r for r in runs if r.job_id == int(query["job_definition_id"])]
        if query.get("status") not in (None, ""):
            runs = [r for r in runs if r.status == int(query["status"])]
        statuses = _as_list(query.get("status__in"))
        if statuses:
            runs = [r for r in runs if str(r.status) in statuses]
        order = str(query.get("order_by") or "id")
        name = order.lstrip("-")
        if name not in _ORDER_FIELDS:
            return 400, _status(400, f"order_by: {order!r} is not one of {_ORDER_FIELDS}")
        attribute = {"id": "id", "created_at": "created", "finished_at": "finished"}[name]
        runs.sort(key=lambda r: (getattr(r, attribute) or 0, r.id), reverse=order.startswith("-"))
        related = _as_list(query.get("include_related"))
        return _page([r.describe(related) for r in runs], query)


def _status(code: int, message: str = "Success!") -> dict[str, Any]:
    return {"status": {"code": code, "is_success": code < 400, "user_message": message, "developer_message": ""}}


def _ok(data: Any) -> tuple[int, dict[str, Any]]:
    return 200, {"data": data, **_status(200)}


def _nope() -> tuple[int, dict[str, Any]]:
    return 404, _status(404, "Not found.")


def _page(items: list[dict[str, Any]], query: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    limit = min(int(query.get("limit") or MAX_LIMIT), MAX_LIMIT)
    offset = int(query.get("offset") or 0)
    page = items[offset : offset + limit]
    return 200, {
        "data": page,
        **_status(200),
        "extra": {
            "filters": {"limit": limit, "offset": offset},
            "order_by": query.get("order_by"),
            "pagination": {"count": len(page), "total_count": len(items)},
        },
    }


def _account() -> dict[str, Any]:
    return {"id": ACCOUNT_ID, "name": "Resumable Jobs stand-in", "state": 1, "plan": "enterprise"}


def _job(job_id: int) -> dict[str, Any]:
    return {
        "id": job_id,
        "account_id": ACCOUNT_ID,
        "project_id": PROJECT["id"],
        "environment_id": ENVIRONMENT["id"],
        "name": JOBS[job_id],
        "execute_steps": ["dbt build"],
        "state": 1,
    }


def _job_matches(job_id: int, query: dict[str, Any]) -> bool:
    if query.get("project_id") not in (None, "") and int(query["project_id"]) != PROJECT["id"]:
        return False
    if query.get("environment_id") not in (None, "") and int(query["environment_id"]) != ENVIRONMENT["id"]:
        return False
    return (query.get("name__icontains") or "").lower() in JOBS[job_id].lower()
