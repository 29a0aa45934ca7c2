"""One ``kubernetes_asyncio`` API client per event loop and cluster configuration, for every Kubernetes trigger of ours.

What it is for: the Kubernetes triggers (``KubernetesPodOperator``'s and the Spark driver pod's)
read pods inside the triggerer's event loop, next to up to a thousand other triggers. An
``ApiClient`` per trigger or per read (what upstream's ``KubernetesPodTrigger`` does through its
hook) costs an ``aiohttp`` session, a connection pool, a kubeconfig load and often a TLS handshake
each; one per loop and configuration costs that once.

How it works: :func:`shared_api_client` leases, through
:func:`resumable_jobs.providers.shared_clients.shared_client`, the ``ApiClient`` that the
``cncf.kubernetes`` provider's ``AsyncKubernetesHook(...).get_conn()`` opens - the same
connection fields the worker's hook reads (in-cluster, kubeconfig path or content, context),
or the connection's extras and kubeconfig dict handed over by the operator, so the triggerer
need not resolve the connection (as upstream's trigger does). The pool's key is the connection id
plus a digest of everything else that selects a cluster or an identity; the client is renewed
every :data:`CLIENT_MAX_AGE` seconds so that short-lived tokens of exec-based kubeconfigs (EKS,
GKE) are fetched again, and tuned once (:func:`tune_client`: no proxy and ``.netrc`` lookups in the
thread pool on every read, timestamps parsed by ``datetime``). :func:`read_pod` is ``GET /api/v1/namespaces/<ns>/pods/<name>`` with a
per-call timeout; an ``ApiException`` is the caller's to read (:func:`is_transient_status`), an
unreachable server raises :class:`KubernetesUnreachable`.

What it does not do: retry (the triggers poll), or share anything between processes or loops.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import json
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from functools import partial
from typing import Any

from resumable_jobs.providers.shared_clients import Lease, shared_client

__all__ = [
    "CLIENT_MAX_AGE",
    "DEFAULT_CONN_ID",
    "KubernetesUnreachable",
    "api_client",
    "is_transient_status",
    "read_pod",
    "shared_api_client",
    "tune_client",
]

#: Seconds a shared API client serves new reads before a fresh one is opened.
CLIENT_MAX_AGE = 300.0
DEFAULT_CONN_ID = "kubernetes_default"


class KubernetesUnreachable(OSError):
    """The Kubernetes API server could not be reached, or did not answer in time."""


def api_client(
    kubernetes_conn_id: str | None,
    *,
    connection_extras: dict | None = None,
    config_dict: dict | None = None,
    in_cluster: bool | None = None,
    cluster_context: str | None = None,
) -> Any:
    """An async context manager yielding a ``kubernetes_asyncio`` ``ApiClient`` for this configuration."""
    try:
        from airflow.providers.cncf.kubernetes.hooks.kubernetes import AsyncKubernetesHook
    except ImportError as error:
        raise RuntimeError(
            "Kubernetes triggers need the apache-airflow-providers-cncf-kubernetes package "
            '(pip install "airflow-provider-resumable-jobs[kubernetes]")'
        ) from error
    hook = AsyncKubernetesHook(
        conn_id=kubernetes_conn_id or DEFAULT_CONN_ID,
        connection_extras=connection_extras,
        config_dict=config_dict,
        in_cluster=in_cluster,
        cluster_context=cluster_context,
    )
    return _tuned(hook.get_conn())


@contextlib.asynccontextmanager
async def _tuned(opening: Any) -> AsyncIterator[Any]:
    async with opening as client:
        await asyncio.to_thread(tune_client, client)
        yield client


def tune_client(client: Any) -> None:
    """Take two per-read costs of a ``kubernetes_asyncio`` ``ApiClient`` out of a client that is shared.

    ``kubernetes_asyncio`` opens its ``aiohttp`` session with ``trust_env=True``: every request then
    looks up ``~/.netrc`` and the proxy variables in the loop's default thread pool - two thread
    hops per read, a few hundred per second with a thousand triggers, in the pool the whole
    triggerer shares. Both are looked up here once, for the API server's URL; when neither applies
    (no proxy variable and no ``.netrc`` entry for it) the session stops looking (with one, nothing
    changes). And it parses each of a pod's timestamps with ``dateutil``; the API server writes
    RFC 3339, which ``datetime.fromisoformat`` reads in a fraction of the time (Python 3.11+;
    anything it cannot read still goes to ``dateutil``).
    """
    session = getattr(getattr(client, "rest_client", None), "pool_manager", None)
    host = getattr(getattr(client, "configuration", None), "host", None)
    if getattr(session, "_trust_env", False) and host and not _environment_applies(host):
        session._trust_env = False
    slow_parse = getattr(client, "_ApiClient__deserialize_datetime", None)
    if slow_parse is not None:

        def parse_datetime(text: str) -> Any:
            try:
                return datetime.datetime.fromisoformat(text)
            except (TypeError, ValueError):
                return slow_parse(text)

        client._ApiClient__deserialize_datetime = parse_datetime


def _environment_applies(host: str) -> bool:
    """True when a proxy variable or a ``.netrc`` entry applies to ``host`` (or aiohttp cannot tell us)."""
    try:
        from aiohttp.helpers import basicauth_from_netrc, get_env_proxy_for_url, netrc_from_env
        from yarl import URL
    except ImportError:
        return True
    url = URL(host)
    try:
        get_env_proxy_for_url(url)
        return True
    except LookupError:
        pass
    netrc = netrc_from_env()
    if netrc is not None and url.host:
        try:
            basicauth_from_netrc(netrc, url.host)
            return True
        except LookupError:
            pass
    return False


def shared_api_client(
    kubernetes_conn_id: str | None,
    *,
    connection_extras: dict | None = None,
    config_dict: dict | None = None,
    in_cluster: bool | None = None,
    cluster_context: str | None = None,
) -> AbstractAsyncContextManager[Lease]:
    """A lease on this loop's ``ApiClient`` for the configuration (see the module docstring)."""
    selected = {
        "extras": connection_extras,
        "config": config_dict,
        "in_cluster": in_cluster,
        "context": cluster_context,
    }
    digest = hashlib.sha256(json.dumps(selected, sort_keys=True, default=str).encode()).hexdigest()
    opener = partial(
        api_client,
        kubernetes_conn_id,
        connection_extras=connection_extras,
        config_dict=config_dict,
        in_cluster=in_cluster,
        cluster_context=cluster_context,
    )
    return shared_client(("kubernetes", kubernetes_conn_id, digest), opener, max_age=CLIENT_MAX_AGE)


def is_transient_status(status: int) -> bool:
    """True for HTTP statuses worth another try on the next poll: 5xx, 429 (throttled), 0 (no answer)."""
    return status >= 500 or status in (0, 429)


async def read_pod(client: Any, namespace: str, name: str, *, timeout: float = 30.0) -> Any:
    """The pod ``namespace/name`` (a ``V1Pod``); ``ApiException`` as the server answered, or :class:`KubernetesUnreachable`."""
    import aiohttp
    from kubernetes_asyncio.client import CoreV1Api

    try:
        return await CoreV1Api(client).read_namespaced_pod(name, namespace, _request_timeout=timeout)
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as error:
        raise KubernetesUnreachable(f"get pods {namespace}/{name}: {type(error).__name__}: {error}") from error
