"""OpenLineage properties for a Spark driver, on every cluster manager.

What it is for: ``openlineage_inject_parent_job_info`` and ``openlineage_inject_transport_info``
(and their ``[openlineage] spark_inject_*`` defaults) doing what they do on upstream's operator:
the OpenLineage Spark listener in the driver reports its run as a child of this task and sends
its events where Airflow sends its own.

How it works: both are Spark properties (``spark.openlineage.parent*``,
``spark.openlineage.transport.*``). On a standalone master the REST server passes
``sparkProperties`` to the driver as its Spark configuration, just as ``spark-submit --conf``
does on YARN and Kubernetes, so nothing is lost on any cluster manager. The properties come from
the OpenLineage provider's own helpers (through the common-compat provider, imported here only
when asked), which leave a property the user set in ``conf`` alone. The operator adds them to the
submission only, never to the request fingerprint: the parent run id changes with every try, and
a retry must still recognise the application an earlier try submitted.

What it does not do: it does not make the driver emit lineage - the cluster still needs the
``openlineage-spark`` jar and ``spark.extraListeners`` - and it injects transport settings only
for an HTTP transport (or the HTTP members of a composite one), as upstream does; other transport
types are logged and skipped. Without the OpenLineage provider nothing is injected and the
compat layer logs a warning saying so. An application a retry reconnects to keeps the parent run
id of the try that submitted it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from airflow.sdk import Context

__all__ = ["openlineage_properties", "with_openlineage_properties"]


def with_openlineage_properties(
    properties: dict[str, str], context: Context, *, parent_job_info: bool, transport_info: bool, log: Any
) -> dict[str, str]:
    """``properties`` plus the OpenLineage properties asked for (a new dict; strings only)."""
    if not (parent_job_info or transport_info):
        return properties
    from airflow.providers.common.compat.openlineage.utils.spark import (
        inject_parent_job_information_into_spark_properties,
        inject_transport_information_into_spark_properties,
    )

    injected = dict(properties)
    try:
        if parent_job_info:
            injected = inject_parent_job_information_into_spark_properties(injected, context)
        if transport_info:
            injected = inject_transport_information_into_spark_properties(injected, context)
    except Exception as err:  # noqa: BLE001 - lineage is optional: never fail a submission over it
        log.warning("OpenLineage properties were not added to the Spark driver's configuration: %s", err)
        return properties
    return {str(key): str(value) for key, value in injected.items()}


def openlineage_properties(
    conf: dict[str, str], context: Context, *, parent_job_info: bool, transport_info: bool, log: Any
) -> dict[str, str]:
    """Only the properties :func:`with_openlineage_properties` adds to ``conf`` (empty when none)."""
    injected = with_openlineage_properties(
        conf, context, parent_job_info=parent_job_info, transport_info=transport_info, log=log
    )
    return {key: value for key, value in injected.items() if conf.get(key) != value}
