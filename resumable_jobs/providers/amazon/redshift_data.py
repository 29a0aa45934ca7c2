"""``RedshiftDataOperator``: run SQL through the Redshift Data API; a retry never runs it twice.

What it is for: a drop-in replacement for the Amazon provider's ``RedshiftDataOperator`` (same
parameters, template fields and return value) whose retries never start a second statement for
one task instance - whether the worker died while submitting, while polling, before deferring or
while the trigger waited - on the synchronous, deferrable and submit-only paths alike.

How it works: it implements the resumable contract with the Amazon provider's
``RedshiftDataHook`` (its boto3 client) and, to wait deferred, this package's
``RedshiftDataStatementTrigger`` (one shared aiobotocore client per triggerer loop), both imported
inside methods, so parsing a DAG pulls in neither boto3 nor the provider. ExecuteStatement (a
string ``sql``) or BatchExecuteStatement (a list) carries the mixin's ``submission_token`` as ``ClientToken``: a
retry whose predecessor died between the call and the id being persisted sends the same request
with the same token, and the Data API answers with the statement it already started instead of
starting another. Statuses map as in :mod:`resumable_jobs.providers.amazon.redshift_status`.

What it does not do: it does not subclass or import upstream's operator. It does not page through
``GetStatementResult`` (upstream returns each statement's first page, and so does this). Below
Airflow 3.3 there is no store: every try submits with a token of its own (see the shim).
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
import warnings
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, ResumableJobMixin
from resumable_jobs.mixin.parameters import flag, owner_of
from resumable_jobs.providers.amazon import aws_parameters as aws
from resumable_jobs.providers.amazon import redshift_status as status
from resumable_jobs.providers.common import default_deferrable, push_xcom

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.redshift_data import RedshiftDataHook
    from airflow.sdk import Context

    from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

__all__ = ["RedshiftDataOperator"]

#: XCom key of the session id, when the Data API returns one (upstream's key).
SESSION_ID_XCOM_KEY = "session_id"
#: The longest a session may be kept alive (the API reference: 24 hours).
MAX_SESSION_KEEP_ALIVE_SECONDS = 86400
_TARGETS = ("cluster_identifier", "workgroup_name", "session_id")


class RedshiftDataOperator(ResumableJobMixin, BaseOperator):
    """Run SQL on Amazon Redshift through the Data API; a retry reconnects instead of running it again.

    What it is for: the Amazon provider's ``RedshiftDataOperator`` parameters and return value (a
    list: the statement id - the sub-statement ids for a list of SQL - or, with
    ``return_sql_result=True``, each statement's ``GetStatementResult`` answer), plus the common
    model of this package: ``durable``, ``deferrable``, ``wait_for_termination``
    (``wait_for_completion`` is accepted as its upstream name) and ``cancel_on_worker_shutdown``.

    How it works: ``execute`` lets the mixin decide per try - submit (with the submission token as
    ``ClientToken``), reconnect to the stored statement while it is SUBMITTED, PICKED or STARTED,
    return its result if it FINISHED, or submit a new generation (a new token) if it FAILED, was
    ABORTED or the Data API no longer knows it. It then polls DescribeStatement every
    ``poll_interval`` seconds, defers to ``RedshiftDataStatementTrigger`` (this package's), or
    returns the statement ids without waiting. The statement id goes to XCom under
    ``redshift_statement_id`` on every path, and the session id under ``session_id`` when the
    Data API returns one, as upstream pushes it.

    What it does not do: fail over to another statement when one FAILED within a try (the task
    fails with the Data API's error message and Airflow's retry submits the next generation), or
    return rows without waiting: ``return_sql_result=True`` with ``wait_for_termination=False``
    returns the statement ids (there is no result yet), with a warning at construction.
    """

    external_id_key = "redshift_statement_id"
    poll_interval_parameters = ("poll_interval",)

    # Upstream's fields (the AWS connection ones included), in upstream's alphabetical order.
    template_fields: Sequence[str] = (
        "aws_conn_id",
        "cluster_identifier",
        "database",
        "db_user",
        "parameters",
        "region_name",
        "session_id",
        "sql",
        "statement_name",
        "verify",
        "workgroup_name",
    )
    template_ext: Sequence[str] = (".sql",)
    template_fields_renderers: ClassVar[dict[str, str]] = {"sql": "sql"}

    def __init__(
        self,
        sql: str | list,
        database: str | None = None,
        cluster_identifier: str | None = None,
        db_user: str | None = None,
        parameters: list | None = None,
        secret_arn: str | None = None,
        statement_name: str | None = None,
        with_event: bool = False,
        wait_for_completion: bool | None = None,
        poll_interval: int = 10,
        return_sql_result: bool = False,
        workgroup_name: str | None = None,
        deferrable: bool | None = None,
        session_id: str | None = None,
        session_keep_alive_seconds: int | None = None,
        cancel_on_kill: bool = True,
        durable: bool | None = None,
        *,
        wait_for_termination: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        aws_conn_id: str | None = "aws_default",
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: dict | None = None,
        region: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        owner = owner_of(self)
        self.sql = _checked_sql(sql, owner=owner)
        self.database = database
        self.cluster_identifier = cluster_identifier
        self.workgroup_name = workgroup_name
        self.db_user = db_user
        self.parameters = parameters
        self.secret_arn = secret_arn
        self.statement_name = statement_name
        self.with_event = _bool("with_event", with_event, False, owner=owner)
        self.wait_for_termination = aws.resolve_wait(wait_for_termination, wait_for_completion, owner=owner)
        self.poll_interval = poll_interval
        self.return_sql_result = _bool("return_sql_result", return_sql_result, False, owner=owner)
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.session_id = session_id
        self.session_keep_alive_seconds = _checked_keep_alive(session_keep_alive_seconds, owner=owner)
        self.cancel_on_kill = _bool("cancel_on_kill", cancel_on_kill, True, owner=owner)
        aws.set_connection(self, aws_conn_id, region_name, verify, botocore_config, region=region, owner=owner)
        given = [name for name in _TARGETS if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(
                f"{owner}: give exactly one of cluster_identifier, workgroup_name or session_id (where the "
                f"SQL runs); got {', '.join(given) if given else 'none of them'}"
            )
        if self.return_sql_result and self.wait_for_termination is False:
            warnings.warn(
                f"{owner}: return_sql_result=True with wait_for_completion=False returns the statement ids: "
                "there is no result before the statement finished. Wait for it, or read the result downstream.",
                UserWarning,
                stacklevel=3,
            )

    #: Upstream's name for ``wait_for_termination``: one value under both names.
    wait_for_completion = aws.UpstreamWaitFlag()

    @cached_property
    def hook(self) -> RedshiftDataHook:
        from airflow.providers.amazon.aws.hooks.redshift_data import RedshiftDataHook

        return RedshiftDataHook(**aws.hook_kwargs(self))

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    def get_submit_only_result(self, external_id: Any, context: Context) -> list[str]:
        """Upstream returns the statement ids (a list) without waiting too: for a batch, each sub-statement's."""
        return status.statement_ids(status.describe_statement(self.hook.conn, external_id))

    # ----------------------------------------------------------------- the request
    def statement_request(self) -> dict[str, Any]:
        """The (Batch)ExecuteStatement arguments of this rendered task, without ``ClientToken``."""
        request: dict[str, Any] = {
            "ClusterIdentifier": self.cluster_identifier,
            "WorkgroupName": self.workgroup_name,
            "SessionId": self.session_id,
            "Database": self.database,
            "DbUser": self.db_user,
            "SecretArn": self.secret_arn,
            "Parameters": self.parameters,
            "StatementName": self.statement_name,
            "WithEvent": self.with_event,
            "SessionKeepAliveSeconds": self.session_keep_alive_seconds,
        }
        if isinstance(self.sql, str):
            request["Sql"] = self.sql
        else:
            request["Sqls"] = list(self.sql)
        return {key: value for key, value in request.items() if value is not None}

    def request_fingerprint(self, context: Context) -> str | None:
        payload = json.dumps(self.statement_request(), sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> str:
        request = self.statement_request()
        self._check_rendered_session_id()
        if self.submission_token:
            request["ClientToken"] = self.submission_token
        batch = "Sqls" in request
        self.log.info(
            "Running %s through the Redshift Data API on %s",
            f"a batch of {len(request['Sqls'])} statements" if batch else "a statement",
            self._target(),
        )
        client = self.hook.conn
        answer = client.batch_execute_statement(**request) if batch else client.execute_statement(**request)
        statement_id = answer["Id"]
        self.statement_id = statement_id
        if answer.get("SessionId"):
            push_xcom(context, SESSION_ID_XCOM_KEY, answer["SessionId"])
        self._send_lineage(statement_id, answer)
        return statement_id

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return status.describe_statement(self.hook.conn, external_id)["Status"]

    def is_job_active(self, job_status: str) -> bool:
        return status.is_active(job_status)

    def is_job_succeeded(self, job_status: str) -> bool:
        return status.is_succeeded(job_status)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        last_status = None
        while True:
            description = status.describe_statement(self.hook.conn, external_id)
            current = description.get("Status")
            if current != last_status:
                self.log.info("Redshift Data statement %s is %s", external_id, current)
                last_status = current
            if not status.is_active(current):
                break
            time.sleep(self.poll_interval)
        if not status.is_succeeded(current):
            raise ExternalJobFailed(status.failure_summary(description))
        if (description.get("ResultRows") or -1) >= 0:
            self.log.info("Redshift Data statement %s processed %s rows", external_id, description["ResultRows"])

    def get_job_result(self, external_id: Any, context: Context) -> list[Any]:
        """What upstream returns: the statement ids, or each statement's result with ``return_sql_result``."""
        return self.get_sql_results(statement_id=external_id, return_sql_result=self.return_sql_result)

    def get_sql_results(self, statement_id: str, return_sql_result: bool) -> list[Any]:
        """The statement ids of a FINISHED statement (sub-statements for a batch), or their results."""
        description = status.describe_statement(self.hook.conn, statement_id)
        if not status.is_succeeded(description.get("Status")):
            raise ExternalJobFailed(status.failure_summary(description))
        ids = status.statement_ids(description)
        if not return_sql_result:
            return ids
        results = [self.hook.conn.get_statement_result(Id=each) for each in ids]
        self.log.debug("Statement result(s): %s", results)
        return results

    def build_trigger(self, external_id: Any, context: Context) -> RedshiftDataStatementTrigger:
        from resumable_jobs.providers.amazon.redshift_trigger import RedshiftDataStatementTrigger

        return RedshiftDataStatementTrigger(
            statement_id=external_id,
            poll_interval=self.poll_interval,
            cancel_on_kill=self.cancel_on_kill,
            **aws.trigger_kwargs(self),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Finish from our trigger's event, or from upstream's ``RedshiftDataTrigger``'s, translated.

        Upstream's event (``status``, ``statement_id``, ``message``) comes from a task deferred
        before the upgrade to our trigger.
        """
        event = aws.translate_trigger_event(event, "statement_id", "statement finished", self._trigger_error_message)
        return super().execute_complete(context, event)

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        self.statement_id = external_id
        if context.get("ti") is None:
            return
        try:
            session = status.describe_statement(self.hook.conn, external_id).get("SessionId")
        except Exception as error:  # noqa: BLE001 - the session id is a convenience: never fail the task over it
            self.log.warning("Could not read the session of Redshift Data statement %s: %s", external_id, error)
            return
        if session:
            push_xcom(context, SESSION_ID_XCOM_KEY, session)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        answer = self.hook.conn.cancel_statement(Id=external_id)
        self.log.info("Cancelled Redshift Data statement %s: %s", external_id, answer.get("Status"))

    def _cancellation_disabled_reason(self) -> str | None:
        # Upstream's meaning: with cancel_on_kill=False the statement is never cancelled.
        return None if self.cancel_on_kill else "cancel_on_kill=False"

    # ----------------------------------------------------------------- helpers
    def _target(self) -> str:
        if self.cluster_identifier is not None:
            return f"cluster {self.cluster_identifier!r}"
        if self.workgroup_name is not None:
            return f"workgroup {self.workgroup_name!r}"
        return f"session {self.session_id!r}"

    def _check_rendered_session_id(self) -> None:
        if self.session_id is None:
            return
        try:
            valid = uuid.UUID(str(self.session_id)).version == 4
        except ValueError:
            valid = False
        if not valid:
            raise ValueError(f"{owner_of(self)}: session_id must be a UUID4 (rendered: {self.session_id!r})")

    def _send_lineage(self, statement_id: str, answer: dict[str, Any]) -> None:
        """The SQL hook lineage upstream's ``RedshiftDataHook.execute_query`` sends (same call)."""
        try:
            from airflow.providers.common.sql.hooks.lineage import send_sql_hook_lineage

            send_sql_hook_lineage(
                context=self.hook,
                sql="; ".join(self.sql) if isinstance(self.sql, list) else self.sql,
                sql_parameters=self.parameters or None,
                job_id=statement_id,
                default_db=self.database,
                extra={
                    "cluster_identifier": self.cluster_identifier,
                    "workgroup_name": self.workgroup_name,
                    "session_id": self.session_id or answer.get("SessionId"),
                },
            )
        except Exception as error:  # noqa: BLE001 - lineage must never fail a statement that already runs
            self.log.debug("No SQL hook lineage for Redshift Data statement %s: %s", statement_id, error)

    def _trigger_error_message(self, statement_id: str, trigger_message: Any) -> str:
        """The statement's own error when it FAILED or was ABORTED; otherwise the trigger's message."""
        try:
            description = status.describe_statement(self.hook.conn, statement_id)
        except Exception as error:  # noqa: BLE001 - the trigger's message is still worth raising
            return f"{trigger_message} (and the statement could not be described: {error})"
        if not status.is_active(description.get("Status")) and not status.is_succeeded(description.get("Status")):
            return status.failure_summary(description)
        return f"{trigger_message} (statement status now {description.get('Status')})"


def _bool(name: str, value: Any, default: bool, *, owner: str) -> bool:
    return flag(name, value, default=lambda: default, default_text=str(default), owner=owner)


def _checked_sql(sql: Any, *, owner: str) -> str | list[str]:
    if isinstance(sql, str):
        if not sql.strip():
            raise ValueError(f"{owner}: sql is empty")
        return sql
    if isinstance(sql, list | tuple) and sql and all(isinstance(each, str) for each in sql):
        return list(sql)
    raise TypeError(f"{owner}: sql must be a SQL string or a non-empty list of SQL strings, got {sql!r}")


def _checked_keep_alive(seconds: Any, *, owner: str) -> int | None:
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int):
        raise TypeError(f"{owner}: session_keep_alive_seconds must be a whole number of seconds, got {seconds!r}")
    if not 0 <= seconds <= MAX_SESSION_KEEP_ALIVE_SECONDS:
        raise ValueError(
            f"{owner}: session_keep_alive_seconds must be between 0 and {MAX_SESSION_KEEP_ALIVE_SECONDS} "
            f"(24 hours), got {seconds}"
        )
    return seconds
