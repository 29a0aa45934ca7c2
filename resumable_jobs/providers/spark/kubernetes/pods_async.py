"""The Spark trigger's read of a driver pod, on the API client every Kubernetes trigger of the loop shares.

What it is for: a Kubernetes trigger reads its driver pod inside the triggerer's event loop, next
to up to a thousand other triggers, so the read must never block the loop, and the API client
(its configuration, connection pool and credentials) must be built once per connection, not
once per trigger.

How it works: the client is :func:`resumable_jobs.providers.kubernetes.api_async.shared_api_client`
for the ``kubernetes`` connection (the ``cncf.kubernetes`` async hook's ``get_conn()``, shared per
event loop and connection, renewed every ``CLIENT_MAX_AGE`` seconds). :func:`read_pod` is that
module's ``GET /api/v1/namespaces/<ns>/pods/<name>``, its errors read by the worker's
:func:`~resumable_jobs.providers.spark.kubernetes.pods.api_error`.

What it does not do: it only reads (no list, no delete), and it does not retry (the trigger polls).
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.providers.kubernetes import api_async
from resumable_jobs.providers.spark.kubernetes.pods import KubernetesApiUnavailable, api_error

__all__ = ["read_pod"]


async def read_pod(client: Any, namespace: str, name: str, *, timeout: float = 30.0) -> Any:
    """The pod ``namespace/name`` (a ``V1Pod``); ``JobNotFoundError`` when it does not exist."""
    from kubernetes_asyncio.client.exceptions import ApiException

    try:
        return await api_async.read_pod(client, namespace, name, timeout=timeout)
    except ApiException as error:
        raise api_error("get pods", f"{namespace}:{name}", error) from error
    except api_async.KubernetesUnreachable as error:
        raise KubernetesApiUnavailable(str(error)) from error
