"""``EmrContainerOperator``: an EMR on EKS job run that a retry reconnects to.

What it is for: a drop-in replacement for the Amazon provider's ``EmrContainerOperator`` (same
parameters and template fields) whose retries never start a second run for one task instance,
and whose every path returns the run id.

How it works: it implements the resumable contract on the Amazon provider's ``EmrContainerHook``
(its ``submit_job``, ``stop_query`` and client) and this package's ``EmrContainerJobRunTrigger``,
imported inside methods. StartJobRun's ``clientToken`` is the mixin's ``submission_token``: the same on every try
of one generation (EMR on EKS answers a repeated token with the run it already started), a new
one after a failed run, so a retry after a FAILED run is not handed that run back (upstream's
#69625 problem). A ``client_request_token`` given by the user is the first generation's token.

What it does not do: subclass or import upstream's operator, create virtual clusters, or follow
EMR on EKS's own driver retries (``job_retry_max_attempts`` is passed through; the run's state is
what counts). Below Airflow 3.3 there is no store: every try submits with a token of its own.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, ResumableJobMixin
from resumable_jobs.mixin.parameters import owner_of
from resumable_jobs.providers.amazon import aws_parameters as aws
from resumable_jobs.providers.amazon import emr_status
from resumable_jobs.providers.amazon.emr_lineage import with_openlineage
from resumable_jobs.providers.common import default_deferrable

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.emr import EmrContainerHook
    from airflow.sdk import Context

    from resumable_jobs.providers.amazon.emr_containers_trigger import EmrContainerJobRunTrigger

__all__ = ["EmrContainerOperator"]


class EmrContainerOperator(ResumableJobMixin, BaseOperator):
    """Run a job on an EMR on EKS virtual cluster; a retry reconnects to it instead of starting another.

    What it is for: upstream's parameters and return value (the run id), plus the common model:
    ``durable``, ``deferrable``, ``wait_for_termination`` (``wait_for_completion`` is upstream's
    name and accepted), ``cancel_on_worker_shutdown``.

    How it works: ``execute`` lets the mixin decide - submit (``clientToken`` = the submission
    token), reconnect while the run is PENDING/SUBMITTED/RUNNING, return at once if it
    COMPLETED, or submit a new generation after FAILED/CANCELLED or a run DescribeJobRun no
    longer knows. It then polls DescribeJobRun every ``poll_interval`` seconds (at most
    ``max_polling_attempts`` checks when given), defers to ``EmrContainerJobRunTrigger`` (one
    DescribeJobRun per poll through a client shared by the triggerer's loop), or returns the run id.

    What it does not do: retry a FAILED run inside the try (Airflow's retry submits the next
    generation).
    """

    external_id_key = "emr_containers_job_id"
    poll_interval_parameters = ("poll_interval",)
    ui_color = "#f9c915"

    template_fields: Sequence[str] = (
        "aws_conn_id",
        "configuration_overrides",
        "execution_role_arn",
        "job_driver",
        "name",
        "region_name",
        "release_label",
        "verify",
        "virtual_cluster_id",
    )

    def __init__(
        self,
        *,
        name: str,
        virtual_cluster_id: str,
        execution_role_arn: str,
        release_label: str,
        job_driver: dict,
        configuration_overrides: dict | None = None,
        client_request_token: str | None = None,
        wait_for_completion: bool | None = None,
        poll_interval: int = 30,
        tags: dict | None = None,
        max_polling_attempts: int | None = None,
        job_retry_max_attempts: int | None = None,
        deferrable: bool | None = None,
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
        if client_request_token is not None and (
            not isinstance(client_request_token, str) or not client_request_token.strip()
        ):
            raise ValueError(
                f"{owner}: client_request_token must be a non-blank string (or None), got {client_request_token!r}"
            )
        if client_request_token is not None and len(client_request_token) > 64:
            raise ValueError(f"{owner}: client_request_token is at most 64 characters (EMR's limit)")
        if max_polling_attempts is not None and (
            isinstance(max_polling_attempts, bool)
            or not isinstance(max_polling_attempts, int)
            or max_polling_attempts < 1
        ):
            raise ValueError(
                f"{owner}: max_polling_attempts must be a whole number >= 1 or None, got {max_polling_attempts!r}"
            )
        self.name = name
        self.virtual_cluster_id = virtual_cluster_id
        self.execution_role_arn = execution_role_arn
        self.release_label = release_label
        self.job_driver = job_driver
        self.configuration_overrides = configuration_overrides or {}
        self.client_request_token = client_request_token
        self.wait_for_termination = aws.resolve_wait(
            wait_for_termination, wait_for_completion, upstream_name="wait_for_completion", owner=owner
        )
        self.poll_interval = poll_interval
        self.tags = tags
        self.max_polling_attempts = max_polling_attempts
        self.job_retry_max_attempts = job_retry_max_attempts
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.cancel_on_kill = cancel_on_kill
        aws.set_spark_openlineage(self, openlineage_inject_parent_job_info, openlineage_inject_transport_info)
        aws.set_connection(self, aws_conn_id, region_name, verify, botocore_config, region=region, owner=owner)
        self.job_id: str | None = None

    #: Upstream's name for ``wait_for_termination``: one value under both names.
    wait_for_completion = aws.UpstreamWaitFlag()

    @cached_property
    def hook(self) -> EmrContainerHook:
        from airflow.providers.amazon.aws.hooks.emr import EmrContainerHook

        return EmrContainerHook(**aws.hook_kwargs(self), virtual_cluster_id=self.virtual_cluster_id)

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the request
    def request_fingerprint(self, context: Context) -> str | None:
        request = {
            "name": self.name,
            "virtualClusterId": self.virtual_cluster_id,
            "executionRoleArn": self.execution_role_arn,
            "releaseLabel": self.release_label,
            "jobDriver": self.job_driver,
            "configurationOverrides": self.configuration_overrides,
            "tags": self.tags,
            "retryMaxAttempts": self.job_retry_max_attempts,
        }
        return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()

    def client_token(self) -> str | None:
        """The first generation's token is the user's, when given; every other is the submission token."""
        if self.client_request_token and (self.submission_generation or 0) <= 1:
            return self.client_request_token
        return self.submission_token

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> str:
        self.hook.virtual_cluster_id = self.virtual_cluster_id  # rendered after the hook was built
        self.job_id = self.hook.submit_job(
            self.name,
            self.execution_role_arn,
            self.release_label,
            self.job_driver,
            with_openlineage(self.configuration_overrides, context, self, service="EMR on EKS"),
            self.client_token(),
            self.tags,
            self.job_retry_max_attempts,
        )
        return self.job_id

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return self._run(external_id)["state"]

    def is_job_active(self, job_status: str) -> bool:
        return job_status in emr_status.CONTAINERS_ACTIVE

    def is_job_succeeded(self, job_status: str) -> bool:
        return job_status == emr_status.CONTAINERS_SUCCEEDED

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        last_state, checks = None, 0
        while True:
            run = self._run(external_id)
            state = run.get("state")
            if state != last_state:
                self.log.info("EMR on EKS job run %s is %s", external_id, state)
                last_state = state
            if state not in emr_status.CONTAINERS_ACTIVE:
                break
            checks += 1
            if self.max_polling_attempts and checks >= self.max_polling_attempts:
                raise ExternalJobFailed(
                    f"EMR on EKS job run {external_id!r} is still {state} after {checks} status checks "
                    "(max_polling_attempts); it keeps running while a retry of this task follows it"
                )
            time.sleep(self.poll_interval)
        self._raise_unless_succeeded(run)

    def get_job_result(self, external_id: Any, context: Context) -> str:
        """The run id, as upstream returns - after checking that the run did succeed."""
        self._raise_unless_succeeded(self._run(external_id))
        return external_id

    def build_trigger(self, external_id: Any, context: Context) -> EmrContainerJobRunTrigger:
        from resumable_jobs.providers.amazon.emr_containers_trigger import EmrContainerJobRunTrigger

        return EmrContainerJobRunTrigger(
            virtual_cluster_id=self.virtual_cluster_id,
            job_id=external_id,
            waiter_delay=int(self.poll_interval),
            waiter_max_attempts=self.max_polling_attempts or None,
            cancel_on_kill=self.cancel_on_kill,
            **aws.trigger_kwargs(self),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Finish from our trigger's event, or translate upstream's ``EmrContainerTrigger``'s (``status``,
        ``job_id``, ``message``: a task deferred before the upgrade)."""
        event = aws.translate_trigger_event(event, "job_id", "job run completed", self._trigger_error_message)
        return super().execute_complete(context, event)

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        self.job_id = external_id

    def cancel_job(self, external_id: Any, context: Context) -> None:
        self.hook.virtual_cluster_id = self.virtual_cluster_id
        self.hook.stop_query(external_id)
        self.log.info("Cancelled EMR on EKS job run %s", external_id)

    def _cancellation_disabled_reason(self) -> str | None:
        return aws.deferred_cancel_on_kill_reason(self)

    # ----------------------------------------------------------------- helpers
    def _run(self, job_run_id: str) -> dict[str, Any]:
        return emr_status.container_job_run(self.hook.conn, self.virtual_cluster_id, job_run_id)

    def _raise_unless_succeeded(self, run: dict[str, Any]) -> None:
        if run.get("state") != emr_status.CONTAINERS_SUCCEEDED:
            raise ExternalJobFailed(emr_status.container_failure_summary(run))

    def _trigger_error_message(self, job_run_id: Any, trigger_message: Any) -> str:
        try:
            run = self._run(job_run_id)
        except Exception as error:  # noqa: BLE001 - the message is built for a failure already happening
            return f"{trigger_message} (and the run could not be read: {error})"
        if run.get("state") in emr_status.CONTAINERS_ACTIVE:
            return f"{trigger_message} (run still {run.get('state')})"
        return emr_status.container_failure_summary(run)
