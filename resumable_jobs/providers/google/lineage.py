"""OpenLineage for ``BigQueryInsertJobOperator``: upstream's lineage, for the job this try followed.

What it is for: a team that switches keeps the lineage upstream's operator reports - input and
output tables with their schemas, column lineage, output statistics, the ``bigQueryJob`` and
``externalQuery`` run facets, the SQL job facet - and gets it on tries upstream never has: a
retry that reconnected to the job an earlier try inserted, found it already finished, or resumed
from the triggerer. Upstream's ``job_id`` is the job it inserted in this try; ours is whichever
job the mixin followed (``current_external_id``), which is the job whose tables were read and
written.

How it works: the Google provider's extraction (its OpenLineage mixin, the code upstream's
operator runs) is applied to a small view of our operator that answers its questions: the
followed job's id and location, the hook, the project, the SQL. Reusing it, rather than
re-deriving lineage from the job's REST resource, keeps the events identical - facet for facet -
to what the same provider version emits for upstream's operator. Everything is imported when
OpenLineage asks, never when a DAG file imports the operator.

What it does not do: it depends on that provider-internal mixin; if a provider release moves or
renames it, :func:`job_lineage` logs a warning and returns no lineage rather than failing the
task (the parity test against the installed provider catches such a release). Like upstream, it
reports no datasets for a job that is not DONE (``wait_for_termination=False``): the run facets
then carry the error message.
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["job_lineage"]


def job_lineage(operator: Any, job_id: str | None, location: str | None, task_instance: Any) -> Any:
    """The ``OperatorLineage`` of BigQuery job ``job_id`` as the Google provider extracts it."""
    try:
        view_class = _view_class()
    except ImportError as err:
        operator.log.warning("BigQuery lineage is not available with this Google provider version: %s", err)
        return None
    view = view_class(
        job_id=job_id,
        location=location,
        hook=operator._get_hook(),
        project_id=operator.project_id,
        gcp_conn_id=operator.gcp_conn_id,
        impersonation_chain=operator.impersonation_chain,
        sql=operator.sql,
        log=operator.log,
    )
    return view.get_openlineage_facets_on_complete(task_instance)


@functools.cache
def _view_class() -> type:
    from airflow.providers.google.cloud.openlineage.mixins import _BigQueryInsertJobOperatorOpenLineageMixin

    class FollowedJob(_BigQueryInsertJobOperatorOpenLineageMixin):
        """The attributes the provider's extraction reads, taken from our operator and its job."""

        def __init__(self, **attributes: Any) -> None:
            self.__dict__.update(attributes)

    return FollowedJob
