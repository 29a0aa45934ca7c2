"""OpenLineage properties in an EMR job run's ``configurationOverrides`` (both EMR operators).

What it is for: upstream's ``openlineage_inject_parent_job_info`` / ``openlineage_inject_transport_info``
on EMR Serverless and EMR on EKS: the Spark job reports to the same lineage backend as Airflow and
names the Airflow task as its parent.

How it works: the common-compat provider's helpers (imported when called) add the
``spark.openlineage.*`` properties to the ``spark-defaults`` classification; the operators call
:func:`with_openlineage` on the overrides they submit (with the operator, whose
``openlineage_inject_*`` flags say what to add), never on the request they fingerprint, so
lineage values that differ per try never look like a changed request.

What it does not do: fail the submission when the lineage provider is missing: it raises, as
upstream does, only when injection was asked for.
"""

from __future__ import annotations

from typing import Any

__all__ = ["with_openlineage"]


def with_openlineage(overrides: Any, context: Any, operator: Any, *, service: str) -> Any:
    """``overrides`` with the OpenLineage properties ``operator`` asks for (unchanged when it asks for neither)."""
    parent, transport, log = (
        operator.openlineage_inject_parent_job_info,
        operator.openlineage_inject_transport_info,
        operator.log,
    )
    if not (parent or transport):
        return overrides
    from airflow.providers.common.compat.openlineage.utils.spark import (
        inject_parent_job_information_into_emr_serverless_properties,
        inject_transport_information_into_emr_serverless_properties,
    )

    if parent:
        log.info("Injecting OpenLineage parent job information into the %s configuration.", service)
        overrides = inject_parent_job_information_into_emr_serverless_properties(overrides, context)
    if transport:
        log.info("Injecting OpenLineage transport information into the %s configuration.", service)
        overrides = inject_transport_information_into_emr_serverless_properties(overrides, context)
    return overrides
