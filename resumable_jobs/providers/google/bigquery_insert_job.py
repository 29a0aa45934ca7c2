"""The crash-safe ``BigQueryInsertJobOperator``.

What it is for: running one BigQuery job (query, load, copy or extract) from a task so that a worker
that dies at any point - after inserting the job, while waiting for it, before or after deferring -
never causes a second job on the retry, and the task still reports the job's real outcome. It takes
the upstream operator's parameters, so switching is an import change.

How it works: the mixin decides which job a try follows (see ``resumable_jobs.mixin``). Before
inserting, it persists a per-generation ``submission_token``; the BigQuery job id is derived from
it (:mod:`.job_ids`). When a try dies between BigQuery accepting the job and the id reaching the
store, the retry inserts the same id again, BigQuery answers 409 "Already Exists", and the operator
follows that job: the window that is open on most systems is closed here natively. Waiting is a
poll loop on ``jobs.get`` (synchronous) or our :class:`~resumable_jobs.providers.google.trigger.BigQueryJobTrigger`
(deferrable; upstream's event shape).
The upstream ``BigQueryHook`` does every API call; hooks, triggers and Google libraries are
imported inside methods, so importing this module costs a DAG file almost nothing.

What it does not do: it does not return query rows (the task returns the job id, as upstream
does: read results with a hook or a downstream operator); it does not rerun a job id BigQuery
already knows (``force_rerun`` never breaks the crash guarantee, see the user doc); it cannot find a
regional job whose ``location`` was neither given nor set on the connection.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ResumableJobMixin
from resumable_jobs.mixin.contract import EVENT_ERROR, EVENT_SUCCESS
from resumable_jobs.mixin.errors import ExternalJobFailed, JobNotFoundError
from resumable_jobs.providers.common import default_deferrable, push_xcom
from resumable_jobs.providers.google import job_ids, status
from resumable_jobs.providers.google.links import (
    JOB_URL_XCOM_KEY,
    TABLE_URL_XCOM_KEY,
    BigQueryJobLink,
    BigQueryTableLink,
    destination_table,
    job_url,
    table_url,
)

if TYPE_CHECKING:
    from airflow.providers.google.cloud.hooks.bigquery import BigQueryHook
    from airflow.sdk import Context

    from resumable_jobs.providers.google.trigger import BigQueryJobTrigger

__all__ = ["BigQueryInsertJobOperator"]

#: XCom key of the job id (the task's return value holds it too).
JOB_ID_XCOM_KEY = "bigquery_job_id"


class _LibraryDefaultRetry:
    """``result_retry``'s default: google-cloud-bigquery's ``DEFAULT_RETRY``, looked up when used.

    Upstream's signature holds the library object itself; naming it here would import the Google
    libraries whenever a DAG file imports this module.
    """

    def __repr__(self) -> str:
        return "google.cloud.bigquery.retry.DEFAULT_RETRY"

    @staticmethod
    def resolve() -> Any:
        from google.cloud.bigquery.retry import DEFAULT_RETRY

        return DEFAULT_RETRY


DEFAULT_RESULT_RETRY = _LibraryDefaultRetry()
_LABEL_VALUE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


class BigQueryInsertJobOperator(ResumableJobMixin, BaseOperator):
    """Insert a BigQuery job and wait for it, crash-safe on every path.

    What it is for: the upstream operator's job - run the job described by ``configuration`` (the
    REST API's ``JobConfiguration``) and return its id - with retries that reconnect to the job a
    crashed try inserted instead of inserting another (module docstring). Parameters are upstream's,
    plus ``durable``, ``wait_for_termination`` and ``labels``.

    How it works: the job id is ``<job_id or airflow_<dag_id>>_<submission token>``; a retry of
    the same generation reuses it and a 409 from BigQuery means "this is our job: follow it". A job
    that failed, or a task that was cleared after success, starts a new generation and so a new
    job id. ``wait_for_termination=True`` polls every ``poll_interval`` seconds or, with
    ``deferrable=True``, hands the job to our ``BigQueryJobTrigger``; ``False`` returns the id as
    soon as BigQuery accepted the job. The mixin's job-lifecycle rule decides when the job
    is cancelled (``cancel_job``); ``cancel_on_kill=False`` means never, as upstream. The job
    id goes to XCom (``bigquery_job_id``) with the job's console URL and, for queries, the
    destination table's.

    What it does not do: ``force_rerun`` and ``reattach_states`` cannot make a retry insert a
    second job for one generation, nor reattach to a job of another task: with a task state store
    every id this operator inserts carries its own unguessable token. They keep their upstream
    meaning only where no store is involved (Airflow < 3.3, ``durable=False``): there
    ``force_rerun=False`` derives the id from the configuration and a 409 reattaches when the
    job's state is in ``reattach_states``.
    """

    external_id_key = "bigquery_job_id"
    external_id_xcom_key = JOB_ID_XCOM_KEY
    poll_interval_parameters = ("poll_interval",)

    template_fields: Sequence[str] = (
        "configuration",
        "job_id",
        "gcp_conn_id",
        "impersonation_chain",
        "project_id",
    )
    template_ext: Sequence[str] = (".json", ".sql")
    template_fields_renderers: ClassVar[dict[str, str]] = {"configuration": "json", "configuration.query.query": "sql"}
    ui_color = "#A1BBFF"  # upstream's BigQuery query colour
    operator_extra_links = (BigQueryTableLink(), BigQueryJobLink())

    def __init__(
        self,
        *,
        configuration: dict[str, Any],
        project_id: str | None = None,
        location: str | None = None,
        job_id: str | None = None,
        force_rerun: bool = True,
        reattach_states: set[str] | None = None,
        gcp_conn_id: str = "google_cloud_default",
        impersonation_chain: str | Sequence[str] | None = None,
        labels: dict[str, str] | None = None,
        cancel_on_kill: bool = True,
        result_retry: Any = DEFAULT_RESULT_RETRY,
        result_timeout: float | None = None,
        deferrable: bool | None = None,
        wait_for_termination: bool = True,
        poll_interval: float = 4.0,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        self.configuration = configuration
        self.project_id = project_id
        self.location = location
        self.job_id = job_id
        self.force_rerun = force_rerun
        self.reattach_states: set[str] = set(reattach_states or ())
        self.gcp_conn_id = gcp_conn_id
        self.impersonation_chain = impersonation_chain
        self.labels = labels
        self.cancel_on_kill = cancel_on_kill
        self.result_retry = result_retry
        self.result_timeout = result_timeout
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.wait_for_termination = wait_for_termination
        self.poll_interval = poll_interval
        self.hook: BigQueryHook | None = None
        self._jobs: dict[str, Any] = {}  # job id -> the latest google.cloud.bigquery job object
        self._locations: dict[str, str] = {}  # job id -> location carried across a deferral

    # ----------------------------------------------------------------- Airflow entry points
    @property
    def sql(self) -> str | None:
        """The query of a query job (upstream's attribute; OpenLineage's SQL job facet reads it)."""
        try:
            return self.configuration["query"]["query"]
        except (KeyError, TypeError):
            return None

    def prepare_template(self) -> None:
        # A configuration given as a path to a .json file is the file's JSON content.
        if isinstance(self.configuration, str) and self.configuration.endswith(".json"):
            with open(self.configuration) as handle:
                self.configuration = json.load(handle)

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the six methods
    def submit_job(self, context: Context) -> str:
        """Insert the job under an id derived from the submission; on 409, follow the existing job."""
        from google.api_core.exceptions import Conflict

        hook = self._get_hook()
        project_id = self._project_id()
        job_id, ours = self._job_id_for_this_submission(context)
        configuration = self._configuration_with_labels()
        self.log.info("Inserting BigQuery job %s in project %s", job_id, project_id)
        try:
            job = hook.insert_job(
                configuration=configuration,
                job_id=job_id,
                project_id=project_id,
                location=self.location,
                nowait=True,
                retry=self._result_retry(),
            )
        except Conflict:
            job = self._existing_job(job_id, ours=ours)
        self._jobs[job.job_id] = job
        return job.job_id

    def get_job_status(self, external_id: Any, context: Context) -> str:
        job = self._fetch_job(str(external_id))
        return status.job_status(job.state, job.error_result)

    def is_job_active(self, status_: str) -> bool:
        return status.is_active(status_)

    def is_job_succeeded(self, status_: str) -> bool:
        return status.is_succeeded(status_)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        job_id = str(external_id)
        job = self._jobs.get(job_id)
        while job is None or job.state != status.DONE:
            if job is not None:
                self.log.info("BigQuery job %s is %s; checking again in %s s", job_id, job.state, self.poll_interval)
                time.sleep(self.poll_interval)
            job = self._fetch_job(job_id)
        self._raise_if_failed(job)
        self.log.info("BigQuery job %s succeeded", job_id)

    def get_job_result(self, external_id: Any, context: Context) -> Any:
        """The job id, as the upstream operator returns (rows are not fetched)."""
        return external_id

    # ----------------------------------------------------------------- optional hooks
    def request_fingerprint(self, context: Context) -> str | None:
        request = {
            "configuration": self.configuration,
            "project_id": self.project_id,
            "location": self.location,
            "job_id": self.job_id,
            "labels": self.labels,
        }
        canonical = json.dumps(request, sort_keys=True, default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        job_id = str(external_id)
        job = self._jobs.get(job_id)
        project_id = self._project_id()
        location = self._location_of(job_id)
        if project_id:
            push_xcom(context, JOB_URL_XCOM_KEY, job_url(project_id, job_id, location))
        config = job.to_api_repr().get("configuration") if job is not None else self.configuration
        table = destination_table(config, project_id) or destination_table(self.configuration, project_id)
        if table is not None:
            push_xcom(context, TABLE_URL_XCOM_KEY, table_url(*table))

    def build_trigger(self, external_id: Any, context: Context) -> BigQueryJobTrigger:
        from resumable_jobs.providers.google.trigger import BigQueryJobTrigger

        return BigQueryJobTrigger(
            conn_id=self.gcp_conn_id,
            job_id=str(external_id),
            project_id=self._project_id(),
            location=self._location_of(str(external_id)) or self._get_hook().location,
            poll_interval=self.poll_interval,
            impersonation_chain=self.impersonation_chain,
            cancel_on_kill=self.cancel_on_kill,
        )

    def defer(
        self, *, trigger: Any, method_name: str, kwargs: dict[str, Any] | None = None, timeout: Any = None
    ) -> Any:
        """Defer as BaseOperator does, carrying the job id and location to ``execute_complete``.

        Upstream's trigger omits the job id from its error event; the resumed try still has to
        name (and link) the job it followed, so it travels in the deferral's kwargs.
        """
        carried = dict(kwargs or {})
        if getattr(trigger, "job_id", None) is not None:
            carried.setdefault("job_id", trigger.job_id)
            carried.setdefault("job_location", getattr(trigger, "location", None))
        return super().defer(
            trigger=trigger,
            method_name=method_name,
            kwargs=carried,
            timeout=timeout if timeout is not None else self.execution_timeout,
        )

    def execute_complete(
        self,
        context: Context,
        event: dict[str, Any] | None,
        job_id: str | None = None,
        job_location: str | None = None,
    ) -> Any:
        """Translate the trigger's event, then finish as the mixin does.

        Our ``BigQueryJobTrigger`` fires ``{"status": "success" | "error", "job_id", "message"}``;
        upstream's ``BigQueryInsertJobTrigger`` (a task deferred by an earlier release) fires the
        same without ``job_id`` on error (an error can also be the trigger's own failure while the
        job still runs).
        On error the job is read once more, so the exception names BigQuery's reason and whether
        the job is still running.
        """
        if job_id and job_location:
            self._locations[job_id] = job_location
        if (
            isinstance(event, dict)
            and "external_id" not in event
            and event.get("status") in (EVENT_SUCCESS, EVENT_ERROR)
        ):
            external_id = event.get("job_id") or job_id
            message = str(event.get("message") or "")
            if event["status"] == EVENT_ERROR and external_id is not None:
                message = self._explain_trigger_error(str(external_id), message)
            event = {"status": event["status"], "external_id": external_id, "message": message}
        elif isinstance(event, dict) and event.get("external_id") is None and job_id is not None:
            event = {**event, "external_id": job_id}
        return super().execute_complete(context, event)

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        """Upstream's lineage for the job this try followed, however it came to follow it.

        The OpenLineage listener calls this after the task finished (and, as upstream, after it
        failed); see :mod:`resumable_jobs.providers.google.lineage`.
        """
        from resumable_jobs.providers.google.lineage import job_lineage

        job_id = None if self.current_external_id is None else str(self.current_external_id)
        location = self._location_of(job_id) if job_id else self.location
        return job_lineage(self, job_id, location, task_instance)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        job_id = str(external_id)
        self._get_hook().cancel_job(job_id=job_id, project_id=self._project_id(), location=self._location_of(job_id))
        self.log.info("Asked BigQuery to cancel job %s", job_id)

    def _cancellation_disabled_reason(self) -> str | None:
        # Upstream's meaning: with cancel_on_kill=False the job is never cancelled.
        return None if self.cancel_on_kill else "cancel_on_kill=False"

    # ----------------------------------------------------------------- helpers
    def _get_hook(self) -> BigQueryHook:
        if self.hook is None:
            from airflow.providers.google.cloud.hooks.bigquery import BigQueryHook

            # use_legacy_sql only concerns the hook's own query helpers (not insert_job, where the
            # configuration decides); passing it avoids the hook's deprecation warning.
            self.hook = BigQueryHook(
                gcp_conn_id=self.gcp_conn_id,
                impersonation_chain=self.impersonation_chain,
                use_legacy_sql=False,
            )
        return self.hook

    def _result_retry(self) -> Any:
        """The ``Retry`` for the calls that insert and read the job (None: no retries, as upstream)."""
        retry = self.result_retry
        return retry.resolve() if isinstance(retry, _LibraryDefaultRetry) else retry

    def _project_id(self) -> str:
        return self.project_id or self._get_hook().project_id

    def _location_of(self, job_id: str) -> str | None:
        """Where the job runs: as BigQuery reported it, as carried across a deferral, or as configured."""
        job = self._jobs.get(job_id)
        return getattr(job, "location", None) or self._locations.get(job_id) or self.location

    def _checkpointed(self, context: Context) -> bool:
        """True when the mixin keeps this task's submission in ``task_state_store``."""
        return bool(getattr(self, "durable", False)) and context.get("task_state_store") is not None

    def _job_id_for_this_submission(self, context: Context) -> tuple[str, bool]:
        """The job id to insert, and whether it is derived from the (unguessable) submission token."""
        ti = context.get("ti")
        dag_id = getattr(ti, "dag_id", None) or self.dag_id
        if not self.force_rerun and not self._checkpointed(context):
            job_id = job_ids.job_id_for_configuration(
                self.configuration,
                prefix=self.job_id,
                dag_id=dag_id,
                task_id=getattr(ti, "task_id", None) or self.task_id,
                run_id=getattr(ti, "run_id", None) or context.get("run_id"),
            )
            return job_id, False
        if not self.submission_token:
            raise RuntimeError("submission_token is not set: submit_job() must be called by the mixin")
        return job_ids.job_id_for_token(self.submission_token, prefix=self.job_id, dag_id=dag_id), True

    def _existing_job(self, job_id: str, *, ours: bool) -> Any:
        """BigQuery already knows ``job_id``: decide whether this try follows that job."""
        job = self._fetch_job(job_id)
        if ours:
            self.log.info(
                "BigQuery job %s already exists (%s): an earlier try of this submission inserted it; "
                "following that job instead of inserting another",
                job_id,
                job.state,
            )
            return job
        if job.state in self.reattach_states and job.state != status.DONE:
            self.log.info("Reattaching to existing BigQuery job %s in state %s", job_id, job.state)
            return job
        raise ExternalJobFailed(
            f"BigQuery job {job_id} already exists and is {job.state}: force_rerun=False reuses the id of an "
            f"identical configuration. Set force_rerun=True to run it again, or add {job.state!r} to "
            "reattach_states to follow a job that is still running."
        )

    def _fetch_job(self, job_id: str) -> Any:
        from google.api_core.exceptions import NotFound

        hook = self._get_hook()
        location = self._location_of(job_id) or hook.location
        client = hook.get_client(project_id=self._project_id(), location=location)
        options: dict[str, Any] = {"retry": self._result_retry()}
        if self.result_timeout is not None:
            options["timeout"] = self.result_timeout
        try:
            job = client.get_job(job_id, project=self._project_id(), location=location, **options)
        except NotFound as err:
            raise JobNotFoundError(job_id, f"BigQuery answered 404 ({err.message})") from err
        self._jobs[job_id] = job
        return job

    def _raise_if_failed(self, job: Any) -> None:
        for error in job.errors or []:
            self.log.warning("BigQuery job %s reported: %s", job.job_id, error)
        if job.error_result:
            raise ExternalJobFailed(status.failure_message(job.job_id, job.error_result, job.errors))

    def _explain_trigger_error(self, job_id: str, message: str) -> str:
        from google.api_core.exceptions import GoogleAPIError

        try:
            job = self._fetch_job(job_id)
        except (GoogleAPIError, JobNotFoundError, OSError) as err:  # the event's message still says enough
            self.log.warning("Could not read BigQuery job %s after the trigger's error: %s", job_id, err)
            return message
        if job.state == status.DONE and job.error_result:
            return status.failure_message(job_id, job.error_result, job.errors)
        if job.state != status.DONE:
            next_try = "follows the same job" if getattr(self, "durable", False) else "inserts a new job"
            return (
                f"the trigger stopped with an error while BigQuery job {job_id} is still {job.state} "
                f"({message}); a retry {next_try}"
            )
        return message

    def _configuration_with_labels(self) -> dict[str, Any]:
        """The configuration to insert: ``labels`` merged under the configuration's own, plus
        ``airflow-dag`` / ``airflow-task`` labels where the ids are valid label values."""
        if not isinstance(self.configuration, dict):
            raise TypeError(
                f"configuration must be a dict (BigQuery's JobConfiguration), got {type(self.configuration).__name__}"
            )
        configuration = dict(self.configuration)
        labels = {**(self.labels or {}), **(configuration.get("labels") or {})}
        for key, value in (("airflow-dag", self.dag_id), ("airflow-task", self.task_id)):
            value = (value or "").lower().replace(".", "-")
            if value and len(value) <= 63 and value[0].isalpha() and set(value) <= _LABEL_VALUE_CHARS:
                labels.setdefault(key, value)
        if labels:
            configuration["labels"] = labels
        return configuration
