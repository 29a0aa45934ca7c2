"""What the two Databricks operators share: one run id, followed the same way on every path.

Both operators start a Databricks run (``runs/submit`` or ``run-now``) and then wait for it the
same way - the run id is the external id, ``runs/get`` is the status, ``runs/cancel`` is
``cancel_job`` (called under the mixin's job-lifecycle rule), :class:`DatabricksExecutionTrigger` is the deferral. So everything except building
and starting the run lives here, once.
"""

from __future__ import annotations

import copy
import json as json_lib
import time
from abc import abstractmethod
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, JobNotFoundError, ResumableJobMixin
from resumable_jobs.providers.common import default_deferrable, push_xcom
from resumable_jobs.providers.databricks import payload, status
from resumable_jobs.providers.databricks.links import (
    XCOM_RUN_ID_KEY,
    XCOM_RUN_PAGE_URL_KEY,
    DatabricksRunPageLink,
)
from resumable_jobs.providers.databricks.tokens import idempotency_token_for

if TYPE_CHECKING:
    from airflow.providers.databricks.hooks.databricks import DatabricksHook
    from airflow.providers.databricks.triggers.databricks import (
        DatabricksExecutionTrigger,
    )
    from airflow.sdk import Context

__all__ = ["DatabricksRunOperatorBase"]


