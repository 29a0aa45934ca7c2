"""What YARN and Kubernetes share: submission through ``spark-submit``, tagged with the token.

What it is for: the part of a cluster manager that runs the installed Spark's ``spark-submit``
(``spark_binary``) in cluster mode, so that YARN and Kubernetes get exactly the submission their
users know, and that makes the application findable by the mixin's submission token - the step
that closes the window between the cluster accepting the application and its id reaching
``task_state_store``.

How it works: :meth:`SparkSubmitClusterManager.submit` adds the subclass's
:meth:`~SparkSubmitClusterManager.submission_conf` (the tag carrying the token,
``waitAppCompletion=false`` so ``spark-submit`` exits once the cluster has the application, the
driver's environment) to the task's ``conf``, runs the command with the Kerberos material of
:mod:`~resumable_jobs.providers.spark.credentials`, and takes the application id from the output;
if the output did not name it, it looks the token up (``find``). A non-zero exit fails the try
with the output's last lines; an application created before the failure still carries the tag,
so the retry finds it.

What it does not do: it does not poll (the ResourceManager or the Kubernetes API is read
afterwards), and it holds no JVM after submission.
"""

from __future__ import annotations

import os
import re
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.providers.spark.cluster_manager import ClusterManager
from resumable_jobs.providers.spark.credentials import KRB5CCACHE_CONF, kerberos_for_submit
from resumable_jobs.providers.spark.spark_submit import SparkSubmitFailed, run_spark_submit
from resumable_jobs.providers.spark.submit_command import SparkSubmitSpec, spark_submit_argv

if TYPE_CHECKING:
    from resumable_jobs.providers.spark.master import SparkConnection

__all__ = ["SparkSubmitClusterManager"]


class SparkSubmitClusterManager(ClusterManager):
    """Submission through ``spark-submit`` with the token as a tag (see the module docstring)."""

    #: Finds the application id in ``spark-submit``'s output (group 1 when it has one).
    id_pattern: ClassVar[re.Pattern[str]]

    def __init__(
        self,
        connection: SparkConnection,
        spec: SparkSubmitSpec,
        *,
        log: Any,
        spark_binary: str | None = None,
        env_vars: Mapping[str, Any] | None = None,
        use_krb5ccache: bool = False,
    ) -> None:
        self.connection = connection
        self.spec = spec
        self.log = log
        self.binary = spark_binary or connection.spark_binary
        self.env_vars = {str(k): str(v) for k, v in (env_vars or {}).items()}
        self.use_krb5ccache = use_krb5ccache

    @abstractmethod
    def submission_conf(self, token: str) -> dict[str, str]:
        """The Spark properties this cluster manager adds: the tag with ``token``, no waiting, env."""

    @abstractmethod
    def describe_tag(self, token: str) -> str:
        """How the log names the tag (``spark.yarn.tags=...``, a pod label)."""

    def process_env(self) -> dict[str, str]:
        """The environment ``spark-submit`` runs with (the worker's, by default)."""
        return dict(os.environ)

    @property
    def kerberos(self) -> bool:
        """Whether this task authenticates with Kerberos (a principal from the task or the connection)."""
        return bool(self.spec.principal or self.connection.principal or self.use_krb5ccache)

    def submit(self, token: str, *, extra_conf: Mapping[str, str] | None = None) -> str:
        conf = {**self.spec.conf, **(extra_conf or {}), **self.submission_conf(token)}
        if self.use_krb5ccache:
            conf.update(KRB5CCACHE_CONF)
        env = self.process_env()
        with kerberos_for_submit(
            keytab=self.spec.keytab,
            principal=self.spec.principal,
            connection_keytab_base64=self.connection.keytab_base64,
            connection_principal=self.connection.principal,
            use_krb5ccache=self.use_krb5ccache,
            env=env,
        ) as (keytab, principal):
            spec = replace(self.spec, conf=conf, keytab=keytab, principal=principal)
            self.log.info(
                "Submitting Spark application %s to %s (%s), tagged %s",
                spec.application,
                self.connection.kind.value,
                spec.master,
                self.describe_tag(token),
            )
            result = run_spark_submit(spark_submit_argv(self.binary, spec), env=env, id_pattern=self.id_pattern, log=self.log)
        if result.returncode != 0:
            raise SparkSubmitFailed(
                f"{self.binary} exited with code {result.returncode}; its last lines:\n{result.tail_text()}"
            )
        app_id = result.app_id or self.find(token)
        if app_id is None:
            raise SparkSubmitFailed(
                f"{self.binary} exited 0, but its output names no {self.noun} and none carries the tag "
                f"{self.describe_tag(token)}; its last lines:\n{result.tail_text()}"
            )
        self.log.info("Submitted %s %s", self.noun, app_id)
        return app_id

    def fingerprint_payload(self) -> Any:
        return {
            "cluster_manager": self.connection.kind.value,
            "spec": self.spec.as_json(),
            "env_vars": dict(sorted(self.env_vars.items())),
            "use_krb5ccache": self.use_krb5ccache,
        }


def no_waiting(conf: Mapping[str, str], key: str) -> dict[str, str]:
    """``{key: "false"}``, refusing a ``conf`` that asks ``spark-submit`` to wait for the application."""
    given = str(conf.get(key, "false")).strip().lower()
    if given != "false":
        raise ValueError(
            f"conf sets {key}={conf[key]!r}, but this operator needs spark-submit to exit once the cluster "
            "has the application (it follows the application through the cluster's API, so a retry can "
            "reconnect to it); remove the property"
        )
    return {key: "false"}
