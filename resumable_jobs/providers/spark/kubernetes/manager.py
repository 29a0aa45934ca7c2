"""Kubernetes as a cluster manager: ``spark-submit --master k8s://...``, a driver pod label, the API.

What it is for: Spark applications on Kubernetes in cluster mode, crash-safe: the driver runs in
its own pod, and a retry finds that pod even when the worker died before its id was persisted.

How it works: the submission adds the pod label :data:`LABEL_KEY` = :func:`pod_label_value` of
the token (``spark.kubernetes.driver.label.<key>``), ``spark.kubernetes.submission.waitAppCompletion=false``,
the namespace (``conf``'s ``spark.kubernetes.namespace``, else the connection's ``namespace``
extra, else ``default``: written into the command so that ``spark-submit`` and the lookups agree)
and ``env_vars`` as ``spark.kubernetes.driverEnv.*``. The application id is ``spark-submit``'s
submission id, ``<namespace>:<driver pod name>`` - the same form upstream stores. ``find`` lists
the namespace's pods with the label selector ``<key>=<value>,spark-role=driver``; status reads the
pod (:mod:`~resumable_jobs.providers.spark.kubernetes.status`); cancel deletes it (Spark's
owner references then remove the executors, the driver service and the config map).

What it does not do: it leaves a finished driver pod in place (as ``spark-submit`` does): that pod
is how a retry knows the application succeeded - a deleted one makes the retry submit again. It
does not read the driver's log.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from resumable_jobs.providers.spark.kubernetes.pods import DriverPods, KubernetesApiUnavailable
from resumable_jobs.providers.spark.kubernetes.status import FAILED, DriverPodStatus, is_active, is_succeeded
from resumable_jobs.providers.spark.spark_submit_manager import SparkSubmitClusterManager, no_waiting

if TYPE_CHECKING:
    from resumable_jobs.providers.spark.kubernetes.trigger import KubernetesDriverPodTrigger

__all__ = ["LABEL_KEY", "KubernetesClusterManager", "parse_app_id", "pod_label_value"]

#: The driver pod label that carries the submission token. (No "token" in it: Spark's default
#: redaction pattern would hide the value in its UI and logs.)
LABEL_KEY = "resumable-jobs/submission"
NAMESPACE_CONF = "spark.kubernetes.namespace"
WAIT_CONF = "spark.kubernetes.submission.waitAppCompletion"
_LABEL_VALUE_MAX = 63


def pod_label_value(token: str) -> str:
    """``token`` as a label value: at most 63 characters, starting and ending alphanumeric.

    The token's unique part (generation and nonce) is at its end, so a long token loses the
    start of its readable task prefix, never what makes it unique.
    """
    return token[-_LABEL_VALUE_MAX:].lstrip("-_.")


def parse_app_id(app_id: str) -> tuple[str, str]:
    """``<namespace>:<pod name>`` -> (namespace, pod name)."""
    namespace, sep, name = str(app_id).partition(":")
    if not sep or not namespace or not name:
        raise ValueError(f"not a Spark driver pod id of the form <namespace>:<pod name>: {app_id!r}")
    return namespace, name


class KubernetesClusterManager(SparkSubmitClusterManager):
    """Spark driver pods on Kubernetes (see the module docstring)."""

    noun: ClassVar[str] = "Spark driver pod"
    lost_hint: ClassVar[str] = "the pod was deleted; a retry submits a new application"
    id_pattern: ClassVar[re.Pattern[str]] = re.compile(r"submission ID ([A-Za-z0-9.-]+:[A-Za-z0-9.-]+)")
    transient_errors: ClassVar[tuple[type[Exception], ...]] = (KubernetesApiUnavailable,)

    @cached_property
    def pods(self) -> DriverPods:
        return DriverPods(self.connection.kubernetes_conn_id)

    @property
    def namespace(self) -> str:
        return str(self.spec.conf.get(NAMESPACE_CONF) or self.connection.namespace or "default")

    # ----------------------------------------------------------------- submission
    def submission_conf(self, token: str) -> dict[str, str]:
        conf = {
            f"spark.kubernetes.driver.label.{LABEL_KEY}": pod_label_value(token),
            NAMESPACE_CONF: self.namespace,
        }
        conf.update(no_waiting(self.spec.conf, WAIT_CONF))
        for key, value in self.env_vars.items():
            conf[f"spark.kubernetes.driverEnv.{key}"] = value
        return conf

    def describe_tag(self, token: str) -> str:
        return f"driver pod label {LABEL_KEY}={pod_label_value(token)} in namespace {self.namespace}"

    # ----------------------------------------------------------------- following it
    def find(self, token: str) -> str | None:
        selector = f"{LABEL_KEY}={pod_label_value(token)},spark-role=driver"
        found = [
            (DriverPodStatus.from_pod("", pod), pod)
            for pod in self.pods.labelled(self.namespace, selector)
            if getattr(pod.metadata, "deletion_timestamp", None) is None
        ]
        if not found:
            return None
        # Several only when one generation ran spark-submit twice: prefer a pod that may still
        # succeed, then the most recent.
        found.sort(key=lambda item: (item[0].state != FAILED, _created(item[1])), reverse=True)
        ids = [f"{self.namespace}:{pod.metadata.name}" for _, pod in found]
        if len(ids) > 1:
            self.log.warning("%d driver pods carry label %s: %s; following %s", len(ids), selector, ids, ids[0])
        return ids[0]

    def status(self, app_id: str) -> DriverPodStatus:
        namespace, name = parse_app_id(app_id)
        return DriverPodStatus.from_pod(app_id, self.pods.read(namespace, name))

    def is_active(self, state: str) -> bool:
        return is_active(state)

    def is_succeeded(self, state: str) -> bool:
        return is_succeeded(state)

    def check_ready(self) -> None:
        self.pods.core  # noqa: B018 - raises when the provider is missing or the credentials do not load

    def cancel(self, app_id: str) -> None:
        namespace, name = parse_app_id(app_id)
        self.pods.delete(namespace, name)
        self.log.info("Deleted Spark driver pod %s", app_id)

    def trigger(self, app_id: str, poll_interval: float) -> KubernetesDriverPodTrigger:
        from resumable_jobs.providers.spark.kubernetes.trigger import KubernetesDriverPodTrigger

        return KubernetesDriverPodTrigger(
            app_id=app_id, kubernetes_conn_id=self.pods.kubernetes_conn_id, poll_interval=poll_interval
        )


def _created(pod: Any) -> Any:
    created = getattr(pod.metadata, "creation_timestamp", None)
    return created.timestamp() if hasattr(created, "timestamp") else 0
