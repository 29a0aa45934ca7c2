"""``BatchOperator``: submit an AWS Batch job that a retry reconnects to instead of duplicating.

What it is for: a drop-in replacement for the Amazon provider's ``BatchOperator`` (same
parameters) whose retries never start a second job for one task instance - whether the worker
died while submitting, while polling, before deferring or while the trigger waited - and whose
every path returns the job id, pushes it to XCom and shows the console links.

How it works: it implements the resumable contract on top of the Amazon provider's
``BatchClientHook`` and this package's ``BatchJobStatusTrigger`` (both imported inside methods, so
parsing a DAG pulls in neither boto3 nor the provider). SubmitJob carries the mixin's ``submission_token`` as the tag
:data:`~resumable_jobs.providers.amazon.lookup.TOKEN_TAG_KEY`; ``find_job`` searches the queue
for it, which closes the window between SubmitJob and the id being persisted. Statuses map as in
:mod:`resumable_jobs.providers.amazon.status`. The synchronous path polls DescribeJobs every
``poll_interval`` seconds; the deferrable path hands the job to ``BatchJobStatusTrigger`` (one
DescribeJobs per poll through a client shared by the triggerer's loop).

What it does not do: it does not subclass or import upstream's operator, so upstream's private
helpers and its link classes (which import botocore) are not used; ``waiters`` objects still
work. It does not submit array-job children itself (Batch does), nor create queues or compute
environments. Below Airflow 3.3 there is no store: every try submits (see the shim).
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from collections.abc import Sequence
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, ResumableJobMixin
from resumable_jobs.mixin.parameters import owner_of
from resumable_jobs.providers.amazon import aws_parameters as aws
from resumable_jobs.providers.amazon import links, status
from resumable_jobs.providers.amazon.lookup import TOKEN_TAG_KEY, find_job_by_token
from resumable_jobs.providers.common import default_deferrable, push_xcom

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.batch_client import BatchClientHook
    from airflow.sdk import Context

    from resumable_jobs.providers.amazon.batch_trigger import BatchJobStatusTrigger

__all__ = ["BatchOperator"]

#: XCom key of the job id (the return value holds it too).
JOB_ID_XCOM_KEY = "batch_job_id"
KILL_REASON = "Cancelled by Airflow: the task instance was stopped, timed out or failed for good"


class BatchOperator(ResumableJobMixin, BaseOperator):
    """Run a job on AWS Batch; a retry reconnects to the job instead of submitting a duplicate.

    What it is for: the Amazon provider's ``BatchOperator`` parameters and return value (the job
    id), plus the common model of this package: ``durable``, ``deferrable`` and
    ``wait_for_termination`` (``wait_for_completion`` is accepted as its upstream name).

    How it works: ``execute`` lets the mixin decide per try - submit (tagging the job with the
    submission token), reconnect to the stored job while it is SUBMITTED...RUNNING, return at
    once if it SUCCEEDED, or submit a new generation if it FAILED or DescribeJobs no longer
    knows it. It then polls (``poll_interval`` seconds between DescribeJobs calls, at most
    ``max_retries`` checks), defers to ``BatchJobStatusTrigger``, or returns the id when not waiting.

    What it does not do: ``job_id=`` does not attach to an existing job (as upstream, it is
    overwritten by the submission; the store decides what to reconnect to). A FAILED job is not
    retried inside the try: the task fails with the job's statusReason and log location, and
    Airflow's retry submits the next generation.
    """

    external_id_key = "batch_job_id"
    external_id_xcom_key = JOB_ID_XCOM_KEY
    poll_interval_parameters = ("poll_interval",)
    flag_aliases: ClassVar[dict[str, str]] = {"wait_for_completion": "wait_for_termination"}
    ui_color = "#c3dae0"

    # Upstream's fields (the AWS connection ones included), in upstream's alphabetical order.
    template_fields: Sequence[str] = (
        "aws_conn_id",
        "array_properties",
        "awslogs_enabled",
        "awslogs_fetch_interval",
        "container_overrides",
        "ecs_properties_override",
        "eks_properties_override",
        "job_definition",
        "job_id",
        "job_name",
        "job_queue",
        "node_overrides",
        "parameters",
        "region_name",
        "retry_strategy",
        "tags",
        "verify",
        "wait_for_completion",
        "waiters",
    )
    template_fields_renderers = {
        "container_overrides": "json",
        "parameters": "json",
        "ecs_properties_override": "json",
        "eks_properties_override": "json",
        "node_overrides": "json",
        "retry_strategy": "json",
    }
    operator_extra_links = (
        links.BatchJobDetailsLink(),
        links.BatchJobDefinitionLink(),
        links.BatchJobQueueLink(),
        links.BatchCloudWatchLogsLink(),
    )

    def __init__(
        self,
        *,
        job_name: str,
        job_definition: str,
        job_queue: str,
        container_overrides: dict | None = None,
        array_properties: dict | None = None,
        ecs_properties_override: dict | None = None,
        eks_properties_override: dict | None = None,
        node_overrides: dict | None = None,
        share_identifier: str | None = None,
        scheduling_priority_override: int | None = None,
        parameters: dict | None = None,
        retry_strategy: dict | None = None,
        job_id: str | None = None,
        waiters: Any | None = None,
        max_retries: int = 4200,
        status_retries: int | None = None,
        tags: dict | None = None,
        wait_for_termination: bool | None = None,
        wait_for_completion: bool = True,
        deferrable: bool | None = None,
        poll_interval: float = 30,
        awslogs_enabled: bool = False,
        awslogs_fetch_interval: timedelta = timedelta(seconds=30),
        submit_job_timeout: int | None = None,
        aws_conn_id: str | None = "aws_default",
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: dict | None = None,
        region: str | None = None,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        owner = owner_of(self)
        self.job_name = job_name
        self.job_definition = job_definition
        self.job_queue = job_queue
        self.container_overrides = container_overrides
        self.array_properties = array_properties
        self.ecs_properties_override = ecs_properties_override
        self.eks_properties_override = eks_properties_override
        self.node_overrides = node_overrides
        self.share_identifier = share_identifier
        self.scheduling_priority_override = scheduling_priority_override
        self.parameters = parameters or {}
        self.retry_strategy = retry_strategy
        self.waiters = waiters
        self.max_retries = max_retries
        self.status_retries = status_retries
        self.tags = tags or {}
        self.wait_for_termination = aws.resolve_wait(
            wait_for_termination,
            wait_for_completion,
            owner=owner,
            upstream_default=True,
            templated="wait_for_completion" in self.template_fields,
        )
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.poll_interval = poll_interval
        self.awslogs_enabled = awslogs_enabled
        self.awslogs_fetch_interval = awslogs_fetch_interval
        self.submit_job_timeout = submit_job_timeout
        aws.set_connection(self, aws_conn_id, region_name, verify, botocore_config, region=region, owner=owner)
        self.job_id = job_id
        if job_id is not None:
            warnings.warn(
                f"BatchOperator(task_id={self.task_id!r}): job_id= does not attach the task to an existing "
                "job; the operator submits its own and reconnects to it on retries. Remove job_id=.",
                UserWarning,
                stacklevel=3,
            )

    #: Upstream's name for ``wait_for_termination``: one value under both names.
    wait_for_completion = aws.UpstreamWaitFlag()

    @cached_property
    def hook(self) -> BatchClientHook:
        from airflow.providers.amazon.aws.hooks.batch_client import BatchClientHook

        return BatchClientHook(
            **aws.hook_kwargs(self), max_retries=self.max_retries, status_retries=self.status_retries
        )

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the request
    def submit_job_request(self) -> dict[str, Any]:
        """The SubmitJob arguments of this (rendered) task, without the submission-token tag."""
        request = {
            "jobName": self.job_name,
            "jobQueue": self.job_queue,
            "jobDefinition": self.job_definition,
            "arrayProperties": self.array_properties,
            "parameters": self.parameters,
            "tags": dict(self.tags),
            "containerOverrides": self.container_overrides,
            "ecsPropertiesOverride": self.ecs_properties_override,
            "eksPropertiesOverride": self.eks_properties_override,
            "nodeOverrides": self.node_overrides,
            "retryStrategy": self.retry_strategy,
            "shareIdentifier": self.share_identifier,
            "schedulingPriorityOverride": self.scheduling_priority_override,
        }
        if self.submit_job_timeout:
            request["timeout"] = {"attemptDurationSeconds": self.submit_job_timeout}
        return {key: value for key, value in request.items() if value is not None}

    def request_fingerprint(self, context: Context) -> str | None:
        payload = json.dumps(self.submit_job_request(), sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> str:
        request = self.submit_job_request()
        if self.submission_token:
            request["tags"][TOKEN_TAG_KEY] = self.submission_token
        self.log.info(
            "Submitting AWS Batch job %r (definition %s) to queue %s",
            self.job_name,
            self.job_definition,
            self.job_queue,
        )
        job_id = self.hook.client.submit_job(**request)["jobId"]
        self.job_id = job_id
        return job_id

    def find_job(self, token: str, context: Context) -> str | None:
        return find_job_by_token(self.hook.client, job_queue=self.job_queue, job_name=self.job_name, token=token)

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return status.describe_job(self.hook.client, external_id)["status"]

    def is_job_active(self, job_status: str) -> bool:
        return status.is_active(job_status)

    def is_job_succeeded(self, job_status: str) -> bool:
        return status.is_succeeded(job_status)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        if self.waiters is not None:
            self.waiters.wait_for_job(
                external_id, get_batch_log_fetcher=self._log_fetcher if self.awslogs_enabled else None
            )
            job = status.describe_job(self.hook.client, external_id)
            self._raise_if_not_succeeded(job, context)
            return
        fetcher = None
        wants_logs = self.awslogs_enabled
        last_status = None
        checks = 0
        try:
            while True:
                job = status.describe_job(self.hook.client, external_id)
                job_status = job.get("status")
                if job_status != last_status:
                    self.log.info("AWS Batch job %s is %s", external_id, job_status)
                    last_status = job_status
                if wants_logs and job_status not in status.NOT_STARTED_STATUSES:
                    wants_logs = False  # one attempt per try: the stream exists once the job started
                    fetcher = self._log_fetcher(external_id)
                    if fetcher is not None:
                        fetcher.start()
                if not status.is_active(job_status):
                    break
                checks += 1
                if checks > self.max_retries:
                    raise ExternalJobFailed(
                        f"AWS Batch job {external_id!r} is still {job_status} after {self.max_retries} status "
                        "checks (max_retries); it keeps running, and a retry of this task reconnects to it"
                    )
                time.sleep(self.poll_interval)
        finally:
            if fetcher is not None:
                fetcher.stop()
                fetcher.join()
        self._raise_if_not_succeeded(job, context)
        self.log.info("AWS Batch job %s succeeded", external_id)

    def get_job_result(self, external_id: Any, context: Context) -> str:
        """The job id, as upstream returns - after checking that the job did succeed."""
        job = status.describe_job(self.hook.client, external_id)
        self._raise_if_not_succeeded(job, context)
        self._publish_log_link(external_id, context)
        return external_id

    def build_trigger(self, external_id: Any, context: Context) -> BatchJobStatusTrigger:
        from resumable_jobs.providers.amazon.batch_trigger import BatchJobStatusTrigger

        return BatchJobStatusTrigger(
            job_id=external_id,
            waiter_delay=int(self.poll_interval),
            waiter_max_attempts=self.max_retries,
            **aws.trigger_kwargs(self),
        )

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Translate the trigger's event (``status``, ``job_id``, ``message``: ours, or upstream's ``BatchJobTrigger``'s
        from a task deferred before the upgrade) and finish."""
        event = aws.translate_trigger_event(
            event,
            "job_id",
            success_message="job succeeded",
            error_message=lambda job_id, message: self._trigger_error_message(job_id, message, context),
        )
        return super().execute_complete(context, event)

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        try:
            region, partition = self.hook.conn_region_name, self.hook.conn_partition
            push_xcom(
                context, links.BatchJobDetailsLink.xcom_key, links.job_details_url(region, partition, external_id)
            )
            job = status.describe_job(self.hook.client, external_id)
            if job.get("jobDefinition"):
                url = links.job_definition_url(region, partition, job["jobDefinition"])
                push_xcom(context, links.BatchJobDefinitionLink.xcom_key, url)
            if job.get("jobQueue"):
                push_xcom(
                    context, links.BatchJobQueueLink.xcom_key, links.job_queue_url(region, partition, job["jobQueue"])
                )
        except Exception as error:  # links are a convenience: never fail the task over one
            self.log.warning("Could not build the console links of AWS Batch job %s: %s", external_id, error)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        response = self.hook.client.terminate_job(jobId=external_id, reason=KILL_REASON)
        status_code = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        self.log.info("Terminated AWS Batch job %s: %s", external_id, status_code)

    # ----------------------------------------------------------------- helpers
    def _raise_if_not_succeeded(self, job: dict[str, Any], context: Context) -> None:
        """Raise with the job's statusReason and log location (pushing the logs link) unless SUCCEEDED."""
        if status.is_succeeded(job.get("status")):
            return
        logs = self._publish_log_link(job["jobId"], context)
        raise ExternalJobFailed(status.failure_summary(job, status.log_location(logs)))

    def _publish_log_link(self, job_id: str, context: Context) -> dict[str, str] | None:
        try:
            awslogs = self.hook.get_job_awslogs_info(job_id)
        except Exception as error:  # job types without a container, or logs not configured
            self.log.debug("No CloudWatch log information for AWS Batch job %s: %s", job_id, error)
            return None
        if awslogs:
            url = links.cloudwatch_logs_url(
                self.hook.conn_partition,
                region=awslogs.get("awslogs_region", ""),
                group=awslogs.get("awslogs_group", ""),
                stream=awslogs.get("awslogs_stream_name", ""),
            )
            push_xcom(context, links.BatchCloudWatchLogsLink.xcom_key, url)
        return awslogs

    def _log_fetcher(self, job_id: str) -> Any:
        try:
            awslogs = self.hook.get_job_awslogs_info(job_id)
        except Exception as error:  # e.g. a job type without a container: no log stream to follow
            self.log.warning("Not streaming the CloudWatch logs of AWS Batch job %s: %s", job_id, error)
            return None
        if not awslogs:
            return None
        from airflow.providers.amazon.aws.utils.task_log_fetcher import AwsTaskLogFetcher

        return AwsTaskLogFetcher(
            aws_conn_id=self.aws_conn_id,
            region_name=awslogs["awslogs_region"],
            log_group=awslogs["awslogs_group"],
            log_stream_name=awslogs["awslogs_stream_name"],
            fetch_interval=self.awslogs_fetch_interval,
            logger=self.log,
        )

    def _trigger_error_message(self, job_id: str, trigger_message: Any, context: Context) -> str:
        """The job's own failure reason when it FAILED; otherwise the trigger's message and the status."""
        try:
            job = status.describe_job(self.hook.client, job_id)
        except Exception as error:
            return f"{trigger_message} (and the job could not be described: {error})"
        if job.get("status") == status.FAILED:
            logs = self._publish_log_link(job_id, context)
            return status.failure_summary(job, status.log_location(logs))
        return f"{trigger_message} (job status now {job.get('status')})"
