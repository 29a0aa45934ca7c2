"""``GlueJobOperator``: run an AWS Glue job that a retry reconnects to instead of starting twice.

What it is for: a drop-in replacement for the Amazon provider's ``GlueJobOperator`` (same
parameters, template fields, link and return value: the job run id) whose retries never start a
second run for one task instance - whether the worker died while starting the run, while
polling, before deferring or while the trigger waited - and never fail on
``ConcurrentRunsExceededException`` while their own run goes on.

How it works: the resumable contract on top of the Amazon provider's ``GlueJobHook`` (creating or
updating the job as upstream does, then StartJobRun) and this package's ``GlueJobRunTrigger``
(upstream's ``GlueJobCompleteTrigger`` with ``verbose=True``), both imported inside methods.
Glue has no idempotency token, so every run carries the mixin's ``submission_token`` in its
``Arguments`` under
:data:`~resumable_jobs.providers.amazon.glue_lookup.TOKEN_ARGUMENT`, and ``find_job`` searches
GetJobRuns for it; a StartJobRun refused for concurrency is answered by the same search. States
map as in :mod:`resumable_jobs.providers.amazon.glue_status`.

What it does not do: it does not subclass or import upstream's operator. It does not run
Glue's own retries (``retry_limit`` is the job's MaxRetries, as upstream) nor cancel a run it
did not start. Below Airflow 3.3 there is no store: every try starts a run (see the shim).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, ResumableJobMixin
from resumable_jobs.mixin.parameters import owner_of
from resumable_jobs.providers.amazon import aws_parameters as aws
from resumable_jobs.providers.amazon import glue_status as status
from resumable_jobs.providers.amazon.glue_links import GlueJobRunDetailsLink, job_run_url
from resumable_jobs.providers.amazon.glue_lookup import (
    TOKEN_ARGUMENT,
    UPSTREAM_TASK_UUID_ARGUMENT,
    find_run,
    iter_runs,
    upstream_task_uuid,
)
from resumable_jobs.providers.common import default_deferrable, push_xcom

if TYPE_CHECKING:
    from airflow.providers.amazon.aws.hooks.glue import GlueJobHook
    from airflow.sdk import Context
    from airflow.triggers.base import BaseTrigger

__all__ = ["GlueJobOperator"]

#: Where a local ``script_location`` is uploaded in ``s3_bucket`` (upstream's prefix).
S3_ARTIFACTS_PREFIX = "artifacts/glue-scripts/"


class GlueJobOperator(ResumableJobMixin, BaseOperator):
    """Run an AWS Glue job; a retry follows the run an earlier try started instead of starting another.

    What it is for: the Amazon provider's ``GlueJobOperator`` parameters and return value (the
    job run id), plus the common model of this package: ``durable``, ``deferrable`` and
    ``wait_for_termination`` (``wait_for_completion`` is accepted as its upstream name).

    How it works: ``execute`` lets the mixin decide per try - start a run (creating or updating
    the job first, as upstream), follow the stored run while it is STARTING...STOPPING, return
    at once if it SUCCEEDED, or start a new generation's run if it ended otherwise or Glue no
    longer knows it. It then polls GetJobRun every ``job_poll_interval`` seconds (streaming the
    run's CloudWatch logs with ``verbose=True``), defers to ``GlueJobRunTrigger`` (one GetJobRun
    per poll through a client shared by the triggerer's loop; upstream's ``GlueJobCompleteTrigger``
    with ``verbose=True``, which forwards the logs; ``waiter_delay``, ``waiter_max_attempts``), or
    returns the run id when not waiting. The lifecycle rule decides when a run is stopped
    (BatchStopJobRun); ``stop_job_run_on_kill`` keeps upstream's meaning when given: False never
    stops, True stops on every kill.

    What it does not do: it never adopts a run it cannot tie to this task instance (a concurrent
    run without its token fails the try with the runs' ids). Runs of one job share the job's
    definition: two tasks running one job with ``update_config=True`` and different settings
    overwrite each other's configuration, as upstream.
    """

    external_id_key = "glue_job_run_id"
    poll_interval_parameters = ("job_poll_interval", "waiter_delay")
    ui_color = "#ededed"
    #: GetJobRuns pages (of 200 runs) the token lookup reads at most.
    token_lookup_max_pages = 10

    # Upstream's fields (the AWS connection ones included), in upstream's alphabetical order.
    template_fields: Sequence[str] = (
        "aws_conn_id",
        "create_job_kwargs",
        "iam_role_arn",
        "iam_role_name",
        "job_name",
        "region_name",
        "run_job_kwargs",
        "s3_bucket",
        "script_args",
        "script_location",
        "verify",
    )
    template_ext: Sequence[str] = ()
    template_fields_renderers = {"script_args": "json", "create_job_kwargs": "json", "run_job_kwargs": "json"}  # noqa: RUF012
    operator_extra_links = (GlueJobRunDetailsLink(),)

    def __init__(
        self,
        *,
        job_name: str = "aws_glue_default_job",
        job_desc: str = "AWS Glue Job with Airflow",
        script_location: str | None = None,
        concurrent_run_limit: int | None = None,
        script_args: dict | None = None,
        retry_limit: int = 0,
        num_of_dpus: float | None = None,
        s3_bucket: str | None = None,
        iam_role_name: str | None = None,
        iam_role_arn: str | None = None,
        create_job_kwargs: dict | None = None,
        run_job_kwargs: dict | None = None,
        wait_for_termination: bool | None = None,
        wait_for_completion: bool | None = None,
        deferrable: bool | None = None,
        verbose: bool = False,
        replace_script_file: bool = False,
        update_config: bool = False,
        stop_job_run_on_kill: bool | None = None,
        sleep_before_return: int = 0,
        job_poll_interval: float = 6,
        waiter_delay: int = 60,
        waiter_max_attempts: int = 75,
        resume_glue_job_on_retry: bool | None = None,
        openlineage_inject_parent_job_info: bool | None = None,
        openlineage_inject_transport_info: bool | None = None,
        aws_conn_id: str | None = "aws_default",
        region_name: str | None = None,
        verify: bool | str | None = None,
        botocore_config: dict | None = None,
        region: str | None = None,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        if resume_glue_job_on_retry is not None:
            warnings.warn(
                "GlueJobOperator: resume_glue_job_on_retry is deprecated upstream in favour of durable; "
                f"it is used as durable={resume_glue_job_on_retry!r} here. Rename it to durable.",
                DeprecationWarning,
                stacklevel=3,
            )
            if durable is None:
                durable = resume_glue_job_on_retry
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        owner = owner_of(self)
        self.job_name = job_name
        self.job_desc = job_desc
        self.script_location = script_location
        self.concurrent_run_limit = concurrent_run_limit or 1
        self.script_args = script_args or {}
        self.retry_limit = retry_limit
        self.num_of_dpus = num_of_dpus
        self.s3_bucket = s3_bucket
        self.iam_role_name = iam_role_name
        self.iam_role_arn = iam_role_arn
        self.create_job_kwargs = create_job_kwargs
        self.run_job_kwargs = run_job_kwargs or {}
        self.wait_for_termination = aws.resolve_wait(wait_for_termination, wait_for_completion, owner=owner)
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.verbose = verbose
        self.replace_script_file = replace_script_file
        self.update_config = update_config
        self.stop_job_run_on_kill = stop_job_run_on_kill
        self.sleep_before_return = sleep_before_return
        self.job_poll_interval = job_poll_interval
        self.waiter_delay = waiter_delay
        self.waiter_max_attempts = waiter_max_attempts
        aws.set_spark_openlineage(self, openlineage_inject_parent_job_info, openlineage_inject_transport_info)
        aws.set_connection(self, aws_conn_id, region_name, verify, botocore_config, region=region, owner=owner)
        self.s3_script_location: str | None = None
        self._check_parameters(owner, cancel_on_worker_shutdown)

    #: Upstream's name for ``wait_for_termination``: one value under both names.
    wait_for_completion = aws.UpstreamWaitFlag()

    # ----------------------------------------------------------------- construction checks
    def _check_parameters(self, owner: str, cancel_on_worker_shutdown: bool | None) -> None:
        stop = self.stop_job_run_on_kill
        if stop is not None and not isinstance(stop, bool):
            raise TypeError(
                f"{owner}: stop_job_run_on_kill must be True, False or None (None: the job-lifecycle rule), "
                f"got {stop!r} ({type(stop).__name__})"
            )
        if stop is True:
            if cancel_on_worker_shutdown is False:
                raise ValueError(
                    f"{owner}: stop_job_run_on_kill=True (stop the run on every kill, worker shutdowns included) "
                    "and cancel_on_worker_shutdown=False contradict each other: pass only one."
                )
            self.cancel_on_worker_shutdown = True  # upstream's meaning: a worker's SIGTERM stops the run too
        if not _templated(self.script_args):
            if not isinstance(self.script_args, dict):
                raise TypeError(f"{owner}: script_args must be a dict of run arguments, got {self.script_args!r}")
            if TOKEN_ARGUMENT in self.script_args:
                raise ValueError(
                    f"{owner}: script_args must not set {TOKEN_ARGUMENT!r}: the operator reserves that run "
                    "argument for the submission token that lets a retry find its run."
                )
        if not _templated(self.run_job_kwargs) and "Arguments" in (self.run_job_kwargs or {}):
            raise ValueError(
                f"{owner}: run_job_kwargs must not hold 'Arguments': pass the run's arguments as script_args"
            )
        if self.iam_role_name and self.iam_role_arn:
            raise ValueError(f"{owner}: iam_role_name and iam_role_arn are mutually exclusive: pass only one")
        local_script = self.script_location and not _templated(self.script_location)
        if local_script and not str(self.script_location).startswith("s3://") and not self.s3_bucket:
            raise ValueError(
                f"{owner}: script_location={self.script_location!r} is a local file, which is uploaded to "
                "s3_bucket before the job is created; set s3_bucket (or give an s3:// script_location)."
            )
        attempts = self.waiter_max_attempts
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise ValueError(f"{owner}: waiter_max_attempts must be an integer >= 1, got {attempts!r}")

    # ----------------------------------------------------------------- the hook
    @cached_property
    def hook(self) -> GlueJobHook:
        """Upstream's hook, configured as upstream's operator configures it (uploading a local script first)."""
        from airflow.providers.amazon.aws.hooks.glue import GlueJobHook

        return GlueJobHook(
            job_name=self.job_name,
            desc=self.job_desc,
            concurrent_run_limit=self.concurrent_run_limit,
            script_location=self._s3_script_location(),
            retry_limit=self.retry_limit,
            num_of_dpus=self.num_of_dpus,
            s3_bucket=self.s3_bucket,
            iam_role_name=self.iam_role_name,
            iam_role_arn=self.iam_role_arn,
            # the hook pops "Command" from this dict: give it a copy, the template field stays whole
            create_job_kwargs=dict(self.create_job_kwargs) if self.create_job_kwargs else None,
            update_config=self.update_config,
            job_poll_interval=self.job_poll_interval,
            **aws.hook_kwargs(self),
        )

    def _s3_script_location(self) -> str | None:
        """Where the job's script is: ``script_location`` itself, or where a local one is uploaded to."""
        if not self.script_location:
            return None
        if self.script_location.startswith("s3://"):
            return self.script_location
        return f"s3://{self.s3_bucket}/{S3_ARTIFACTS_PREFIX}{os.path.basename(self.script_location)}"

    def upload_etl_script_to_s3(self) -> str:
        """Upload the local ``script_location`` to ``s3_bucket`` (upstream's key); return its S3 URL.

        Runs before a run is started, never when a try only follows a run. An object already
        there is kept unless ``replace_script_file=True`` (upstream raises instead, on every
        later run of the task).
        """
        from airflow.providers.amazon.aws.hooks.s3 import S3Hook

        key = S3_ARTIFACTS_PREFIX + os.path.basename(self.script_location or "")
        s3 = S3Hook(aws_conn_id=self.aws_conn_id, region_name=self.region_name, verify=self.verify)
        if not self.replace_script_file and s3.check_for_key(key, bucket_name=self.s3_bucket):
            self.log.info("Keeping s3://%s/%s (replace_script_file=False)", self.s3_bucket, key)
        else:
            s3.load_file(self.script_location, key, bucket_name=self.s3_bucket, replace=True)
            self.log.info("Uploaded %s to s3://%s/%s", self.script_location, self.s3_bucket, key)
        self.s3_script_location = f"s3://{self.s3_bucket}/{key}"
        return self.s3_script_location

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the request
    def request_fingerprint(self, context: Context) -> str | None:
        request = {
            "job_name": self.job_name,
            "script_location": self.script_location,
            "script_args": self.script_args,
            "run_job_kwargs": self.run_job_kwargs,
            "create_job_kwargs": self.create_job_kwargs,
        }
        return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()

    def run_arguments(self, context: Context) -> dict[str, Any]:
        """The run's ``Arguments``: ``script_args``, OpenLineage's when asked for, and the submission token."""
        arguments = dict(self.script_args or {})
        if self.openlineage_inject_parent_job_info or self.openlineage_inject_transport_info:
            from airflow.providers.common.compat.openlineage.utils.spark import (
                inject_parent_job_information_into_glue_arguments,
                inject_transport_information_into_glue_arguments,
            )

            if self.openlineage_inject_parent_job_info:
                self.log.info("Injecting OpenLineage parent job information into Glue job arguments.")
                arguments = inject_parent_job_information_into_glue_arguments(arguments, context)
            if self.openlineage_inject_transport_info:
                self.log.info("Injecting OpenLineage transport information into Glue job arguments.")
                arguments = inject_transport_information_into_glue_arguments(arguments, context)
        if TOKEN_ARGUMENT in arguments:  # a rendered template may bring it
            raise ValueError(f"script_args must not set {TOKEN_ARGUMENT!r}: the operator reserves that run argument")
        if self.submission_token:
            arguments[TOKEN_ARGUMENT] = self.submission_token
        return arguments

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> str:
        from botocore.exceptions import ClientError

        arguments = self.run_arguments(context)
        if self.script_location and not self.script_location.startswith("s3://"):
            self.upload_etl_script_to_s3()
        self.log.info("Starting a run of AWS Glue job %r", self.job_name)
        try:
            return self.hook.initialize_job(arguments, self.run_job_kwargs)["JobRunId"]
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") != "ConcurrentRunsExceededException":
                raise
            return self._answer_concurrent_runs(error, context)

    def find_job(self, token: str, context: Context) -> str | None:
        run = find_run(self.hook.conn, self.job_name, TOKEN_ARGUMENT, token, max_pages=self.token_lookup_max_pages)
        return None if run is None else run["Id"]

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return status.describe_run(self.hook.conn, self.job_name, external_id)["JobRunState"]

    def is_job_active(self, job_status: str) -> bool:
        return status.is_active(job_status)

    def is_job_succeeded(self, job_status: str) -> bool:
        return status.is_succeeded(job_status)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        log_tokens = self.hook.LogContinuationTokens() if self.verbose else None
        last_state = None
        while True:
            run = status.describe_run(self.hook.conn, self.job_name, external_id)
            state = run["JobRunState"]
            if state != last_state:
                self.log.info("AWS Glue job %r run %s is %s", self.job_name, external_id, state)
                last_state = state
            if log_tokens is not None:
                self._print_logs(external_id, log_tokens)
            if not status.is_active(state):
                break
            time.sleep(self.job_poll_interval)
        if not status.is_succeeded(state):
            raise ExternalJobFailed(status.failure_summary(run))
        if self.sleep_before_return:
            time.sleep(self.sleep_before_return)  # lets Glue free the concurrency slot, as upstream

    def get_job_result(self, external_id: Any, context: Context) -> str:
        """The job run id, as upstream returns."""
        return external_id

    def build_trigger(self, external_id: Any, context: Context) -> BaseTrigger:
        """Our ``GlueJobRunTrigger``; upstream's ``GlueJobCompleteTrigger`` with ``verbose`` (it forwards the logs)."""
        kwargs = {
            "job_name": self.job_name,
            "run_id": external_id,
            "waiter_delay": int(self.waiter_delay),
            "waiter_max_attempts": self.waiter_max_attempts,
            **aws.trigger_kwargs(self),
        }
        if self.verbose:
            from airflow.providers.amazon.aws.triggers.glue import GlueJobCompleteTrigger

            return GlueJobCompleteTrigger(verbose=True, **kwargs)
        from resumable_jobs.providers.amazon.glue_trigger import GlueJobRunTrigger

        return GlueJobRunTrigger(**kwargs)

    def execute_complete(self, context: Context, event: dict[str, Any] | None = None) -> Any:
        """Translate the trigger's event (``status``, ``run_id``, ``message``: ours or upstream's
        ``GlueJobCompleteTrigger``'s) and finish."""
        event = aws.translate_trigger_event(event, "run_id", "job run succeeded", self._trigger_error)
        return super().execute_complete(context, event)

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        try:
            url = job_run_url(self.hook.conn_region_name, self.hook.conn_partition, self.job_name, external_id)
        except Exception as error:  # noqa: BLE001 - a link is a convenience: never fail the task over one
            self.log.warning("Could not build the console link of AWS Glue job run %s: %s", external_id, error)
            return
        push_xcom(context, GlueJobRunDetailsLink.xcom_key, url)
        if url:
            self.log.info("You can monitor this Glue Job run at: %s", url)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        response = self.hook.conn.batch_stop_job_run(JobName=self.job_name, JobRunIds=[external_id])
        for error in response.get("Errors") or []:
            detail = error.get("ErrorDetail") or {}
            self.log.error(
                "Glue did not stop job run %s: %s %s", external_id, detail.get("ErrorCode"), detail.get("ErrorMessage")
            )
        if response.get("SuccessfulSubmissions"):
            self.log.info("Asked AWS Glue to stop job run %s of job %r", external_id, self.job_name)

    def _cancellation_disabled_reason(self) -> str | None:
        # Upstream's meaning, kept when given: stop_job_run_on_kill=False never stops the run.
        return "stop_job_run_on_kill=False" if self.stop_job_run_on_kill is False else None

    # ----------------------------------------------------------------- helpers
    def _answer_concurrent_runs(self, error: Exception, context: Context) -> str:
        """StartJobRun was refused for concurrency: follow the run holding the slot if it is this task's."""
        conn = self.hook.conn
        if self.submission_token:
            ours = find_run(
                conn, self.job_name, TOKEN_ARGUMENT, self.submission_token, max_pages=self.token_lookup_max_pages
            )
            if ours is not None:
                self.log.info(
                    "StartJobRun was refused (ConcurrentRunsExceeded): run %s of this submission (token %s) "
                    "is %s; following it instead of starting another",
                    ours["Id"],
                    self.submission_token,
                    ours.get("JobRunState"),
                )
                return ours["Id"]
        task_uuid = upstream_task_uuid(context.get("ti"))
        if task_uuid:
            upstream_run = find_run(
                conn,
                self.job_name,
                UPSTREAM_TASK_UUID_ARGUMENT,
                task_uuid,
                max_pages=self.token_lookup_max_pages,
                accept=lambda run: status.is_active(run.get("JobRunState")),
            )
            if upstream_run is not None:
                self.log.info(
                    "StartJobRun was refused (ConcurrentRunsExceeded): run %s, started for this task instance by "
                    "the Amazon provider's GlueJobOperator (%s=%s), is %s; following it",
                    upstream_run["Id"],
                    UPSTREAM_TASK_UUID_ARGUMENT,
                    task_uuid,
                    upstream_run.get("JobRunState"),
                )
                return upstream_run["Id"]
        running = [
            f"{run.get('Id')} ({run.get('JobRunState')})"
            for run in iter_runs(conn, self.job_name, max_pages=self.token_lookup_max_pages)
            if status.is_active(run.get("JobRunState"))
        ]
        raise ExternalJobFailed(
            f"AWS Glue refused to start job {self.job_name!r}: it already runs as many runs as its "
            f"MaxConcurrentRuns allows ({error}). Running now: {', '.join(running) or 'none listed'}. None of them "
            "was started by this task instance, so this try does not follow them. Raise concurrent_run_limit "
            "(the job's MaxConcurrentRuns, applied with update_config=True), or let Airflow retry once they end."
        ) from error

    def _print_logs(self, run_id: str, tokens: Any) -> None:
        try:
            self.hook.print_job_logs(job_name=self.job_name, run_id=run_id, continuation_tokens=tokens)
        except Exception as error:  # noqa: BLE001 - log streaming must not fail the run it reports on
            self.log.warning("Could not stream the logs of AWS Glue job run %s: %s", run_id, error)

    def _trigger_error(self, run_id: str, message: Any) -> str:
        """The run's own failure summary when it ended; otherwise the trigger's message and the state."""
        try:
            run = status.describe_run(self.hook.conn, self.job_name, run_id)
        except Exception as error:  # noqa: BLE001 - the trigger's message is still worth raising
            return f"{message} (and the run could not be read: {error})"
        if status.is_active(run.get("JobRunState")):
            return f"{message} (the run is still {run.get('JobRunState')})"
        return status.failure_summary(run)


def _templated(value: Any) -> bool:
    """A Jinja template string, checked after rendering rather than at construction."""
    return isinstance(value, str) and "{{" in value
