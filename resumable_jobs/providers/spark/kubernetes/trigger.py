"""The triggerer side of ``SparkSubmitOperator(deferrable=True)`` on Kubernetes.

What it is for: waiting for a Spark driver pod in the triggerer, through the ``cncf.kubernetes``
hook, with the worker's status mapping (driver container exit code first, then pod phase).

How it works: :class:`KubernetesDriverPodTrigger` is an
:class:`~resumable_jobs.providers.spark.status_trigger.ApplicationStatusTrigger` whose read is
``GET /api/v1/namespaces/<ns>/pods/<name>``. Its serialised arguments are the ``<ns>:<pod>`` id
and the ``kubernetes`` connection id; credentials are resolved in the triggerer.

What it does not do: it never deletes the pod.
"""

from __future__ import annotations

from typing import Any, ClassVar

from resumable_jobs.providers.spark.kubernetes.manager import KubernetesClusterManager, parse_app_id
from resumable_jobs.providers.spark.kubernetes.status import DriverPodStatus
from resumable_jobs.providers.spark.status_trigger import ApplicationStatusTrigger

__all__ = ["KubernetesDriverPodTrigger"]


class KubernetesDriverPodTrigger(ApplicationStatusTrigger):
    """Poll one Spark driver pod until the driver has ended."""

    noun: ClassVar[str] = KubernetesClusterManager.noun
    lost_hint: ClassVar[str] = KubernetesClusterManager.lost_hint

    def __init__(
        self,
        app_id: str,
        kubernetes_conn_id: str | None = None,
        poll_interval: float = 10.0,
        max_consecutive_errors: int = 5,
    ) -> None:
        super().__init__(app_id, poll_interval=poll_interval, max_consecutive_errors=max_consecutive_errors)
        self.kubernetes_conn_id = kubernetes_conn_id
        self._pods: Any = None

    def serialized_kwargs(self) -> dict[str, Any]:
        return {"kubernetes_conn_id": self.kubernetes_conn_id}

    def transient_errors(self) -> tuple[type[Exception], ...]:
        return (*KubernetesClusterManager.transient_errors, ValueError)

    def read_status(self) -> DriverPodStatus:
        if self._pods is None:
            from resumable_jobs.providers.spark.kubernetes.pods import DriverPods

            self._pods = DriverPods(self.kubernetes_conn_id)
        namespace, name = parse_app_id(self.app_id)
        return DriverPodStatus.from_pod(self.app_id, self._pods.read(namespace, name))