class DatabricksRunOperatorBase(ResumableJobMixin, BaseOperator):
    """Base of the crash-safe Databricks operators: follow one run id through every mode.

    What it is for: the part of :class:`DatabricksSubmitRunOperator` and
    :class:`DatabricksRunNowOperator` that does not depend on how the run is started - status
    mapping, polling, deferral to the upstream ``DatabricksExecutionTrigger``, the trigger's
    event, XComs and the extra link, cancellation, and the ``idempotency_token`` that closes the
    window between the POST returning and the run id being persisted.

    How it works: the mixin decides whether this try starts a run, reconnects or returns a
    finished run's result. A subclass builds the request body (:meth:`_request_body`, no network)
    and starts the run (:meth:`_start_run`); :meth:`submit_job` adds the idempotency token of this
    submission generation. ``runs/get`` answers the status (a 404 is "not found": the retry
    starts a new run). ``run_id`` and ``run_page_url`` go to XCom as soon as the run is known, on
    every path. A successful task returns the run id.

    What it does not do: it never cancels a run it reconnects to, it does not start a run when
    one of the same request is still active, and it does not search Databricks for runs: the
    submission window is closed by Databricks' own deduplication of ``idempotency_token``.
    """

    external_id_key: ClassVar[str] = "databricks_run_id"
    external_id_xcom_key: ClassVar[str] = XCOM_RUN_ID_KEY  # upstream's XCom key
    template_ext = (".json-tpl",)
    ui_color = "#1CB1C2"
    ui_fgcolor = "#fff"
    operator_extra_links = (DatabricksRunPageLink(),)

    poll_interval_parameters: ClassVar[tuple[str, ...]] = ("polling_period_seconds",)

    #: Reported to Databricks in the user agent.
    hook_caller: ClassVar[str] = "DatabricksRunOperator"

    def __init__(
        self,
        *,
        idempotency_token: str | None = None,
        databricks_conn_id: str = "databricks_default",
        polling_period_seconds: int = 30,
        databricks_retry_limit: int = 3,
        databricks_retry_delay: float = 1,
        databricks_retry_args: dict[Any, Any] | None = None,
        wait_for_termination: bool = True,
        deferrable: bool | None = None,
        do_xcom_push: bool = True,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        # Named, as upstream's signature names it; BaseOperator's meaning: False keeps the run id,
        # page URL and return value out of XCom.
        super().__init__(
            durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, do_xcom_push=do_xcom_push, **kwargs
        )
        self.idempotency_token = idempotency_token
        self.databricks_conn_id = databricks_conn_id
        self.polling_period_seconds = polling_period_seconds
        self.databricks_retry_limit = databricks_retry_limit
        self.databricks_retry_delay = databricks_retry_delay
        self.databricks_retry_args = databricks_retry_args
        self.wait_for_termination = wait_for_termination
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        #: The run this try follows (upstream's attribute name).
        self.run_id: int | None = None
        self._run_page_urls: dict[Any, str] = {}

    # ----------------------------------------------------------------- subclass hooks
    @abstractmethod
    def _request_body(self, context: Context) -> dict[str, Any]:
        """The rendered, normalised request body, built without calling Databricks."""

    @abstractmethod
    def _start_run(self, body: dict[str, Any], context: Context) -> int:
        """Start the run described by ``body`` (it already carries the idempotency token)."""

    def _repair_failed_run(self, run_id: Any, run_info: dict[str, Any], context: Context) -> bool:
        """Sync path: try to repair a failed run; True when it was repaired and polling goes on."""
        return False

    def _repair_after_deferral(self, run_id: Any, event: dict[str, Any], context: Context) -> bool:
        """Deferrable path: repair a failed run and defer again; True when it did."""
        return False

    def _trigger_repair_flag(self) -> bool:
        return False

    # ----------------------------------------------------------------- plumbing
    @cached_property
    def hook(self) -> DatabricksHook:
        from airflow.providers.databricks.hooks.databricks import DatabricksHook

        return DatabricksHook(
            self.databricks_conn_id,
            retry_limit=self.databricks_retry_limit,
            retry_delay=self.databricks_retry_delay,
            retry_args=self.databricks_retry_args,
            caller=self.hook_caller,
        )

    @staticmethod
    def _normalised(body: dict[str, Any]) -> dict[str, Any]:
        from airflow.providers.databricks.utils.databricks import normalise_json_content

        return normalise_json_content(copy.deepcopy(body))  # type: ignore[return-value]

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the mixin's contract
    def request_fingerprint(self, context: Context) -> str | None:
        return payload.fingerprint(self._request_body(context))

    def submit_job(self, context: Context) -> int:
        body = self._request_body(context)
        user_token = self.idempotency_token or payload.coerce_mapping(getattr(self, "json", None)).get(
            "idempotency_token"
        )
        token = idempotency_token_for(user_token, self.submission_token, self.submission_generation)
        if token:
            body["idempotency_token"] = token
        run_id = self._start_run(body, context)
        self.run_id = run_id
        self.log.info("Started Databricks run %s (idempotency_token %s)", run_id, token)
        return run_id

    def get_job_status(self, external_id: Any, context: Context) -> str:
        from airflow.providers.databricks.exceptions import DatabricksApiError

        try:
            run_info = self.hook.get_run(external_id)
        except DatabricksApiError as err:
            if getattr(err, "http_status_code", None) == 404:
                raise JobNotFoundError(
                    external_id,
                    "Databricks answered 404 (run history expired or deleted)",
                ) from err
            raise
        self._remember_page_url(external_id, run_info.get("run_page_url"))
        return status.status_of(run_info.get("state"))

    def is_job_active(self, status_string: str) -> bool:
        return status.is_active(status_string)

    def is_job_succeeded(self, status_string: str) -> bool:
        return status.is_succeeded(status_string)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        while True:
            run_info = self.hook.get_run(external_id)
            self._remember_page_url(external_id, run_info.get("run_page_url"))
            state = run_info.get("state") or {}
            current = status.status_of(state)
            if status.is_active(current):
                self.log.info(
                    "Databricks run %s is %s; checking again in %s s",
                    external_id,
                    current,
                    self.polling_period_seconds,
                )
                time.sleep(self.polling_period_seconds)
                continue
            if status.is_succeeded(current):
                self.log.info("Databricks run %s succeeded", external_id)
                return
            if self._repair_failed_run(external_id, run_info, context):
                continue
            raise ExternalJobFailed(
                status.failure_message(external_id, state, self._failed_task_errors(run_info, state))
            )

    def get_job_result(self, external_id: Any, context: Context) -> Any:
        return external_id

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        self.run_id = external_id
        url = self._run_page_url(external_id)
        if url:
            self.log.info("Databricks run %s: %s", external_id, url)
        if self.do_xcom_push:  # the run id itself goes to XCOM_RUN_ID_KEY through the mixin
            push_xcom(context, XCOM_RUN_PAGE_URL_KEY, url)

    def build_trigger(self, external_id: Any, context: Context) -> DatabricksExecutionTrigger:
        return self._trigger(external_id, repair_run=self._trigger_repair_flag())

    def _trigger(self, run_id: Any, *, repair_run: bool) -> DatabricksExecutionTrigger:
        from airflow.providers.databricks.triggers.databricks import (
            DatabricksExecutionTrigger,
        )

        return DatabricksExecutionTrigger(
            run_id=run_id,
            databricks_conn_id=self.databricks_conn_id,
            polling_period_seconds=self.polling_period_seconds,
            retry_limit=self.databricks_retry_limit,
            retry_delay=self.databricks_retry_delay,
            retry_args=self.databricks_retry_args,
            run_page_url=self._run_page_urls.get(run_id),
            repair_run=repair_run,
            caller=self.hook_caller,
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Resume from ``DatabricksExecutionTrigger``'s event (or the mixin's own event shape)."""
        if not isinstance(event, dict) or "run_state" not in event:
            return super().execute_complete(context, event)
        run_id = event.get("run_id")
        self._remember_page_url(run_id, event.get("run_page_url"))
        state = json_lib.loads(event["run_state"]) if isinstance(event["run_state"], str) else event["run_state"]
        if status.is_succeeded(status.status_of(state)):
            return super().execute_complete(
                context,
                {
                    "status": "success",
                    "external_id": run_id,
                    "message": "run succeeded",
                },
            )
        if self._repair_after_deferral(run_id, event, context):
            return None  # pragma: no cover - _repair_after_deferral defers (raises TaskDeferred)
        message = status.failure_message(run_id, state, event.get("errors") or ())
        return super().execute_complete(context, {"status": "error", "external_id": run_id, "message": message})

    def cancel_job(self, external_id: Any, context: Context) -> None:
        self.hook.cancel_run(external_id)
        self.log.info("Asked Databricks to cancel run %s", external_id)

    # ----------------------------------------------------------------- helpers
    def _remember_page_url(self, run_id: Any, url: str | None) -> None:
        if run_id is not None and url:
            self._run_page_urls[run_id] = url

    def _run_page_url(self, run_id: Any) -> str | None:
        if run_id not in self._run_page_urls:
            try:
                self._remember_page_url(run_id, self.hook.get_run_page_url(run_id))
            except Exception as err:  # noqa: BLE001 - a missing link must not fail a task whose run is known
                self.log.warning("Could not read the page URL of Databricks run %s: %s", run_id, err)
        return self._run_page_urls.get(run_id)

    def _failed_task_errors(self, run_info: dict[str, Any], state: dict[str, Any]) -> list[dict[str, Any]]:
        from airflow.providers.databricks.hooks.databricks import RunState
        from airflow.providers.databricks.utils.databricks import (
            extract_failed_task_errors,
        )

        if state.get("life_cycle_state") not in RunState.RUN_LIFE_CYCLE_STATES:
            return []  # a state this provider version does not know: the run's own message is reported
        return extract_failed_task_errors(self.hook, run_info, RunState(**state))

    def _params_to_forward(self) -> dict[str, Any]:
        return payload.forwardable_params(getattr(self, "params", None))
