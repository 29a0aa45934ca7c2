"""``SnowflakeSqlApiOperator``: SQL statements through the Snowflake SQL API, crash-safe."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, JobNotFoundError, ResumableJobMixin
from resumable_jobs.mixin.parameters import flag, owner_of
from resumable_jobs.providers.snowflake import status
from resumable_jobs.providers.snowflake.request_ids import request_id_for

if TYPE_CHECKING:
    from airflow.providers.snowflake.hooks.snowflake_sql_api import SnowflakeSqlApiHook
    from airflow.sdk import Context

    from resumable_jobs.providers.snowflake.trigger import SnowflakeStatementsTrigger

__all__ = ["SnowflakeSqlApiOperator"]

#: XCom key of the statement handles: upstream's, so downstream tasks keep pulling it.
XCOM_QUERY_IDS_KEY = "query_ids"
#: Parameters whose values go to the hook (upstream's ``hook_params``), in upstream's order.
_HOOK_FIELDS = ("warehouse", "database", "role", "schema", "authenticator", "session_parameters")


class SnowflakeSqlApiOperator(ResumableJobMixin, BaseOperator):
    """Run SQL statements through the Snowflake SQL API; a retry after a crash follows the same statements.

    What it is for: a drop-in for ``airflow.providers.snowflake.operators.snowflake.
    SnowflakeSqlApiOperator`` - same parameters, defaults and template fields - whose retries
    never run the statements a second time: not on the synchronous path, not on the deferrable
    path, not with ``wait_for_termination=False``, and not when the worker died between
    Snowflake accepting the request and the statement handles being saved.

    How it works: the mixin persists a submission generation before the POST and the statement
    handles after it, under ``snowflake_query_ids`` (upstream's key and shape: the list of
    handles, so a task switched from upstream mid-retries reconnects). The POST carries a
    ``requestId`` derived from the generation's token; a retry that lost the handles resubmits
    with the same ``requestId`` and ``retry=true``, and Snowflake answers with the first
    request's handles instead of running the statements again. The statements are followed by
    ``GET /api/v2/statements/{handle}`` (202 running, 200 done, 422 failed), or by upstream's
    ``SnowflakeSqlApiTrigger`` when ``deferrable=True`` (:class:`SnowflakeStatementsTrigger`: the
    same trigger with its header building moved off the event loop). The task returns the handles and pushes
    them to XCom under ``query_ids`` (as upstream does) on every path; like upstream, the
    statements' results are logged. ``cancel_job`` cancels every handle still running, under the
    mixin's job-lifecycle rule. Extra parameters: ``durable``, ``wait_for_termination``,
    ``cancel_on_worker_shutdown``; ``deferrable`` defaults to ``[operators] default_deferrable``.

    What it does not do: it does not use ``autocommit``, ``handler``, ``parameters`` and the
    other ``SQLExecuteQueryOperator`` parameters its signature accepts (neither does upstream's
    SQL API path); it offers no extra link (a Snowsight query page needs the organization name,
    which the connection does not hold); it does not reconnect to statements of a request that
    changed between retries (the changed SQL runs, with a warning).
    """

    LIFETIME: ClassVar[timedelta] = timedelta(minutes=59)
    RENEWAL_DELTA: ClassVar[timedelta] = timedelta(minutes=54)

    external_id_key: ClassVar[str] = "snowflake_query_ids"
    external_id_xcom_key: ClassVar[str] = XCOM_QUERY_IDS_KEY
    template_fields = ("sql", "parameters", "hook_params", "database", "conn_id", "snowflake_conn_id")
    template_ext = (".sql", ".json")
    template_fields_renderers: ClassVar[dict[str, str]] = {"sql": "sql", "parameters": "json"}
    conn_id_field = "snowflake_conn_id"
    ui_color = "#cdaaed"
    ui_fgcolor = "#000"
    poll_interval_parameters: ClassVar[tuple[str, ...]] = ("poll_interval",)

    def __init__(
        self,
        *,
        sql: str,
        snowflake_conn_id: str = "snowflake_default",
        warehouse: str | None = None,
        database: str | None = None,
        role: str | None = None,
        schema: str | None = None,
        authenticator: str | None = None,
        session_parameters: dict[str, Any] | None = None,
        poll_interval: int = 5,
        statement_count: int = 0,
        token_life_time: timedelta = LIFETIME,
        token_renewal_delta: timedelta = RENEWAL_DELTA,
        bindings: dict[str, Any] | None = None,
        timeout: int | None = None,
        deferrable: bool | None = None,
        snowflake_api_retry_args: dict[str, Any] | None = None,
        durable: bool | None = None,
        cancel_on_kill: bool = True,
        wait_for_termination: bool = True,
        cancel_on_worker_shutdown: bool | None = None,
        autocommit: bool = False,
        parameters: Any = None,
        handler: Any = None,
        output_processor: Any = None,
        conn_id: str | None = None,
        split_statements: bool | None = None,
        return_last: bool = True,
        show_return_value_in_logs: bool = False,
        requires_result_fetch: bool = False,
        hook_params: dict[str, Any] | None = None,
        retry_on_failure: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        owner = owner_of(self)
        self.sql = _checked_sql(sql, owner)
        self.snowflake_conn_id = snowflake_conn_id
        self.conn_id = conn_id or snowflake_conn_id
        self.warehouse = warehouse
        self.database = database
        self.role = role
        self.schema = schema
        self.authenticator = authenticator
        self.session_parameters = session_parameters
        self.poll_interval = poll_interval
        self.statement_count = _checked_count(statement_count, owner)
        self.token_life_time = _checked_delta("token_life_time", token_life_time, owner)
        self.token_renewal_delta = _checked_delta("token_renewal_delta", token_renewal_delta, owner)
        if bindings is not None and not isinstance(bindings, dict):
            raise TypeError(f"{owner}: bindings must be a dict or None, got {bindings!r} ({type(bindings).__name__})")
        self.bindings = bindings
        self.timeout = _checked_timeout(timeout, owner)
        self.deferrable = deferrable
        self.snowflake_api_retry_args = snowflake_api_retry_args or {}
        self.cancel_on_kill = flag(
            "cancel_on_kill", cancel_on_kill, default=lambda: True, default_text="True", owner=owner
        )
        self.wait_for_termination = wait_for_termination
        # Accepted for drop-in compatibility; upstream's SQL API path does not use them either.
        self.autocommit = autocommit
        self.parameters = parameters
        self.handler = handler
        self.output_processor = output_processor
        self.split_statements = split_statements
        self.return_last = return_last
        self.show_return_value_in_logs = show_return_value_in_logs
        self.requires_result_fetch = requires_result_fetch
        self.hook_params = hook_params or {}
        self.retry_on_failure = retry_on_failure
        #: The statement handles this try follows (upstream's attribute name).
        self.query_ids: list[str] = []
        self._resubmission = False

    # ----------------------------------------------------------------- plumbing
    def _hook_kwargs(self) -> dict[str, Any]:
        named = {name: getattr(self, name) for name in _HOOK_FIELDS if getattr(self, name) is not None}
        return {**named, **dict(self.hook_params or {})}

    @cached_property
    def _hook(self) -> SnowflakeSqlApiHook:
        from resumable_jobs.providers.snowflake.imports import sql_api_hook_class

        return sql_api_hook_class()(
            snowflake_conn_id=self.snowflake_conn_id,
            token_life_time=self.token_life_time,
            token_renewal_delta=self.token_renewal_delta,
            deferrable=self.deferrable,
            api_retry_args=self.snowflake_api_retry_args,
            **self._hook_kwargs(),
        )

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    @staticmethod
    def _handles(external_id: Any) -> list[str]:
        if isinstance(external_id, str):
            return [external_id]
        if isinstance(external_id, list) and external_id and all(isinstance(h, str) for h in external_id):
            return list(external_id)
        raise ValueError(f"a Snowflake job id is a non-empty list of statement handles, got {external_id!r}")

    def _statement_answers(self, handles: list[str]) -> dict[str, dict[str, Any]]:
        """``{handle: {"status": "running" | "success" | "error", "message": ...}}``; 404 -> JobNotFoundError."""
        from requests.exceptions import HTTPError

        answers = {}
        for handle in handles:
            try:
                answers[handle] = self._hook.get_sql_api_query_status(handle)
            except HTTPError as err:
                if err.response is not None and err.response.status_code == 404:
                    raise JobNotFoundError(handles, f"Snowflake does not know statement {handle} (HTTP 404)") from err
                raise
        return answers

    # ----------------------------------------------------------------- the mixin's contract
    def request_fingerprint(self, context: Context) -> str | None:
        return json.dumps(
            {
                "sql": self.sql,
                "statement_count": self.statement_count,
                "bindings": self.bindings,
                "timeout": self.timeout,
                "conn": self.snowflake_conn_id,
                "hook": self._hook_kwargs(),
            },
            sort_keys=True,
            default=str,
        )

    def find_job(self, token: str, context: Context) -> Any:
        """Called when a try of this generation may have reached Snowflake without saving the handles.

        The SQL API cannot be searched by request id; its answer to a resubmission is the lookup.
        So this only notes that the next POST is a resubmission (``retry=true``, same
        ``requestId``): Snowflake then hands back the first request's handles and runs nothing.
        """
        self._resubmission = True
        return None

    def submit_job(self, context: Context) -> list[str]:
        from resumable_jobs.providers.snowflake.submission import submit_statements

        request_id = request_id_for(self.submission_token or "")
        self.log.info("Executing: %s", self.sql)
        handles = submit_statements(
            self._hook,
            sql=self.sql,
            statement_count=self.statement_count,
            bindings=self.bindings,
            timeout=self.timeout,
            request_id=request_id,
            resubmission=self._resubmission,
        )
        self.query_ids = handles
        self.log.info(
            "Snowflake statements %s (requestId %s%s)",
            handles,
            request_id,
            ", resubmitted with retry=true" if self._resubmission else "",
        )
        return handles

    def get_job_status(self, external_id: Any, context: Context) -> str:
        answers = self._statement_answers(self._handles(external_id))
        return status.request_status(answer.get("status", status.RUNNING) for answer in answers.values())

    def is_job_active(self, status_string: str) -> bool:
        return status.is_active(status_string)

    def is_job_succeeded(self, status_string: str) -> bool:
        return status.is_succeeded(status_string)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        handles = self._handles(external_id)
        while True:
            answers = self._statement_answers(handles)
            failed = {h: a for h, a in answers.items() if a.get("status") == status.ERROR}
            if failed:
                raise ExternalJobFailed(status.failure_message(failed))
            running = [h for h, a in answers.items() if status.is_active(str(a.get("status")))]
            if not running:
                self.log.info("Snowflake statements %s succeeded", handles)
                return
            self.log.info("Snowflake statements %s are running; checking again in %s s", running, self.poll_interval)
            time.sleep(self.poll_interval)

    def get_job_result(self, external_id: Any, context: Context) -> list[str]:
        handles = self._handles(external_id)
        self.query_ids = handles
        self._hook.query_ids = handles  # OpenLineage reads the hook's query ids, as upstream's does
        self._hook.check_query_output(handles)  # logs each statement's result, as upstream does
        return handles

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        # The handles themselves go to XCom under "query_ids" through the mixin.
        self.query_ids = self._handles(external_id)

    def build_trigger(self, external_id: Any, context: Context) -> SnowflakeStatementsTrigger:
        from resumable_jobs.providers.snowflake.trigger import SnowflakeStatementsTrigger

        return SnowflakeStatementsTrigger(
            poll_interval=self.poll_interval,
            query_ids=self._handles(external_id),
            snowflake_conn_id=self.snowflake_conn_id,
            token_life_time=self.token_life_time,
            token_renewal_delta=self.token_renewal_delta,
            cancel_on_kill=self.cancel_on_kill,
        )

    def defer(
        self, *, trigger: Any, method_name: str, kwargs: dict[str, Any] | None = None, timeout: Any = None
    ) -> Any:
        """Defer as BaseOperator does, carrying the handles: upstream's error event does not name them."""
        carried = dict(kwargs or {})
        if getattr(trigger, "query_ids", None):
            carried.setdefault("query_ids", list(trigger.query_ids))
        return super().defer(
            trigger=trigger,
            method_name=method_name,
            kwargs=carried,
            timeout=timeout if timeout is not None else self.execution_timeout,
        )

    def execute_complete(
        self, context: Context, event: dict[str, Any] | None = None, query_ids: list[str] | None = None
    ) -> Any:
        """Translate ``SnowflakeSqlApiTrigger``'s event, then finish as the mixin does.

        Upstream fires ``{"status": "success", "statement_query_ids": [...]}`` or ``{"status":
        "error", "message": ...}`` (a failed statement, or the trigger's own failure while the
        statements may still run); the handles of an error come from the deferral's kwargs.
        """
        if isinstance(event, dict) and "external_id" not in event and event.get("status") in ("success", "error"):
            handles = event.get("statement_query_ids") or query_ids
            if event["status"] == "success":
                event = {"status": "success", "external_id": handles, "message": "statements succeeded"}
            else:
                message = event.get("message") or "the trigger reported an error without a message"
                event = {"status": "error", "external_id": handles, "message": f"Snowflake: {message}"}
        return super().execute_complete(context, event)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        """``POST /api/v2/statements/{handle}/cancel`` for every handle still running."""
        handles = self._handles(external_id)
        try:
            answers = self._statement_answers(handles)
        except Exception as err:  # noqa: BLE001 - cannot tell which run: cancel them all
            self.log.warning("Could not read the statements' status before cancelling (%s): cancelling all", err)
            answers = {handle: {"status": status.RUNNING} for handle in handles}
        running = [h for h, a in answers.items() if status.is_active(str(a.get("status")))]
        if running:
            self._hook.cancel_queries(running)
        self.log.info("Asked Snowflake to cancel statements %s (of %s)", running, handles)

    def _cancellation_disabled_reason(self) -> str | None:
        # Upstream's meaning: with cancel_on_kill=False the statements are never cancelled.
        return None if self.cancel_on_kill else "cancel_on_kill=False"


def _checked_sql(sql: Any, owner: str) -> str:
    if not isinstance(sql, str):
        raise TypeError(
            f"{owner}: sql must be a string of one or more statements separated by ';', got {type(sql).__name__}"
        )
    if not sql.strip():
        raise ValueError(f"{owner}: sql is empty")
    return sql


def _checked_count(value: Any, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{owner}: statement_count must be an int >= 0 (0: any number of statements), got {value!r}")
    return value


def _checked_timeout(value: Any, owner: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{owner}: timeout must be None or an int of seconds >= 0 (0: the maximum), got {value!r}")
    return value


def _checked_delta(name: str, value: Any, owner: str) -> timedelta:
    if not isinstance(value, timedelta) or value <= timedelta(0):
        raise ValueError(f"{owner}: {name} must be a positive datetime.timedelta, got {value!r}")
    return value
