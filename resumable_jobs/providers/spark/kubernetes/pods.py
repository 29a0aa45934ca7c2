"""Driver pods through the Kubernetes API: list by label, read, delete.

What it is for: the three Kubernetes calls the operator and its trigger make, through the
``cncf.kubernetes`` provider's ``KubernetesHook`` (imported when a call is made, never at DAG
parse time), with errors that tell "this pod does not exist" apart from "the API could not say".

How it works: :class:`DriverPods` holds a ``KubernetesHook`` for the ``kubernetes`` connection
named by the Spark connection's ``kubernetes_conn_id`` extra (default ``kubernetes_default``; a
missing one means in-cluster credentials, else ``KUBECONFIG``/``~/.kube/config``) and calls its
``CoreV1Api``. HTTP 404 on a pod raises :class:`~resumable_jobs.mixin.errors.JobNotFoundError`;
5xx, 429 and transport errors raise :class:`KubernetesApiUnavailable` (try again); other 4xx
(401, 403: missing RBAC) raise :class:`KubernetesApiRefused` naming the permission.

What it does not do: it does not create pods (``spark-submit`` does) and never deletes anything
but the one driver pod it is asked to.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError
from resumable_jobs.providers.spark.cluster_manager import StatusUnavailable

__all__ = [
    "DEFAULT_KUBERNETES_CONN_ID",
    "DriverPods",
    "KubernetesApiRefused",
    "KubernetesApiUnavailable",
    "api_error",
    "missing_provider",
]

DEFAULT_KUBERNETES_CONN_ID = "kubernetes_default"


class KubernetesApiUnavailable(StatusUnavailable):
    """The Kubernetes API could not be reached or answered 5xx/429."""


class KubernetesApiRefused(RuntimeError):
    """The Kubernetes API refused the call (401, 403: the Airflow identity lacks a permission)."""


class DriverPods:
    """List, read and delete driver pods through the ``cncf.kubernetes`` hook."""

    def __init__(self, kubernetes_conn_id: str | None = None) -> None:
        self.kubernetes_conn_id = kubernetes_conn_id or DEFAULT_KUBERNETES_CONN_ID

    @cached_property
    def core(self) -> Any:
        try:
            from airflow.providers.cncf.kubernetes.hooks.kubernetes import KubernetesHook
        except ImportError as error:
            raise missing_provider() from error
        return KubernetesHook(conn_id=self.kubernetes_conn_id).core_v1_client

    def labelled(self, namespace: str, label_selector: str) -> list[Any]:
        """The pods of ``namespace`` matching ``label_selector`` (any phase)."""
        reply = self._call(
            "list pods", None, lambda: self.core.list_namespaced_pod(namespace, label_selector=label_selector)
        )
        return list(getattr(reply, "items", None) or [])

    def read(self, namespace: str, name: str) -> Any:
        return self._call("get pods", f"{namespace}:{name}", lambda: self.core.read_namespaced_pod(name, namespace))

    def delete(self, namespace: str, name: str) -> None:
        self._call("delete pods", f"{namespace}:{name}", lambda: self.core.delete_namespaced_pod(name, namespace))

    @staticmethod
    def _call(verb: str, app_id: str | None, call: Any) -> Any:
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        try:
            return call()
        except ApiException as error:
            raise api_error(verb, app_id, error) from error
        except (HTTPError, OSError) as error:
            raise KubernetesApiUnavailable(f"{verb}: {type(error).__name__}: {error}") from error


def api_error(verb: str, app_id: str | None, error: Any) -> Exception:
    """What an ``ApiException`` (of ``kubernetes`` or ``kubernetes_asyncio``) means for ``verb`` on ``app_id``.

    404 on a pod: ``JobNotFoundError``; 5xx, 429 or no status: :class:`KubernetesApiUnavailable`;
    any other refusal: :class:`KubernetesApiRefused` naming the permission.
    """
    status = int(getattr(error, "status", 0) or 0)
    detail = f"{verb}: HTTP {status} {getattr(error, 'reason', '')}".strip()
    if status == 404 and app_id is not None:
        return JobNotFoundError(app_id, "the Kubernetes API has no such pod (deleted, or never created)")
    if status >= 500 or status in (0, 429):
        return KubernetesApiUnavailable(detail)
    return KubernetesApiRefused(
        f"{detail}: the identity Airflow uses needs '{verb}' in the driver's namespace "
        f"(pods: list, get, delete); {_body(error)}"
    )


def missing_provider() -> RuntimeError:
    return RuntimeError(
        "Spark on Kubernetes needs the apache-airflow-providers-cncf-kubernetes package "
        '(pip install "airflow-provider-resumable-jobs[spark-kubernetes]")'
    )


def _body(error: Any) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, bytes):
        body = body.decode(errors="replace")
    return str(body or "")[:300]
