"""``SparkSubmitOperator``: run a Spark application on a standalone master, crash-safe.

What it is for: submitting a jar or Python application in cluster mode to a Spark standalone
master through its REST submission server, so that the driver runs on the cluster - not in the
Airflow worker - and a retry after a worker crash reconnects to that driver instead of starting a
second one. Synchronous, deferrable and submit-only modes all go through the mixin.

How it works: the request body is built by :mod:`~resumable_jobs.providers.spark.request`, sent by
:class:`~resumable_jobs.providers.spark.rest_client.SparkRestClient`, and the driver id (e.g.
``driver-20260101000000-0000``) is persisted under ``spark_driver_id``. States map as in
:mod:`~resumable_jobs.providers.spark.status`. The synchronous path polls every
``status_poll_interval`` seconds; the deferrable path hands the driver to
:class:`~resumable_jobs.providers.spark.trigger.SparkDriverTrigger`.

What it does not do: it cannot close the window between the master accepting the driver and the
id being persisted: the standalone master offers no way to find a driver by name, tag or token,
so ``find_job`` is not implemented, and a crash in exactly that window submits a second driver on
retry. It does not run ``spark-submit``, support client mode, YARN or Kubernetes (see
:mod:`~resumable_jobs.providers.spark.unsupported`), or fetch the driver's log.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, JobNotFoundError, ResumableJobMixin
from resumable_jobs.providers.common import default_deferrable, push_xcom
from resumable_jobs.providers.spark import status as driver_states
from resumable_jobs.providers.spark.links import XCOM_DRIVER_ID_KEY, XCOM_MASTER_UI_URL_KEY, SparkMasterUiLink
from resumable_jobs.providers.spark.request import build_create_request, is_python_application
from resumable_jobs.providers.spark.unsupported import reject_unsupported

if TYPE_CHECKING:
    from airflow.sdk import Context

    from resumable_jobs.providers.spark.connection import SparkRestEndpoint
    from resumable_jobs.providers.spark.rest_client import SparkRestClient
    from resumable_jobs.providers.spark.trigger import SparkDriverTrigger

__all__ = ["SparkSubmitOperator"]

#: Failed status reads in a row the synchronous poll tolerates before failing the try.
MAX_CONSECUTIVE_POLL_ERRORS = 5


class SparkSubmitOperator(ResumableJobMixin, BaseOperator):
    """Submit a Spark application to a standalone master (REST, cluster mode); retries reconnect.

    What it is for: upstream's ``SparkSubmitOperator`` parameter names for what applies to a
    standalone cluster (``application``, ``java_class``, ``application_args``, ``conf``, ``name``,
    driver/executor sizing, ``jars``, ``files``, ``py_files``, ``env_vars``, ``conn_id``,
    ``status_poll_interval``), plus ``durable``, ``deferrable`` and ``wait_for_termination``.
    A ``.py`` application works too (through ``org.apache.spark.deploy.PythonRunner``), which
    ``spark-submit`` refuses in standalone cluster mode.

    How it works: per try the mixin decides - submit, reconnect to the stored driver while it is
    SUBMITTED/RUNNING/RELAUNCHING/UNKNOWN, return at once if it FINISHED, or submit a new driver
    if it FAILED/KILLED/ERROR or the master no longer knows it (a master restarted without
    recovery). The task returns the driver id; it is also pushed to XCom (``spark_driver_id``)
    with the master UI URL (the "Spark Master UI" link). ``cancel_job`` kills the driver,
    when the mixin's job-lifecycle rule says so.

    What it does not do: ``find_job`` is not offered - the standalone master cannot be searched
    by name or tag - so a crash between the master accepting the driver and the id reaching the
    store submits a second driver on retry (the one open window on standalone). Parameters for
    YARN, Kubernetes, Kerberos or client mode raise at construction, naming the alternative.
    """

    external_id_key = "spark_driver_id"
    external_id_xcom_key = XCOM_DRIVER_ID_KEY
    ui_color = "#FF9933"

    template_fields: Sequence[str] = (
        "application",
        "java_class",
        "application_args",
        "conf",
        "name",
        "files",
        "py_files",
        "jars",
        "archives",
        "driver_class_path",
        "packages",
        "exclude_packages",
        "env_vars",
    )
    template_fields_renderers: ClassVar[dict[str, str]] = {
        "conf": "json",
        "env_vars": "json",
        "application_args": "json",
    }
    operator_extra_links = (SparkMasterUiLink(),)

    def __init__(
        self,
        *,
        application: str,
        java_class: str | None = None,
        application_args: list[Any] | None = None,
        conf: dict[str, Any] | None = None,
        name: str = "airflow-spark",
        driver_memory: str | None = None,
        driver_cores: int | None = None,
        executor_memory: str | None = None,
        executor_cores: int | None = None,
        total_executor_cores: int | None = None,
        jars: str | None = None,
        files: str | None = None,
        py_files: str | None = None,
        archives: str | None = None,
        driver_class_path: str | None = None,
        packages: str | None = None,
        exclude_packages: str | None = None,
        repositories: str | None = None,
        env_vars: dict[str, Any] | None = None,
        conn_id: str = "spark_default",
        status_poll_interval: float = 5,
        deploy_mode: str | None = None,
        deferrable: bool | None = None,
        wait_for_termination: bool = True,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        reject_unsupported(
            f"{type(self).__name__}(task_id={kwargs.get('task_id', '?')!r})",
            {**kwargs, "deploy_mode": deploy_mode},
        )
        super().__init__(durable=durable, cancel_on_worker_shutdown=cancel_on_worker_shutdown, **kwargs)
        self.application = application
        self.java_class = java_class
        self.application_args = application_args
        self.conf = conf
        self.name = name
        self.driver_memory = driver_memory
        self.driver_cores = driver_cores
        self.executor_memory = executor_memory
        self.executor_cores = executor_cores
        self.total_executor_cores = total_executor_cores
        self.jars = jars
        self.files = files
        self.py_files = py_files
        self.archives = archives
        self.driver_class_path = driver_class_path
        self.packages = packages
        self.exclude_packages = exclude_packages
        self.repositories = repositories
        self.env_vars = env_vars
        self.conn_id = conn_id
        self.status_poll_interval = status_poll_interval
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.wait_for_termination = wait_for_termination
        if application and "{{" not in str(application) and not is_python_application(application) and not java_class:
            raise ValueError(
                f"{type(self).__name__}(task_id={self.task_id!r}): java_class is required for the jar "
                f"application {application!r} (the REST submission server does not read the jar's "
                "manifest); a .py application needs none"
            )

    # ----------------------------------------------------------------- collaborators
    @cached_property
    def endpoint(self) -> SparkRestEndpoint:
        from resumable_jobs.providers.spark.connection import resolve_endpoint

        return resolve_endpoint(self.conn_id)

    @cached_property
    def client(self) -> SparkRestClient:
        from resumable_jobs.providers.spark.rest_client import SparkRestClient

        return SparkRestClient(self.endpoint.rest_urls)

    def execute(self, context: Context) -> Any:
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the request
    def create_request(self) -> dict[str, Any]:
        """The ``CreateSubmissionRequest`` body of this (rendered) task."""
        return build_create_request(
            application=self.application,
            java_class=self.java_class,
            application_args=self.application_args,
            conf=self.conf,
            jars=self.jars,
            py_files=self.py_files,
            env_vars=self.env_vars,
            name=self.name,
            driver_memory=self.driver_memory,
            driver_cores=self.driver_cores,
            executor_memory=self.executor_memory,
            executor_cores=self.executor_cores,
            total_executor_cores=self.total_executor_cores,
            files=self.files,
            archives=self.archives,
            driver_class_path=self.driver_class_path,
            packages=self.packages,
            exclude_packages=self.exclude_packages,
            repositories=self.repositories,
        )

    def request_fingerprint(self, context: Context) -> str | None:
        payload = json.dumps(self.create_request(), sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> str:
        request = self.create_request()
        self.log.info(
            "Submitting Spark application %s (main class %s) to %s",
            self.application,
            request["mainClass"],
            ", ".join(self.endpoint.rest_urls),
        )
        driver_id = self.client.create(request)
        self.log.info("Spark master accepted driver %s", driver_id)
        return driver_id

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return self.client.status(str(external_id)).state

    def is_job_active(self, status: str) -> bool:
        return driver_states.is_active(status)

    def is_job_succeeded(self, status: str) -> bool:
        return driver_states.is_succeeded(status)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        from resumable_jobs.providers.spark.rest_client import SparkRestError

        driver_id = str(external_id)
        last_state = None
        errors: list[str] = []
        while True:
            try:
                current = self.client.status(driver_id)
            except JobNotFoundError as missing:
                raise ExternalJobFailed(
                    f"{missing}; the master may have restarted without recovery (a retry submits a new driver)"
                ) from missing
            except SparkRestError as error:
                errors.append(str(error))
                if len(errors) >= MAX_CONSECUTIVE_POLL_ERRORS:
                    raise
                self.log.warning("Could not read the status of Spark driver %s: %s", driver_id, error)
            else:
                errors.clear()
                if current.state != last_state:
                    self.log.info("Spark driver %s is %s", driver_id, current.state)
                    last_state = current.state
                if current.terminal:
                    if current.succeeded:
                        return
                    raise ExternalJobFailed(current.describe())
            time.sleep(self.status_poll_interval)

    def get_job_result(self, external_id: Any, context: Context) -> Any:
        """The driver id (also in XCom as ``spark_driver_id``)."""
        return external_id

    # ----------------------------------------------------------------- optional hooks
    def build_trigger(self, external_id: Any, context: Context) -> SparkDriverTrigger:
        from resumable_jobs.providers.spark.trigger import SparkDriverTrigger

        return SparkDriverTrigger(
            driver_id=str(external_id),
            rest_urls=self.endpoint.rest_urls,
            poll_interval=self.status_poll_interval,
        )

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        push_xcom(context, XCOM_MASTER_UI_URL_KEY, self.endpoint.master_ui_url)

    def cancel_job(self, external_id: Any, context: Context) -> None:
        accepted, message = self.client.kill(str(external_id))
        if accepted:
            self.log.info("Asked the Spark master to kill driver %s: %s", external_id, message)
        else:
            self.log.warning("Spark master did not kill driver %s: %s", external_id, message)
