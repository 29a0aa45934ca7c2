"""Upstream ``SparkSubmitOperator`` parameters that have no meaning for REST submission to a
standalone master, and what to use instead.

What it is for: a user migrating from upstream gets a construction error naming the
alternative, instead of a parameter that is silently ignored (or Airflow's generic "invalid
arguments" message).

How it works: :func:`reject_unsupported` looks for these names in the operator's keyword
arguments before ``BaseOperator`` sees them and raises ``TypeError`` listing every one found.

What it does not do: it does not translate them; each is YARN-, Kubernetes-, Kerberos- or
client-mode-specific, or belongs to the ``spark-submit`` command line this operator does not run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_UPSTREAM = "use airflow.providers.apache.spark.operators.spark_submit.SparkSubmitOperator"

UNSUPPORTED_PARAMETERS: dict[str, str] = {
    "num_executors": "is YARN/Kubernetes only; on a standalone master size executors with "
    "total_executor_cores and executor_cores",
    "yarn_queue": f"is YARN only; {_UPSTREAM} for YARN",
    "keytab": f"configures Kerberos for YARN; {_UPSTREAM} for a Kerberized cluster",
    "principal": f"configures Kerberos for YARN; {_UPSTREAM} for a Kerberized cluster",
    "use_krb5ccache": f"configures Kerberos for YARN; {_UPSTREAM} for a Kerberized cluster",
    "proxy_user": f"is a spark-submit impersonation flag the REST server does not support; {_UPSTREAM}",
    "spark_binary": "names a spark-submit binary, but this operator submits through the master's REST "
    "server and runs no binary; remove it",
    "properties_file": "is read by spark-submit, which this operator does not run; pass the properties as conf={...}",
    "verbose": "is a spark-submit flag; the driver's log is on the worker (see the master UI)",
    "track_driver_via_k8s_api": f"is Kubernetes only; {_UPSTREAM} for Kubernetes",
    "yarn_track_via_rm_api": f"is YARN only; {_UPSTREAM} for YARN",
    "yarn_rm_auth": f"is YARN only; {_UPSTREAM} for YARN",
    "post_submit_commands": "runs shell commands next to spark-submit; put them in a downstream task",
    "reconnect_on_retry": "is upstream's deprecated name; use durable=",
    "openlineage_inject_parent_job_info": "is not supported by this operator; set the OpenLineage "
    "spark properties in conf={...}",
    "openlineage_inject_transport_info": "is not supported by this operator; set the OpenLineage "
    "spark properties in conf={...}",
}

CLIENT_MODE_MESSAGE = (
    "deploy_mode='client' runs the driver inside the Airflow worker, so it dies with the worker and "
    "no retry can reconnect to it; this operator submits in cluster mode only. "
    f"For client mode {_UPSTREAM}."
)

__all__ = ["CLIENT_MODE_MESSAGE", "UNSUPPORTED_PARAMETERS", "reject_unsupported"]


def reject_unsupported(owner: str, kwargs: Mapping[str, Any]) -> None:
    """Raise ``TypeError`` naming every unsupported parameter in ``kwargs`` and its alternative."""
    found = [name for name in UNSUPPORTED_PARAMETERS if name in kwargs]
    problems = [f"{name}= {UNSUPPORTED_PARAMETERS[name]}" for name in found]
    deploy_mode = kwargs.get("deploy_mode")
    if deploy_mode not in (None, "cluster"):
        problems.append(
            CLIENT_MODE_MESSAGE
            if deploy_mode == "client"
            else f"deploy_mode={deploy_mode!r} is not a Spark deploy mode"
        )
    if problems:
        raise TypeError(
            f"{owner} submits to a Spark standalone master's REST server, so these parameters "
            "cannot apply: " + "; ".join(problems)
        )
