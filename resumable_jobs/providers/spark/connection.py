"""Where the Spark standalone REST submission server is, read from an Airflow connection.

What it is for: letting one ``conn_id`` work whether it was written for this package (an
HTTP-style connection pointing at the REST server) or for upstream's ``SparkSubmitOperator`` (a
``spark`` connection whose host is ``spark://master`` and whose port is the master's RPC port).

How it works: :func:`endpoint_from_connection` turns a connection into a
:class:`SparkRestEndpoint` - one REST base URL per master (``spark://m1,m2`` lists several), and
the master web UI URL for the extra link. The rules, in order:

* scheme: ``http``/``https`` prefix of the host; extra ``rest_scheme``; the connection's
  ``schema`` or ``conn_type`` when it is ``http``/``https``; otherwise ``http``. A ``spark://``
  host means ``http``.
* port: extra ``rest_port``; else, for a ``spark`` connection (or ``spark://`` host), 6066, because
  its port is the RPC port (7077), not the REST port; else the connection's port; else 6066.
* web UI: extra ``master_ui_url``; else ``<scheme>://<first host>:8080``.

What it does not do: it does not reach the network, and it does not carry credentials: the
standalone REST server has no authentication of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_REST_PORT = 6066
DEFAULT_UI_PORT = 8080

__all__ = ["DEFAULT_REST_PORT", "SparkRestEndpoint", "endpoint_from_connection", "resolve_endpoint"]


@dataclass(frozen=True)
class SparkRestEndpoint:
    """REST base URLs (one per master, tried in order) and the master web UI URL."""

    rest_urls: tuple[str, ...]
    master_ui_url: str

    def __post_init__(self) -> None:
        if not self.rest_urls:
            raise ValueError("a Spark REST endpoint needs at least one URL")


def resolve_endpoint(conn_id: str) -> SparkRestEndpoint:
    """Look ``conn_id`` up through Airflow (secrets backends, env vars, the API server)."""
    from resumable_jobs.shims.sdk_names import base_hook

    return endpoint_from_connection(base_hook().get_connection(conn_id))


def endpoint_from_connection(conn: Any) -> SparkRestEndpoint:
    """Apply the module docstring's rules to anything with Connection's attributes."""
    extra = _extra(conn)
    conn_type = (getattr(conn, "conn_type", None) or "").lower()
    raw_host = (getattr(conn, "host", None) or "").strip()
    if not raw_host:
        raise ValueError(
            f"Spark connection {getattr(conn, 'conn_id', '?')!r} has no host: set it to the master "
            "(e.g. spark://spark-master or http://spark-master:6066)"
        )

    host_scheme, hosts = _split_hosts(raw_host)
    spark_style = conn_type == "spark" or host_scheme == "spark"

    scheme = host_scheme if host_scheme in ("http", "https") else None
    scheme = scheme or _str(extra.get("rest_scheme"))
    if scheme is None:
        for candidate in (getattr(conn, "schema", None), conn_type):
            if (candidate or "").lower() in ("http", "https"):
                scheme = candidate.lower()
                break
    scheme = (scheme or "http").lower()

    if extra.get("rest_port"):
        default_port = int(extra["rest_port"])
    elif spark_style or not getattr(conn, "port", None):
        default_port = DEFAULT_REST_PORT
    else:
        default_port = int(conn.port)

    urls = []
    for host, embedded_port in hosts:
        # A port written into a spark:// host is the RPC port; into an http(s) host, the REST port.
        port = embedded_port if (embedded_port and not spark_style) else default_port
        urls.append(f"{scheme}://{host}:{port}")

    ui_url = _str(extra.get("master_ui_url")) or f"{scheme}://{hosts[0][0]}:{DEFAULT_UI_PORT}"
    return SparkRestEndpoint(rest_urls=tuple(urls), master_ui_url=ui_url.rstrip("/"))


def _split_hosts(raw_host: str) -> tuple[str | None, list[tuple[str, int | None]]]:
    scheme = None
    if "://" in raw_host:
        scheme, raw_host = raw_host.split("://", 1)
        scheme = scheme.lower()
    raw_host = raw_host.split("/", 1)[0]
    hosts = []
    for part in raw_host.split(","):
        part = part.strip()
        if not part:
            continue
        host, _, port = part.partition(":")
        hosts.append((host, int(port) if port.isdigit() else None))
    if not hosts:
        raise ValueError(f"no host in Spark connection host {raw_host!r}")
    return scheme, hosts


def _extra(conn: Any) -> dict[str, Any]:
    extra = getattr(conn, "extra_dejson", None)
    return dict(extra) if isinstance(extra, dict) else {}


def _str(value: Any) -> str | None:
    return str(value).strip() if value not in (None, "") else None
