"""The triggerer side of ``SparkSubmitOperator(deferrable=True)`` on Kubernetes.

What it is for: waiting for a Spark driver pod in the triggerer, through the ``cncf.kubernetes``
provider's async hook, with the worker's status mapping (driver container exit code first, then
pod phase).

How it works: :class:`KubernetesDriverPodTrigger` is an
:class:`~resumable_jobs.providers.spark.status_trigger.ApplicationStatusTrigger` whose read is
``GET /api/v1/namespaces/<ns>/pods/<name>`` with ``kubernetes_asyncio``
(:mod:`~resumable_jobs.providers.spark.kubernetes.pods_async`), on one API client shared by every
Kubernetes trigger of the triggerer for the same connection
(:mod:`resumable_jobs.providers.kubernetes.api_async`). Its serialised arguments are the
``<ns>:<pod>`` id and the ``kubernetes`` connection id; credentials are resolved in the triggerer.

What it does not do: it never deletes the pod.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

from resumable_jobs.providers.shared_clients import Lease
from resumable_jobs.providers.spark.kubernetes.manager import KubernetesClusterManager, parse_app_id
from resumable_jobs.providers.spark.kubernetes.pods import DEFAULT_KUBERNETES_CONN_ID
from resumable_jobs.providers.spark.kubernetes.status import DriverPodStatus
from resumable_jobs.providers.spark.status_trigger import ApplicationStatusTrigger

__all__ = ["KubernetesDriverPodTrigger"]


class KubernetesDriverPodTrigger(ApplicationStatusTrigger):
    """Poll one Spark driver pod until the driver has ended."""

    client_modules: ClassVar[tuple[str, ...]] = (
        "aiohttp",
        "kubernetes_asyncio.client",
        "airflow.providers.cncf.kubernetes.hooks.kubernetes",
        "resumable_jobs.providers.kubernetes.api_async",
        "resumable_jobs.providers.spark.kubernetes.pods_async",
    )
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

    def serialized_kwargs(self) -> dict[str, Any]:
        return {"kubernetes_conn_id": self.kubernetes_conn_id}

    def transient_errors(self) -> tuple[type[Exception], ...]:
        return (*KubernetesClusterManager.transient_errors, ValueError)

    def connect(self) -> AbstractAsyncContextManager[Lease]:
        from resumable_jobs.providers.kubernetes.api_async import shared_api_client

        return shared_api_client(self.kubernetes_conn_id or DEFAULT_KUBERNETES_CONN_ID)

    async def read_status(self, client: Lease) -> DriverPodStatus:
        from resumable_jobs.providers.spark.kubernetes.pods_async import read_pod

        namespace, name = parse_app_id(self.app_id)
        async with client.use() as api:
            pod = await read_pod(api, namespace, name)
        return DriverPodStatus.from_pod(self.app_id, pod)
