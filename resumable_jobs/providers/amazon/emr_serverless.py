"""``EmrServerlessStartJobOperator``: an EMR Serverless job run that a retry reconnects to.

What it is for: a drop-in replacement for the Amazon provider's ``EmrServerlessStartJobOperator``
(same parameters, template fields and link labels) whose retries never start a second run for
one task instance - whether the worker died while submitting, while polling, before deferring or
while the trigger waited - and whose every path returns the run id and shows the links.

How it works: it implements the resumable contract on the Amazon provider's ``EmrServerlessHook``
and this package's ``EmrServerlessJobRunTrigger`` (imported inside methods). StartJobRun's ``clientToken`` is
the mixin's ``submission_token`` - the same on every try of one generation, a new one after a
failed run - so a retry that lost the run id repeats StartJobRun and EMR Serverless answers with
the run it already started. A ``client_request_token`` given by the user is the first
generation's token. Before anything else, each try starts the application if it is not started,
as upstream does (deferring to ``EmrServerlessStartApplicationTrigger`` when deferrable).

What it does not do: subclass or import upstream's operator; create, stop or delete applications;
cancel a run when ``waiter_max_attempts`` runs out while a retry would follow it (see the doc).
Below Airflow 3.3 there is no store: every try submits with a token of its own.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, ResumableJobMixin
from resumable_jobs.mixin.parameters import owner_of
from resumable_jobs.providers.amazon import aws_parameters as aws
from resumable_jobs.providers.amazon import emr_links, emr_status
from resumable_jobs.providers.amazon.emr_lineage import with_openlineage
from resumable_jobs.providers.common import default_deferrable, push_xcom

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.emr import EmrServerlessHook
    from airflow.sdk import Context

    from resumable_jobs.providers.amazon.emr_serverless_trigger import EmrServerlessJobRunTrigger

__all__ = ["EmrServerlessStartJobOperator"]

DEFAULT_WAITER_DELAY = 60
DEFAULT_WAITER_MAX_ATTEMPTS = 25
#: Application states in which StartJobRun is accepted (upstream's ``APPLICATION_SUCCESS_STATES``).
APPLICATION_READY = frozenset({"CREATED", "STARTED"})
DEFAULT_NAME_PREFIX = "emr_serverless_job_airflow_"
#: The statuses of ``EmrServerlessStartJobTrigger``'s final events; any other is not translated.
TRIGGER_END_STATUSES = ("success", "failure", "error")


class EmrServerlessStartJobOperator(ResumableJobMixin, BaseOperator):
    """Start an EMR Serverless job run; a retry reconnects to it instead of starting another.

    What it is for: upstream's parameters and return value (the run id), plus the common model:
    ``durable``, ``deferrable``, ``wait_for_termination`` (``wait_for_completion`` is upstream's
    name and accepted), ``cancel_on_worker_shutdown``.

    How it works: ``execute`` starts the application when needed, then lets the mixin decide -
    submit (``clientToken`` = the submission token), reconnect while the run is SUBMITTED ...
    RUNNING, return at once if it is SUCCESS, or submit a new generation after FAILED/CANCELLED
    or a run GetJobRun no longer knows. It then polls GetJobRun every ``waiter_delay`` seconds
    (at most ``waiter_max_attempts`` checks), defers to ``EmrServerlessJobRunTrigger`` (one
    GetJobRun per poll through a client shared by the triggerer's loop), or returns the run id.

    What it does not do: retry a FAILED run inside the try (Airflow's retry submits the next
    generation), nor honour a ``clientToken`` in ``config`` differently from
    ``client_request_token`` (both are the first generation's token).
    """

    external_id_key = "emr_serverless_job_run_id"
    poll_interval_parameters = ("waiter_delay",)

    template_fields: Sequence[str] = (
        "application_id",
        "aws_conn_id",
        "config",
        "configuration_overrides",
        "execution_role_arn",
        "job_driver",
        "name",
        "region_name",
        "verify",
    )
    template_fields_renderers: ClassVar[dict[str, str]] = {"config": "json", "configuration_overrides": "json"}
    operator_extra_links = (
        emr_links.EmrServerlessS3LogsLink(),
        emr_links.EmrServerlessCloudWatchLogsLink(),
        emr_links.EmrServerlessDashboardLink(),
        emr_links.EmrServerlessLogsLink(),
    )

    def __init__(
        self,
        *,
        application_id: str,
        execution_role_arn: str,
        job_driver: dict,
        configuration_overrides: dict | None = None,
        client_request_token: str = "",
        config: dict | None = None,
        wait_for_completion: bool | None = None,
        name: str | None = None,
        waiter_max_attempts: int = DEFAULT_WAITER_MAX_ATTEMPTS,
        waiter_delay: int = DEFAULT_WAITER_DELAY,
        deferrable: bool | None = None,
        enable_application_ui_links: bool = False,
        cancel_on_kill: bool = True,
        openlineage_inject_parent_job_info: bool | None = None,
        openlineage_inject_transport_info: bool | None = None,
        aws_conn_id: str | None = "aws_default",
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: dict | None = None,
        region: str | None = None,
        wait_for_termination: bool | None = None,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        owner = owner_of(self)
        if client_request_token is not None and not isinstance(client_request_token, str):
            raise TypeError(f"{owner}: client_request_token must be a string, got {client_request_token!r}")
        if len(client_request_token or "") > 64:
            raise ValueError(f"{owner}: client_request_token is at most 64 characters (EMR's limit)")
        if config is not None and not isinstance(config, dict | str):
            raise TypeError(f"{owner}: config must be a dict of StartJobRun arguments, got {config!r}")
        self.application_id = application_id
        self.execution_role_arn = execution_role_arn
        self.job_driver = job_driver
        self.configuration_overrides = configuration_overrides
        self.client_request_token = client_request_token
        self.config = config or {}
        self.name = name
        self.wait_for_termination = aws.resolve_wait(
            wait_for_termination, wait_for_completion, upstream_name="wait_for_completion", owner=owner
        )
        self.waiter_max_attempts = _positive_int("waiter_max_attempts", waiter_max_attempts, owner)
        self.waiter_delay = waiter_delay
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.enable_application_ui_links = enable_application_ui_links
        self.cancel_on_kill = cancel_on_kill
        aws.set_spark_openlineage(self, openlineage_inject_parent_job_info, openlineage_inject_transport_info)
        aws.set_connection(self, aws_conn_id, region_name, verify, botocore_config, region=region, owner=owner)
        self.job_id: str | None = None

    #: Upstream's name for ``wait_for_termination``: one value under both names.
    wait_for_completion = aws.UpstreamWaitFlag()

    @cached_property
    def hook(self) -> EmrServerlessHook:
        from airflow.providers.amazon.aws.hooks.emr import EmrServerlessHook

        return EmrServerlessHook(**aws.hook_kwargs(self))

    def execute(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Start the application if needed (also on resuming from its trigger), then run the job."""
        if event is not None and event.get("status") != "success":
            raise ExternalJobFailed(
                f"EMR Serverless application {self.application_id} did not start: {event.get('message') or event}"
            )
        self._ensure_application_started()
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the request
    def start_job_run_request(self) -> dict[str, Any]:
        """StartJobRun's arguments from the (rendered) task, without ``clientToken`` and lineage."""
        config = dict(self.config)
        config.pop("clientToken", None)
        name = self.name or config.pop("name", None)
        config.pop("name", None)
        request: dict[str, Any] = {
            "applicationId": self.application_id,
            "executionRoleArn": self.execution_role_arn,
            "jobDriver": self.job_driver,
            **config,
        }
        if name:
            request["name"] = name
        if self.configuration_overrides is not None:
            request["configurationOverrides"] = self.configuration_overrides
        return request

    def request_fingerprint(self, context: Context) -> str | None:
        payload = json.dumps(self.start_job_run_request(), sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    def client_token(self) -> str | None:
        """The first generation's token is the user's, when given; every other is the submission token."""
        users = self.client_request_token or self.config.get("clientToken")
        if users and (self.submission_generation or 0) <= 1:
            return users
        return self.submission_token

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> str:
        request = self.start_job_run_request()
        request.setdefault("name", f"{DEFAULT_NAME_PREFIX}{self.submission_token}")
        overrides = with_openlineage(request.get("configurationOverrides"), context, self, service="EMR Serverless")
        if overrides is not None:
            request["configurationOverrides"] = overrides
        request["clientToken"] = self.client_token()
        self.log.info("Starting job run %r on EMR Serverless application %s", request["name"], self.application_id)
        response = self.hook.conn.start_job_run(**request)
        self.job_id = response["jobRunId"]
        self.log.info("EMR Serverless job run started: %s", self.job_id)
        return self.job_id

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return emr_status.serverless_job_run(self.hook.conn, self.application_id, external_id)["state"]

    def is_job_active(self, job_status: str) -> bool:
        return job_status in emr_status.SERVERLESS_ACTIVE

    def is_job_succeeded(self, job_status: str) -> bool:
        return job_status == emr_status.SERVERLESS_SUCCEEDED

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        last_state, checks = None, 0
        while True:
            run = emr_status.serverless_job_run(self.hook.conn, self.application_id, external_id)
            state = run.get("state")
            if state != last_state:
                self.log.info("EMR Serverless job run %s is %s", external_id, state)
                last_state = state
            if state not in emr_status.SERVERLESS_ACTIVE:
                break
            checks += 1
            if checks >= self.waiter_max_attempts:
                raise ExternalJobFailed(
                    f"EMR Serverless job run {external_id!r} is still {state} after {checks} status checks "
                    "(waiter_max_attempts); it keeps running while a retry of this task follows it"
                )
            time.sleep(self.waiter_delay)
        self._raise_unless_succeeded(run)

    def get_job_result(self, external_id: Any, context: Context) -> str:
        """The run id, as upstream returns - after checking that the run did succeed."""
        self._raise_unless_succeeded(emr_status.serverless_job_run(self.hook.conn, self.application_id, external_id))
        return external_id

    def build_trigger(self, external_id: Any, context: Context) -> EmrServerlessJobRunTrigger:
        from resumable_jobs.providers.amazon.emr_serverless_trigger import EmrServerlessJobRunTrigger

        return EmrServerlessJobRunTrigger(
            application_id=self.application_id,
            job_id=external_id,
            waiter_delay=int(self.waiter_delay),
            waiter_max_attempts=self.waiter_max_attempts,
            cancel_on_kill=self.cancel_on_kill,
            **aws.trigger_kwargs(self),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Finish from our trigger's event, or translate upstream's ``EmrServerlessStartJobTrigger``'s
        (``job_details`` or ``message``: a task deferred before the upgrade)."""
        if isinstance(event, dict) and "external_id" not in event and event.get("status") in TRIGGER_END_STATUSES:
            details = event.get("job_details") or {}
            job_run_id = details.get("job_id") or self._job_id_from_xcom(context) or _stored_id(self, context)
            event = aws.translate_trigger_event(
                {**event, "job_run_id": job_run_id},
                "job_run_id",
                success_message="job run succeeded",
                error_message=self._trigger_error_message,
            )
        return super().execute_complete(context, event)

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        self.job_id = external_id
        try:
            self._push_links(external_id, context)
        except Exception as error:  # noqa: BLE001 - links are a convenience: never fail the task over one
            self.log.warning("Could not build the links of EMR Serverless job run %s: %s", external_id, error)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        self.hook.conn.cancel_job_run(applicationId=self.application_id, jobRunId=external_id)
        self.log.info("Cancelled EMR Serverless job run %s", external_id)

    def _cancellation_disabled_reason(self) -> str | None:
        return aws.deferred_cancel_on_kill_reason(self)

    # ----------------------------------------------------------------- helpers
    def _ensure_application_started(self) -> None:
        state = self.hook.conn.get_application(applicationId=self.application_id)["application"]["state"]
        if state in APPLICATION_READY:
            return
        self.log.info("EMR Serverless application %s is %s: starting it", self.application_id, state)
        self.hook.conn.start_application(applicationId=self.application_id)
        if self.deferrable:
            from datetime import timedelta

            from airflow.providers.amazon.aws.triggers.emr import EmrServerlessStartApplicationTrigger

            self.defer(
                trigger=EmrServerlessStartApplicationTrigger(
                    application_id=self.application_id,
                    waiter_delay=int(self.waiter_delay),
                    waiter_max_attempts=self.waiter_max_attempts,
                    **aws.trigger_kwargs(self),
                ),
                method_name="execute",
                timeout=timedelta(seconds=self.waiter_max_attempts * self.waiter_delay),
            )
        from airflow.providers.amazon.aws.utils.waiter_with_logging import wait

        wait(
            waiter=self.hook.get_waiter("serverless_app_started"),
            waiter_max_attempts=self.waiter_max_attempts,
            waiter_delay=int(self.waiter_delay),
            args={"applicationId": self.application_id},
            failure_message="EMR Serverless application failed to start",
            status_message="EMR Serverless application status is",
            status_args=["application.state", "application.stateDetails"],
        )

    def _raise_unless_succeeded(self, run: dict[str, Any]) -> None:
        if run.get("state") != emr_status.SERVERLESS_SUCCEEDED:
            raise ExternalJobFailed(emr_status.serverless_failure_summary(run))

    def _trigger_error_message(self, job_run_id: Any, trigger_message: Any) -> str:
        try:
            run = emr_status.serverless_job_run(self.hook.conn, self.application_id, job_run_id)
        except Exception as error:  # noqa: BLE001 - the message is built for a failure already happening
            return f"{trigger_message} (and the run could not be read: {error})"
        if run.get("state") in emr_status.SERVERLESS_ACTIVE:
            return f"{trigger_message} (run still {run.get('state')})"
        return emr_status.serverless_failure_summary(run)

    def _push_links(self, job_run_id: str, context: Context) -> None:
        region, partition = self.hook.conn_region_name, self.hook.conn_partition
        if self.enable_application_ui_links:
            where = {
                "application_id": self.application_id,
                "job_run_id": job_run_id,
                "aws_conn_id": self.aws_conn_id,
                "region_name": region,
            }
            push_xcom(context, emr_links.DASHBOARD_XCOM_KEY, where)
        monitoring = (self.configuration_overrides or {}).get("monitoringConfiguration") or {}
        s3 = monitoring.get("s3MonitoringConfiguration") or {}
        if s3.get("logUri"):
            url = emr_links.serverless_s3_logs_url(
                partition,
                region=region,
                log_uri=s3["logUri"],
                application_id=self.application_id,
                job_run_id=job_run_id,
            )
            push_xcom(context, emr_links.EmrServerlessS3LogsLink.xcom_key, url)
            self.log.info("S3 logs of the job run: %s", url)
        cloudwatch = monitoring.get("cloudWatchLoggingConfiguration") or {}
        if cloudwatch.get("enabled") is True:
            prefix = cloudwatch.get("logStreamNamePrefix", "")
            url = emr_links.serverless_cloudwatch_url(
                partition,
                region=region,
                group=cloudwatch.get("logGroupName", "/aws/emr-serverless"),
                stream_prefix=f"{prefix}/applications/{self.application_id}/jobs/{job_run_id}",
            )
            push_xcom(context, emr_links.EmrServerlessCloudWatchLogsLink.xcom_key, url)
            self.log.info("CloudWatch logs of the job run: %s", url)


def _positive_int(name: str, value: Any, owner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{owner}: {name} must be a whole number >= 1, got {value!r}")
    return value


def _stored_id(operator: Any, context: Any) -> Any:
    store = context.get("task_state_store") if hasattr(context, "get") else None
    try:
        return store.get(operator.external_id_key) if store is not None else None
    except Exception:  # noqa: BLE001 - only a fallback for a trigger event without the id
        return None
