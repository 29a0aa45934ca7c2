"""Which cluster manager a Spark connection names, read the way upstream's ``spark`` connection is.

What it is for: one ``conn_id`` selects where ``SparkSubmitOperator`` sends the application, as
with upstream's operator: ``yarn`` submits to YARN, ``k8s://https://api:6443`` to Kubernetes,
``spark://master`` (or an HTTP-style connection to a REST server) to a standalone master through
its REST submission server (:mod:`~resumable_jobs.providers.spark.connection`). A connection
written for upstream's operator keeps working unchanged.

How it works: :func:`spark_connection_from` builds the ``--master`` value by upstream's rule (a
``spark`` connection whose host holds a scheme, or has no port, is the master as written; other
connections are ``<conn_type>://<host>``; a port is appended) and classifies it. It also reads
the extras upstream's connection carries for ``spark-submit`` - ``queue``, ``deploy-mode``,
``spark-binary``, ``namespace``, ``principal``, ``keytab`` (base64) - plus where the status APIs
are: ``yarn_resourcemanager_webapp_address`` (upstream's name; a comma-separated list for
ResourceManager HA) and ``kubernetes_conn_id`` (this package's: the ``kubernetes`` connection the
driver pod is read through; none means in-cluster or ``KUBECONFIG``).

What it does not do: it does not reach the network, and it refuses masters this operator cannot
make durable: ``local`` and ``mesos://`` (there is no cluster to keep the driver when the worker
dies, or Spark no longer supports it).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ALLOWED_SPARK_BINARIES",
    "ClusterManagerKind",
    "SparkConnection",
    "resolve_spark_connection",
    "spark_connection_from",
]

#: What the connection's ``spark-binary`` extra may name (upstream's list: a connection editor
#: must not be able to make workers run an arbitrary program). ``spark_binary=`` on the operator,
#: written by the DAG author, may be any path.
ALLOWED_SPARK_BINARIES = ("spark-submit", "spark2-submit", "spark3-submit")
DEFAULT_SPARK_BINARY = "spark-submit"


class ClusterManagerKind(enum.Enum):
    STANDALONE = "standalone"
    YARN = "YARN"
    KUBERNETES = "Kubernetes"


@dataclass(frozen=True)
class SparkConnection:
    """A Spark connection, classified: the cluster manager, ``--master`` and the extras that matter."""

    kind: ClusterManagerKind
    master: str
    conn: Any = field(repr=False, compare=False, default=None)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def conn_id(self) -> str:
        return str(getattr(self.conn, "conn_id", "") or "")

    @property
    def queue(self) -> str | None:
        return _text(self.extra.get("queue"))

    @property
    def deploy_mode(self) -> str | None:
        return _text(self.extra.get("deploy-mode"))

    @property
    def namespace(self) -> str | None:
        return _text(self.extra.get("namespace"))

    @property
    def principal(self) -> str | None:
        return _text(self.extra.get("principal"))

    @property
    def keytab_base64(self) -> str | None:
        return _text(self.extra.get("keytab"))

    @property
    def kubernetes_conn_id(self) -> str | None:
        return _text(self.extra.get("kubernetes_conn_id"))

    @property
    def spark_binary(self) -> str:
        binary = _text(self.extra.get("spark-binary")) or DEFAULT_SPARK_BINARY
        if binary not in ALLOWED_SPARK_BINARIES:
            raise ValueError(
                f"Spark connection {self.conn_id!r}: the spark-binary extra must be one of "
                f"{list(ALLOWED_SPARK_BINARIES)}, got {binary!r}; to run another binary, pass "
                "spark_binary= to the operator"
            )
        return binary

    @property
    def resource_manager_urls(self) -> tuple[str, ...]:
        """The ResourceManager web addresses (HA: several, tried in order)."""
        raw = _text(self.extra.get("yarn_resourcemanager_webapp_address")) or ""
        urls = []
        for part in raw.split(","):
            part = part.strip().rstrip("/")
            if part:
                urls.append(part if "://" in part else f"http://{part}")
        return tuple(urls)

    @property
    def kubernetes_api_url(self) -> str | None:
        """The API server ``spark-submit`` talks to (``k8s://`` removed; https when unspecified)."""
        if self.kind is not ClusterManagerKind.KUBERNETES:
            return None
        rest = self.master[len("k8s://") :]
        return rest if "://" in rest else f"https://{rest}"


def resolve_spark_connection(conn_id: str) -> SparkConnection:
    """Look ``conn_id`` up through Airflow (secrets backends, env vars, the API server)."""
    from resumable_jobs.shims.sdk_names import base_hook

    return spark_connection_from(base_hook().get_connection(conn_id))


def spark_connection_from(conn: Any) -> SparkConnection:
    """Apply the module docstring's rules to anything with Connection's attributes."""
    conn_type = (getattr(conn, "conn_type", None) or "").lower()
    host = (getattr(conn, "host", None) or "").strip()
    port = getattr(conn, "port", None)
    extra = getattr(conn, "extra_dejson", None)
    extra = dict(extra) if isinstance(extra, dict) else {}

    if conn_type in ("http", "https", "generic") or (conn_type == "spark" and not host):
        # HTTP-style connections name a standalone REST server; a host-less spark connection is
        # reported by the standalone endpoint's own error ("has no host").
        return SparkConnection(ClusterManagerKind.STANDALONE, host, conn, extra)
    if conn_type == "spark" and ("://" in host or not port):
        master = host
    else:
        master = f"{conn_type}://{host}"
    if port and not _has_port(master):
        master = f"{master}:{port}"
    return SparkConnection(_kind_of(master, conn), master, conn, extra)


def _kind_of(master: str, conn: Any) -> ClusterManagerKind:
    lowered = master.lower()
    if lowered == "yarn" or lowered.startswith(("yarn:", "yarn://")):
        return ClusterManagerKind.YARN
    if lowered.startswith("k8s://"):
        return ClusterManagerKind.KUBERNETES
    if lowered.startswith(("local", "mesos://")):
        raise ValueError(
            f"Spark connection {getattr(conn, 'conn_id', '?')!r} names master {master!r}: "
            "SparkSubmitOperator submits in cluster mode to a standalone master (spark://), YARN "
            "(yarn) or Kubernetes (k8s://...); a local master runs the driver inside the Airflow "
            "worker, so it dies with the worker, and Mesos is no longer supported by Spark"
        )
    # spark://m1,m2 and a bare host name: the standalone master's REST server (today's behaviour)
    return ClusterManagerKind.STANDALONE


def _has_port(master: str) -> bool:
    authority = master.rsplit("://", 1)[-1].split("/", 1)[0]
    return ":" in authority.rsplit(",", 1)[-1]


def _text(value: Any) -> str | None:
    return str(value).strip() if value not in (None, "") else None
