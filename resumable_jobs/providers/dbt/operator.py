"""``DbtCloudRunJobOperator``: run a dbt Cloud job; a retry follows the run instead of starting another."""

from __future__ import annotations

import json
import time
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, JobNotFoundError, ResumableJobMixin
from resumable_jobs.mixin.parameters import flag, owner_of, poll_interval
from resumable_jobs.providers.common import default_deferrable, openlineage_default, push_xcom
from resumable_jobs.providers.dbt import cause, status
from resumable_jobs.providers.dbt.links import XCOM_RUN_ID_KEY, XCOM_RUN_URL_KEY, DbtCloudRunJobOperatorLink

if TYPE_CHECKING:
    from airflow.providers.dbt.cloud.hooks.dbt import DbtCloudHook
    from airflow.sdk import Context

    from resumable_jobs.providers.dbt.trigger import DbtCloudRunTrigger

__all__ = ["DbtCloudRunJobOperator"]

#: The events of upstream's ``DbtCloudRunJobTrigger`` that end a run without success.
_FAILED_EVENTS = ("error", "cancelled")


class DbtCloudRunJobOperator(ResumableJobMixin, BaseOperator):
    """Trigger a run of a dbt Cloud job; a retry after a worker crash follows the same run.

    What it is for: a drop-in for ``airflow.providers.dbt.cloud.operators.dbt.DbtCloudRunJobOperator``
    - same parameters, defaults, template fields, extra link and return value (the run id) - whose
    retries never trigger a second run of the job for one task instance: not on the synchronous
    path, not on the deferrable path, not with ``wait_for_termination=False``, and not when the
    worker died between dbt Cloud answering and the run id being saved.

    How it works: the mixin decides per try - trigger a run, reconnect to the stored run while it
    is queued, starting or running, return at once if it succeeded, or trigger a new generation
    after an error, a cancellation or a 404 (store key ``dbt_cloud_run_id``). dbt Cloud has no
    idempotency key, so the run's ``cause`` carries the submission token (appended to
    ``trigger_reason``; :mod:`resumable_jobs.providers.dbt.cause`) and ``find_job`` lists the job's
    newest runs for it. The synchronous path polls "Get run" every ``check_interval`` seconds for
    at most ``timeout`` seconds; the deferrable path hands the stored run to our
    :class:`~resumable_jobs.providers.dbt.trigger.DbtCloudRunTrigger` (upstream's event shape, one
    shared session per triggerer and connection). ``job_run_id`` and ``job_run_url`` go to XCom on every path, as
    upstream pushes them. Extra parameters: ``durable`` and ``cancel_on_worker_shutdown``;
    ``deferrable`` and ``openlineage_inject_parent_job_info`` default to the Airflow options
    upstream reads, read when the operator is built.

    What it does not do: ``reuse_existing_run=True`` keeps upstream's meaning - it follows the
    newest active run of the job, whoever started it - only because the user asked for it; crash
    recovery itself never follows a run it did not start. Runs started through ``rerun``
    (``retry_from_failure=True`` after a failed run) carry no cause, so that one submission's
    window stays open. It does not subclass or import upstream's operator.
    """

    external_id_key: ClassVar[str] = "dbt_cloud_run_id"
    external_id_xcom_key: ClassVar[str] = XCOM_RUN_ID_KEY
    poll_interval_parameters: ClassVar[tuple[str, ...]] = ("check_interval",)

    template_fields = (
        "dbt_cloud_conn_id",
        "job_id",
        "project_name",
        "environment_name",
        "job_name",
        "account_id",
        "trigger_reason",
        "steps_override",
        "schema_override",
        "additional_run_config",
    )
    operator_extra_links = (DbtCloudRunJobOperatorLink(),)

    def __init__(
        self,
        *,
        dbt_cloud_conn_id: str = "dbt_cloud_default",
        job_id: int | None = None,
        project_name: str | None = None,
        environment_name: str | None = None,
        job_name: str | None = None,
        account_id: int | None = None,
        trigger_reason: str | None = None,
        steps_override: list[str] | None = None,
        schema_override: str | None = None,
        wait_for_termination: bool = True,
        timeout: int = 60 * 60 * 24 * 7,
        check_interval: int = 60,
        additional_run_config: dict[str, Any] | None = None,
        reuse_existing_run: bool = False,
        retry_from_failure: bool = False,
        deferrable: bool | None = None,
        hook_params: dict[str, Any] | None = None,
        openlineage_inject_parent_job_info: bool | None = None,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        owner = owner_of(self)
        self.dbt_cloud_conn_id = dbt_cloud_conn_id
        self.account_id = account_id
        self.job_id = job_id
        self.project_name = project_name
        self.environment_name = environment_name
        self.job_name = job_name
        if job_id is None and not (project_name and environment_name and job_name):
            raise ValueError(
                f"{owner}: give job_id, or all of project_name, environment_name and job_name "
                f"(got project_name={project_name!r}, environment_name={environment_name!r}, job_name={job_name!r})"
            )
        self.trigger_reason = trigger_reason
        self.steps_override = steps_override
        self.schema_override = schema_override
        self.wait_for_termination = wait_for_termination
        self.timeout = poll_interval("timeout", timeout, owner=owner)
        self.check_interval = check_interval
        self.additional_run_config = additional_run_config or {}
        self.reuse_existing_run = flag(
            "reuse_existing_run", reuse_existing_run, default=lambda: False, default_text="False", owner=owner
        )
        self.retry_from_failure = flag(
            "retry_from_failure", retry_from_failure, default=lambda: False, default_text="False", owner=owner
        )
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        if hook_params is not None and not isinstance(hook_params, dict):
            raise TypeError(f"{owner}: hook_params must be a dict of DbtCloudHook arguments, got {hook_params!r}")
        self.hook_params = hook_params or {}
        self.openlineage_inject_parent_job_info = openlineage_default(
            openlineage_inject_parent_job_info, "spark_inject_parent_job_info"
        )
        #: The run this try follows (upstream's attribute name).
        self.run_id: int | None = None
        self._run_urls: dict[Any, str] = {}
        self._resolved_job_id: Any = None

    @cached_property
    def hook(self) -> DbtCloudHook:
        """Upstream's hook (imported when a task runs, never when a DAG is parsed)."""
        from airflow.providers.dbt.cloud.hooks.dbt import DbtCloudHook

        return DbtCloudHook(self.dbt_cloud_conn_id, **self.hook_params)

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the mixin's contract
    def request_fingerprint(self, context: Context) -> str | None:
        # The cause is left out: it only describes the run (and holds the per-try lineage id).
        request = {
            "account_id": self.account_id,
            "job": self.job_id
            if self.job_id is not None
            else [self.project_name, self.environment_name, self.job_name],
            "steps_override": self.steps_override,
            "schema_override": self.schema_override,
            "additional_run_config": self.additional_run_config,
        }
        return json.dumps(request, sort_keys=True, separators=(",", ":"), default=str)

    def submit_job(self, context: Context) -> Any:
        job_id = self._job_id()
        if self.reuse_existing_run:
            active = self._newest_active_run(job_id)
            if active is not None:
                self.log.warning(
                    "reuse_existing_run=True: following dbt Cloud run %s, already active for job %s - "
                    "this task did not start it",
                    active["id"],
                    job_id,
                )
                return self._follow(active)
        ti = context.get("ti")
        is_retry = getattr(ti, "try_number", 1) != 1
        response = self.hook.trigger_job_run(
            account_id=self.account_id,
            job_id=job_id,
            cause=self._cause(context),
            steps_override=self.steps_override,
            schema_override=self.schema_override,
            retry_from_failure=is_retry and self.retry_from_failure,
            additional_run_config=self.additional_run_config,
        )
        run = response.json()["data"]
        self.log.info(
            "Triggered dbt Cloud run %s of job %s (submission token %s)", run["id"], job_id, self.submission_token
        )
        return self._follow(run)

    def find_job(self, token: str, context: Context) -> Any:
        job_id = self._job_id()
        run = cause.find_run_by_token(self.hook, account_id=self.account_id, job_id=job_id, token=token)
        if run is None:
            return None
        self.log.info("dbt Cloud run %s of job %s carries this submission's token %s", run["id"], job_id, token)
        return self._follow(run)

    def get_job_status(self, external_id: Any, context: Context) -> str:
        from airflow.providers.common.compat.sdk import AirflowException

        try:
            run = self.hook.get_job_run(run_id=external_id, account_id=self.account_id).json()["data"]
        except AirflowException as err:
            if _is_not_found(err):
                raise JobNotFoundError(external_id, "dbt Cloud answered 404 (run deleted or not visible)") from err
            raise
        self._remember(run)
        return status.status_name(run.get("status"))

    def is_job_active(self, status_string: str) -> bool:
        return status.is_active(status_string)

    def is_job_succeeded(self, status_string: str) -> bool:
        return status.is_succeeded(status_string)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        from airflow.providers.dbt.cloud.hooks.dbt import DbtCloudJobRunException

        deadline = time.monotonic() + self.timeout
        while True:
            current = self.get_job_status(external_id, context)
            if status.is_succeeded(current):
                self.log.info("dbt Cloud run %s succeeded", external_id)
                return
            if not status.is_active(current):
                self._log_failure_details(external_id)
                raise ExternalJobFailed(f"dbt Cloud job run {external_id} ended {current}")
            if time.monotonic() > deadline:
                raise DbtCloudJobRunException(
                    f"Job run {external_id} has not reached a terminal status after {self.timeout} seconds."
                )
            self.log.info("dbt Cloud run %s is %s; checking again in %s s", external_id, current, self.check_interval)
            time.sleep(self.check_interval)

    def get_job_result(self, external_id: Any, context: Context) -> Any:
        return external_id

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        self.run_id = external_id
        url = self._run_url(external_id)
        if url:
            self.log.info("dbt Cloud run %s: %s", external_id, url)
        # Upstream pushes both whatever do_xcom_push says; the mixin pushes the id when it is True.
        push_xcom(context, XCOM_RUN_URL_KEY, url)
        if not self.do_xcom_push:
            push_xcom(context, XCOM_RUN_ID_KEY, external_id)

    def build_trigger(self, external_id: Any, context: Context) -> DbtCloudRunTrigger:
        from resumable_jobs.providers.dbt.trigger import DbtCloudRunTrigger

        now = time.time()
        execution_timeout = getattr(self, "execution_timeout", None)
        return DbtCloudRunTrigger(
            conn_id=self.dbt_cloud_conn_id,
            run_id=external_id,
            end_time=now + self.timeout,
            poll_interval=self.check_interval,
            account_id=self.account_id,
            hook_params=self.hook_params,
            execution_deadline=now + execution_timeout.total_seconds() if execution_timeout else None,
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Resume from our ``DbtCloudRunTrigger``'s event - upstream's ``DbtCloudRunJobTrigger``'s shape, which a task
        deferred by an earlier release still brings - or the mixin's own event shape."""
        if not isinstance(event, dict) or "external_id" in event or "run_id" not in event:
            return super().execute_complete(context, event)
        run_id, outcome = event["run_id"], event.get("status")
        if outcome not in ("success", "timeout", *_FAILED_EVENTS):
            raise ExternalJobFailed(f"Unexpected event from the dbt Cloud trigger for run {run_id}: {event!r}")
        if outcome == "success":
            return super().execute_complete(context, {"status": "success", "external_id": run_id, "message": ""})
        if outcome == "timeout":
            self._job_lifecycle.cancel_now(
                run_id,
                "execution_timeout passed while the trigger waited for the run",
                "after execution_timeout",
            )
        elif outcome in _FAILED_EVENTS:
            self._log_failure_details(run_id)
        message = event.get("message") or f"the trigger reported {outcome}"
        return super().execute_complete(context, {"status": "error", "external_id": run_id, "message": message})

    def cancel_job(self, external_id: Any, context: Context) -> None:
        self.hook.cancel_job_run(run_id=external_id, account_id=self.account_id)
        self.log.info("Asked dbt Cloud to cancel run %s", external_id)

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        """Upstream's lineage from the run's artifacts, for the run this task followed."""
        from airflow.providers.openlineage.extractors import OperatorLineage

        if not isinstance(self.run_id, int) or not self.wait_for_termination:
            return OperatorLineage()
        from airflow.providers.dbt.cloud.utils.openlineage import generate_openlineage_events_from_dbt_cloud_run

        return generate_openlineage_events_from_dbt_cloud_run(operator=self, task_instance=task_instance)

    # ----------------------------------------------------------------- helpers
    def _job_id(self) -> Any:
        """``job_id``, or the id of the job named by project, environment and job name (looked up once)."""
        if self.job_id is not None:
            return self.job_id
        if self._resolved_job_id is None:
            self._resolved_job_id = self.hook.get_job_by_name(
                account_id=self.account_id,
                project_name=self.project_name,
                environment_name=self.environment_name,
                job_name=self.job_name,
            )["id"]
        return self._resolved_job_id

    def _cause(self, context: Context) -> str:
        if self.trigger_reason is None:
            self.trigger_reason = f"Triggered via Apache Airflow by task {self.task_id!r} in the {self.dag_id} DAG."
        token = self.submission_token or ""
        if self.openlineage_inject_parent_job_info:
            try:
                from airflow.providers.dbt.cloud.utils.openlineage import (
                    inject_parent_job_information_into_dbt_cloud_cause,
                )
            except ImportError:
                self.log.warning("This dbt Cloud provider cannot put OpenLineage parent information into the cause")
            else:
                injected = inject_parent_job_information_into_dbt_cloud_cause(self.trigger_reason, context["ti"])
                with_token = cause.lineage_cause_with_token(injected, token) if injected else None
                if with_token is not None:
                    return with_token
        return cause.cause_with_token(self.trigger_reason, token)

    def _newest_active_run(self, job_id: Any) -> dict[str, Any] | None:
        """Upstream's ``reuse_existing_run`` lookup: the job's newest queued, starting or running run."""
        runs = self.hook.get_job_runs(
            account_id=self.account_id,
            payload={"job_definition_id": job_id, "status__in": str([1, 2, 3]), "order_by": "-created_at"},
        ).json()["data"]
        return runs[0] if runs else None

    def _follow(self, run: dict[str, Any]) -> Any:
        self._remember(run)
        self.run_id = run["id"]
        return run["id"]

    def _remember(self, run: dict[str, Any]) -> None:
        if run.get("id") is not None and run.get("href"):
            self._run_urls[run["id"]] = run["href"]

    def _run_url(self, run_id: Any) -> str | None:
        if run_id not in self._run_urls:
            try:
                self._remember(self.hook.get_job_run(run_id=run_id, account_id=self.account_id).json()["data"])
            except Exception as err:  # noqa: BLE001 - a missing link must not fail a task whose run is known
                self.log.warning("Could not read the page URL of dbt Cloud run %s: %s", run_id, err)
        return self._run_urls.get(run_id)

    def _log_failure_details(self, run_id: Any) -> None:
        log_details = getattr(self.hook, "log_job_run_failure_details", None)  # dbt-cloud provider >= 4.x
        if log_details is None:
            return
        try:
            log_details(run_id=int(run_id), account_id=self.account_id)
        except Exception as err:  # noqa: BLE001 - the failure itself is what the task reports
            self.log.warning("Could not read the failure details of dbt Cloud run %s: %s", run_id, err)


def _is_not_found(error: BaseException) -> bool:
    response = getattr(error.__cause__, "response", None)
    if getattr(response, "status_code", None) == 404:
        return True
    return str(error).startswith("404:")
