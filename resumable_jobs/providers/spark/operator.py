"""``SparkSubmitOperator``: run a Spark application in cluster mode, crash-safe, on standalone, YARN or Kubernetes.

What it is for: submitting a jar or Python application so that the driver runs on the cluster -
not in the Airflow worker - and a retry after a worker crash reconnects to that driver instead of
starting a second one. Synchronous, deferrable and submit-only modes all go through the mixin.

How it works: the connection selects the cluster manager as upstream's ``spark`` connection does
(:mod:`~resumable_jobs.providers.spark.master`): ``spark://`` (or an HTTP connection to the REST
server) goes to a standalone master through its REST submission server
(:mod:`~resumable_jobs.providers.spark.standalone`); ``yarn`` and ``k8s://...`` run the installed
``spark-submit`` and follow the application through the ResourceManager REST API
(:mod:`~resumable_jobs.providers.spark.yarn.manager`) or the Kubernetes API
(:mod:`~resumable_jobs.providers.spark.kubernetes.manager`). This class implements the mixin's
contract once, in terms of :class:`~resumable_jobs.providers.spark.cluster_manager.ClusterManager`.
The application id is persisted under ``spark_driver_id``; on YARN and Kubernetes an id stored
by upstream's operator under ``spark_job_id`` is continued (:mod:`~resumable_jobs.providers.spark.migration`).

What it does not do: on a standalone master it cannot close the window between the master
accepting the driver and the id being persisted (drivers cannot be searched), so a crash in
exactly that window submits a second driver on retry; on YARN and Kubernetes the submission token
is a tag the retry looks up. It does not support client mode, and it does not fetch the driver's
log.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from resumable_jobs import ExternalJobFailed, ResumableJobMixin
from resumable_jobs.providers.common import default_deferrable, openlineage_default, push_xcom
from resumable_jobs.providers.spark.links import XCOM_DRIVER_ID_KEY, XCOM_MASTER_UI_URL_KEY, SparkMasterUiLink
from resumable_jobs.providers.spark.request import build_create_request, property_text
from resumable_jobs.providers.spark.unsupported import reject_unsupported

if TYPE_CHECKING:
    from airflow.sdk import Context
    from airflow.triggers.base import BaseTrigger

    from resumable_jobs.providers.spark.cluster_manager import ClusterManager
    from resumable_jobs.providers.spark.master import SparkConnection
    from resumable_jobs.providers.spark.submit_command import SparkSubmitSpec

__all__ = ["SparkSubmitOperator"]

#: Parameters only some cluster managers honour (checked when the task starts) and their "unset" value.
_CLUSTER_MANAGER_DEFAULTS: dict[str, Any] = {
    "num_executors": None,
    "keytab": None,
    "principal": None,
    "use_krb5ccache": False,
    "proxy_user": None,
    "spark_binary": None,
    "properties_file": None,
    "verbose": False,
    "yarn_queue": None,
    "yarn_rm_auth": None,
}


class SparkSubmitOperator(ResumableJobMixin, BaseOperator):
    """Submit a Spark application in cluster mode (standalone REST, YARN, Kubernetes); retries reconnect.

    What it is for: upstream's ``SparkSubmitOperator`` parameter names and meanings
    (``application``, ``java_class``, ``application_args``, ``conf``, ``name``, driver/executor
    sizing, ``num_executors``, ``jars``, ``files``, ``py_files``, ``env_vars``, ``keytab``,
    ``principal``, ``proxy_user``, ``use_krb5ccache``, ``properties_file``, ``verbose``,
    ``spark_binary``, ``yarn_queue``, ``yarn_rm_auth``, ``conn_id``, ``status_poll_interval``,
    ``openlineage_inject_*``), plus ``durable``, ``deferrable`` and ``wait_for_termination``. On a standalone master a
    ``.py`` application works too (through ``org.apache.spark.deploy.PythonRunner``), which
    ``spark-submit`` refuses there in cluster mode.

    How it works: per try the mixin decides - submit, reconnect to the stored application while
    it is active, return at once if it succeeded, or submit a new one if it failed or the cluster
    no longer knows it. On YARN and Kubernetes the submission carries the mixin's token as a tag
    (``spark.yarn.tags``, a driver pod label), and a retry whose predecessor died before the id
    was stored finds the application by it. The task returns the application id; it is also
    pushed to XCom (``spark_driver_id``) with the page of the "Spark Master UI" link (the master
    UI, or the application's page in the YARN ResourceManager UI). ``cancel_job`` kills the
    driver, the YARN application or the driver pod when the mixin's job-lifecycle rule says so.

    What it does not do: parameters a cluster manager cannot honour raise when the task starts
    (the connection is only known then), before anything is submitted; client mode raises at
    construction.
    """

    external_id_key = "spark_driver_id"
    external_id_xcom_key = XCOM_DRIVER_ID_KEY
    poll_interval_parameters = ("status_poll_interval",)

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
        "keytab",
        "principal",
        "proxy_user",
        "properties_file",
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
        name: str = "arrow-spark",
        driver_memory: str | None = None,
        driver_cores: int | None = None,
        executor_memory: str | None = None,
        executor_cores: int | None = None,
        total_executor_cores: int | None = None,
        num_executors: int | None = None,
        jars: str | None = None,
        files: str | None = None,
        py_files: str | None = None,
        archives: str | None = None,
        driver_class_path: str | None = None,
        packages: str | None = None,
        exclude_packages: str | None = None,
        repositories: str | None = None,
        env_vars: dict[str, Any] | None = None,
        keytab: str | None = None,
        principal: str | None = None,
        proxy_user: str | None = None,
        use_krb5ccache: bool = False,
        properties_file: str | None = None,
        verbose: bool = False,
        spark_binary: str | None = None,
        yarn_queue: str | None = None,
        yarn_rm_auth: Any = None,
        yarn_track_via_rm_api: bool | None = None,
        track_driver_via_k8s_api: bool | None = None,
        conn_id: str = "spark_default",
        status_poll_interval: float = 1,
        deploy_mode: str | None = None,
        deferrable: bool | None = None,
        wait_for_termination: bool = True,
        openlineage_inject_parent_job_info: bool | None = None,
        openlineage_inject_transport_info: bool | None = None,
        reconnect_on_retry: bool | None = None,
        durable: bool | None = None,
        cancel_on_worker_shutdown: bool | None = None,
        **kwargs: Any,
    ) -> None:
        if reconnect_on_retry is not None:
            warnings.warn(
                "reconnect_on_retry is upstream's deprecated name of durable; use durable=.",
                DeprecationWarning,
                stacklevel=3,
            )
            durable = reconnect_on_retry if durable is None else durable
        reject_unsupported(
            f"{type(self).__name__}(task_id={kwargs.get('task_id', '?')!r})",
            {
                **kwargs,
                "deploy_mode": deploy_mode,
                "yarn_track_via_rm_api": yarn_track_via_rm_api,
                "track_driver_via_k8s_api": track_driver_via_k8s_api,
            },
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
        self.num_executors = num_executors
        self.jars = jars
        self.files = files
        self.py_files = py_files
        self.archives = archives
        self.driver_class_path = driver_class_path
        self.packages = packages
        self.exclude_packages = exclude_packages
        self.repositories = repositories
        self.env_vars = env_vars
        self.keytab = keytab
        self.principal = principal
        self.proxy_user = proxy_user
        self.use_krb5ccache = use_krb5ccache
        self.properties_file = properties_file
        self.verbose = verbose
        self.spark_binary = spark_binary
        self.yarn_queue = yarn_queue
        self.yarn_rm_auth = yarn_rm_auth
        self.conn_id = conn_id
        self.status_poll_interval = status_poll_interval
        self.deferrable = default_deferrable() if deferrable is None else deferrable
        self.wait_for_termination = wait_for_termination
        self.openlineage_inject_parent_job_info = openlineage_default(
            openlineage_inject_parent_job_info, "spark_inject_parent_job_info"
        )
        self.openlineage_inject_transport_info = openlineage_default(
            openlineage_inject_transport_info, "spark_inject_transport_info"
        )
        if self.deferrable and self.wait_for_termination and yarn_rm_auth is not None:
            raise ValueError(
                f"{type(self).__name__}(task_id={self.task_id!r}): yarn_rm_auth cannot reach the triggerer "
                "(an auth object is not JSON), so deferrable=True could not read the application's status "
                "there. Use deferrable=False, or let the ResourceManager calls authenticate with Kerberos "
                "from the task's keytab/principal (the triggerer then needs requests-kerberos and a ticket)."
            )

    # ----------------------------------------------------------------- collaborators
    @cached_property
    def spark_connection(self) -> SparkConnection:
        from resumable_jobs.providers.spark.master import resolve_spark_connection

        return resolve_spark_connection(self.conn_id)

    @cached_property
    def cluster_manager(self) -> ClusterManager:
        """The cluster manager the connection names, for the rendered task (built once per try)."""
        from resumable_jobs.providers.spark.master import ClusterManagerKind
        from resumable_jobs.providers.spark.unsupported import reject_for_cluster_manager

        connection = self.spark_connection
        given = {
            name: getattr(self, name)
            for name, unset in _CLUSTER_MANAGER_DEFAULTS.items()
            if getattr(self, name) not in (unset, "")
        }
        reject_for_cluster_manager(
            f"{type(self).__name__}(task_id={self.task_id!r})",
            connection.kind,
            given,
            connection_deploy_mode=None if connection.kind is ClusterManagerKind.STANDALONE else connection.deploy_mode,
        )
        if connection.kind is ClusterManagerKind.STANDALONE:
            from resumable_jobs.providers.spark.standalone import StandaloneClusterManager

            return StandaloneClusterManager(
                connection, application=str(self.application), create_request=self.create_request, log=self.log
            )
        common: dict[str, Any] = {
            "log": self.log,
            "spark_binary": self.spark_binary,
            "env_vars": self.env_vars,
            "use_krb5ccache": self.use_krb5ccache,
        }
        if connection.kind is ClusterManagerKind.YARN:
            from resumable_jobs.providers.spark.yarn.manager import YarnClusterManager

            return YarnClusterManager(
                connection, self.submit_spec(connection), yarn_rm_auth=self.yarn_rm_auth, **common
            )
        from resumable_jobs.providers.spark.kubernetes.manager import KubernetesClusterManager

        return KubernetesClusterManager(connection, self.submit_spec(connection), **common)

    def execute(self, context: Context) -> Any:
        from resumable_jobs.providers.spark.standalone import StandaloneClusterManager

        manager = self.cluster_manager  # refuses what this cluster manager cannot honour
        if not isinstance(manager, StandaloneClusterManager):
            manager.check_ready()
            if self.durable:
                from resumable_jobs.mixin.checkpoint import CHECKPOINT_SUFFIX
                from resumable_jobs.providers.spark.migration import adopt_upstream_job_id

                adopt_upstream_job_id(
                    context,
                    id_key=self.external_id_key,
                    bookkeeping_key=f"{self.external_id_key}{CHECKPOINT_SUFFIX}",
                    log=self.log,
                )
        return self.execute_resumable(context)

    # ----------------------------------------------------------------- the request
    def create_request(self) -> dict[str, Any]:
        """The standalone REST server's ``CreateSubmissionRequest`` body of this (rendered) task."""
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

    def submit_spec(self, connection: SparkConnection) -> SparkSubmitSpec:
        """What ``spark-submit`` is asked for on YARN or Kubernetes (rendered task, connection extras)."""
        from resumable_jobs.providers.spark.master import ClusterManagerKind
        from resumable_jobs.providers.spark.submit_command import SparkSubmitSpec

        queue = (self.yarn_queue or connection.queue) if connection.kind is ClusterManagerKind.YARN else None
        return SparkSubmitSpec(
            application=str(self.application),
            master=connection.master,
            conf={str(k): property_text(v) for k, v in (self.conf or {}).items() if v is not None},
            application_args=tuple(property_text(a) for a in (self.application_args or [])),
            java_class=self.java_class,
            name=self.name,
            driver_memory=self.driver_memory,
            driver_cores=self.driver_cores,
            executor_memory=self.executor_memory,
            executor_cores=self.executor_cores,
            total_executor_cores=self.total_executor_cores,
            num_executors=self.num_executors,
            jars=self.jars,
            files=self.files,
            py_files=self.py_files,
            archives=self.archives,
            driver_class_path=self.driver_class_path,
            packages=self.packages,
            exclude_packages=self.exclude_packages,
            repositories=self.repositories,
            keytab=self.keytab,
            principal=self.principal,
            proxy_user=self.proxy_user,
            queue=queue,
            properties_file=self.properties_file,
            verbose=bool(self.verbose),
        )

    def request_fingerprint(self, context: Context) -> str | None:
        payload = json.dumps(self.cluster_manager.fingerprint_payload(), sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    # ----------------------------------------------------------------- the contract
    def submit_job(self, context: Context) -> str:
        # The mixin sets the token before every call; a direct call still gets a tag of its own.
        from resumable_jobs.mixin.tokens import one_off_token

        return self.cluster_manager.submit(
            self.submission_token or one_off_token(task_id=self.task_id),
            extra_conf=self.openlineage_conf(context),
        )

    def openlineage_conf(self, context: Context) -> dict[str, str]:
        """The OpenLineage Spark properties asked for, for this try only (never in the fingerprint).

        The parent run id they carry changes with every try, and a retry must still recognise the
        application an earlier try submitted, so they go to the submission, not to the request.
        """
        from resumable_jobs.providers.spark.lineage import openlineage_properties

        return openlineage_properties(
            {str(k): property_text(v) for k, v in (self.conf or {}).items() if v is not None},
            context,
            parent_job_info=self.openlineage_inject_parent_job_info,
            transport_info=self.openlineage_inject_transport_info,
            log=self.log,
        )

    def get_job_status(self, external_id: Any, context: Context) -> str:
        return self.cluster_manager.status(str(external_id)).state

    def is_job_active(self, status: str) -> bool:
        return self.cluster_manager.is_active(status)

    def is_job_succeeded(self, status: str) -> bool:
        return self.cluster_manager.is_succeeded(status)

    def poll_until_complete(self, external_id: Any, context: Context) -> None:
        from resumable_jobs.providers.spark.polling import wait_until_terminal

        final = wait_until_terminal(
            self.cluster_manager, str(external_id), interval=self.status_poll_interval, log=self.log
        )
        if not final.succeeded:
            raise ExternalJobFailed(final.describe())

    def get_job_result(self, external_id: Any, context: Context) -> Any:
        """The application id (also in XCom as ``spark_driver_id``)."""
        return external_id

    # ----------------------------------------------------------------- optional hooks
    def find_job(self, token: str, context: Context) -> Any:
        return self.cluster_manager.find(token)

    def build_trigger(self, external_id: Any, context: Context) -> BaseTrigger:
        return self.cluster_manager.trigger(str(external_id), self.status_poll_interval)

    def on_job_selected(self, external_id: Any, context: Context) -> None:
        push_xcom(context, XCOM_MASTER_UI_URL_KEY, self.cluster_manager.ui_url(str(external_id)))

    def cancel_job(self, external_id: Any, context: Context) -> None:
        self.cluster_manager.cancel(str(external_id))
