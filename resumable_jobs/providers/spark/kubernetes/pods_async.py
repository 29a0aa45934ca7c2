"""The trigger's read of a driver pod: ``kubernetes_asyncio`` through the ``cncf.kubernetes`` async hook.

What it is for: a Kubernetes trigger reads its driver pod inside the triggerer's event loop, next
to up to a thousand other triggers, so the read must never block the loop, and the API client
(its configuration, connection pool and credentials) must be built once per connection, not
once per trigger.

How it works: :func:`api_client` opens an ``ApiClient`` with the provider's
``AsyncKubernetesHook(conn_id).get_conn()`` - the same connection fields (in-cluster, kubeconfig
path or content, context) the worker's hook reads; the trigger shares it per event loop and
connection through :mod:`resumable_jobs.providers.shared_clients`, renewed every
:data:`CLIENT_MAX_AGE` seconds so that short-lived tokens of exec-based kubeconfigs (EKS, GKE)
are fetched again. :func:`read_pod` is ``GET /api/v1/namespaces/<ns>/pods/<name>``, its errors
read by the worker's :func:`~resumable_jobs.providers.spark.kubernetes.pods.api_error`.

What it does not do: it only reads (no list, no delete), and it does not retry (the trigger polls).
"""

from __future__ import annotations

import asyncio
from typing import Any

from resumable_jobs.providers.spark.kubernetes.pods import (
    DEFAULT_KUBERNETES_CONN_ID,
    KubernetesApiUnavailable,
    api_error,
    missing_provider,
)

__all__ = ["CLIENT_MAX_AGE", "api_client", "read_pod"]

#: Seconds a shared API client serves new reads before a fresh one is opened.
CLIENT_MAX_AGE = 300.0


def api_client(kubernetes_conn_id: str | None) -> Any:
    """An async context manager yielding a ``kubernetes_asyncio`` ``ApiClient`` for the connection."""
    try:
        from airflow.providers.cncf.kubernetes.hooks.kubernetes import AsyncKubernetesHook
    except ImportError as error:
        raise missing_provider() from error
    return AsyncKubernetesHook(conn_id=kubernetes_conn_id or DEFAULT_KUBERNETES_CONN_ID).get_conn()


async def read_pod(client: Any, namespace: str, name: str, *, timeout: float = 30.0) -> Any:
    """The pod ``namespace/name`` (a ``V1Pod``); ``JobNotFoundError`` when it does not exist."""
    import aiohttp
    from kubernetes_asyncio.client import CoreV1Api
    from kubernetes_asyncio.client.exceptions import ApiException

    try:
        return await CoreV1Api(client).read_namespaced_pod(name, namespace, _request_timeout=timeout)
    except ApiException as error:
        raise api_error("get pods", f"{namespace}:{name}", error) from error
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as error:
        raise KubernetesApiUnavailable(f"get pods: {type(error).__name__}: {error}") from error
