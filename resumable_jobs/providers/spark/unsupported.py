"""Upstream ``SparkSubmitOperator`` parameters that cannot apply, and what to use instead.

What it is for: a user migrating from upstream gets an error naming the alternative, instead of a
parameter that is silently ignored (or Airflow's generic "invalid arguments" message).

How it works: two checks. :func:`reject_unsupported` runs at construction, before
``BaseOperator`` sees the keyword arguments, for what no cluster manager supports here: client
mode, ``post_submit_commands``, and turning the API tracking of YARN/Kubernetes off. :func:`reject_for_cluster_manager`
runs when the task starts - the connection, and so the cluster manager, is only known then - for
parameters that one cluster manager cannot honour: the ``spark-submit`` ones on a standalone
master (reached through its REST server, no ``spark-submit`` runs), the YARN ones on Kubernetes,
and a connection whose ``deploy-mode`` extra says ``client``. Each raises ``TypeError`` listing
every problem found, before anything is submitted.

What it does not do: it does not translate parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from resumable_jobs.providers.spark.master import ClusterManagerKind

_UPSTREAM = "use airflow.providers.apache.spark.operators.spark_submit.SparkSubmitOperator"

#: Refused at construction, whatever the cluster manager.
UNSUPPORTED_PARAMETERS: dict[str, str] = {
    "post_submit_commands": "runs shell commands next to spark-submit; put them in a downstream task",
}

#: Tracking flags that are always on here; turning them off (upstream: hold spark-submit until the
#: application ends) cannot be honoured.
ALWAYS_ON_FLAGS: dict[str, str] = {
    "yarn_track_via_rm_api": "is always on here: spark-submit exits once YARN has the application and "
    "the ResourceManager REST API is polled (that is what lets a retry reconnect); remove it",
    "track_driver_via_k8s_api": "is always on here: spark-submit exits once the driver pod exists and "
    "the Kubernetes API is polled (that is what lets a retry reconnect); remove it",
}

_STANDALONE = "a standalone master is reached through its REST server, where no spark-submit runs"
_KERBEROS = f"configures Kerberos for spark-submit; {_STANDALONE}, and it accepts no credentials"

#: parameter -> cluster managers that cannot honour it, and why
CLUSTER_MANAGER_PARAMETERS: dict[str, tuple[frozenset[ClusterManagerKind], str]] = {
    "num_executors": (
        frozenset({ClusterManagerKind.STANDALONE}),
        "is YARN/Kubernetes only; on a standalone master size executors with total_executor_cores and "
        "executor_cores",
    ),
    "keytab": (frozenset({ClusterManagerKind.STANDALONE}), _KERBEROS),
    "principal": (frozenset({ClusterManagerKind.STANDALONE}), _KERBEROS),
    "use_krb5ccache": (frozenset({ClusterManagerKind.STANDALONE}), _KERBEROS),
    "proxy_user": (
        frozenset({ClusterManagerKind.STANDALONE}),
        f"is a spark-submit impersonation flag; {_STANDALONE}, which cannot impersonate",
    ),
    "spark_binary": (frozenset({ClusterManagerKind.STANDALONE}), f"names a spark-submit binary; {_STANDALONE}"),
    "properties_file": (
        frozenset({ClusterManagerKind.STANDALONE}),
        f"is read by spark-submit; {_STANDALONE}: pass the properties as conf={{...}}",
    ),
    "verbose": (
        frozenset({ClusterManagerKind.STANDALONE}),
        f"is a spark-submit flag; {_STANDALONE} (the driver's log is on the worker, see the master UI)",
    ),
    "yarn_queue": (
        frozenset({ClusterManagerKind.STANDALONE, ClusterManagerKind.KUBERNETES}),
        "is YARN only; point conn_id at a yarn connection",
    ),
    "yarn_rm_auth": (
        frozenset({ClusterManagerKind.STANDALONE, ClusterManagerKind.KUBERNETES}),
        "authenticates to the YARN ResourceManager, which this connection does not use",
    ),
}

CLIENT_MODE_MESSAGE = (
    "deploy_mode='client' runs the driver inside the Airflow worker, so it dies with the worker and "
    "no retry can reconnect to it; this operator submits in cluster mode only. "
    f"For client mode {_UPSTREAM}."
)

__all__ = [
    "ALWAYS_ON_FLAGS",
    "CLIENT_MODE_MESSAGE",
    "CLUSTER_MANAGER_PARAMETERS",
    "UNSUPPORTED_PARAMETERS",
    "reject_for_cluster_manager",
    "reject_unsupported",
]


def reject_unsupported(owner: str, kwargs: Mapping[str, Any]) -> None:
    """Raise ``TypeError`` naming every parameter no cluster manager supports here, and its alternative."""
    problems = [f"{name}= {UNSUPPORTED_PARAMETERS[name]}" for name in UNSUPPORTED_PARAMETERS if name in kwargs]
    problems += [f"{name}=False {ALWAYS_ON_FLAGS[name]}" for name in ALWAYS_ON_FLAGS if kwargs.get(name) is False]
    deploy_mode = kwargs.get("deploy_mode")
    if deploy_mode not in (None, "cluster"):
        problems.append(
            CLIENT_MODE_MESSAGE if deploy_mode == "client" else f"deploy_mode={deploy_mode!r} is not a Spark deploy mode"
        )
    if problems:
        raise TypeError(f"{owner} cannot apply these parameters: " + "; ".join(problems))


def reject_for_cluster_manager(
    owner: str, kind: ClusterManagerKind, given: Mapping[str, Any], *, connection_deploy_mode: str | None = None
) -> None:
    """Raise ``TypeError`` for every parameter in ``given`` (name -> value set) ``kind`` cannot honour."""
    problems = [
        f"{name}= {reason}"
        for name, (refused_by, reason) in CLUSTER_MANAGER_PARAMETERS.items()
        if name in given and kind in refused_by
    ]
    if connection_deploy_mode not in (None, "cluster"):
        problems.append(f"the connection's deploy-mode extra is {connection_deploy_mode!r}: {CLIENT_MODE_MESSAGE}")
    if problems:
        raise TypeError(f"{owner} submits to {kind.value} (from its connection), so: " + "; ".join(problems))
