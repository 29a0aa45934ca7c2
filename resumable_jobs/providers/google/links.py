"""Extra links of the BigQuery operator: the job and, for queries, the destination table.

What it is for: buttons in the task's UI that open the BigQuery console on the job this try
followed (submitted, reconnected or found already done) and on the table a query wrote.

How it works: the operator pushes the URLs to XCom from ``on_job_selected`` - on every path -
and :class:`resumable_jobs.providers.common.XComUrlLink` reads them back. The URL builders here are
plain string formatting.

What it does not do: it makes no API calls; a link is only as good as the ids the operator knew
(a job whose location was not given and not yet reported links without one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from resumable_jobs.providers.common import XComUrlLink

__all__ = ["BigQueryJobLink", "BigQueryTableLink", "destination_table", "job_url", "table_url"]

CONSOLE = "https://console.cloud.google.com/bigquery"
JOB_URL_XCOM_KEY = "bigquery_job_url"
TABLE_URL_XCOM_KEY = "bigquery_table_url"


class BigQueryJobLink(XComUrlLink):
    """Opens the BigQuery console on the job the task followed (labelled as upstream's link)."""

    name = "BigQuery Job Detail"
    xcom_key = JOB_URL_XCOM_KEY


class BigQueryTableLink(XComUrlLink):
    """Opens the BigQuery console on the destination table of a query job."""

    name = "BigQuery Table"
    xcom_key = TABLE_URL_XCOM_KEY


def job_url(project_id: str, job_id: str, location: str | None = None) -> str:
    """The console page of one job (``j=bq:<location>:<job id>``; the location may be empty)."""
    return f"{CONSOLE}?project={quote(project_id)}&j=bq:{quote(location or '')}:{quote(job_id)}&page=queryresults"


def table_url(project_id: str, dataset_id: str, table_id: str) -> str:
    return (
        f"{CONSOLE}?project={quote(project_id)}&p={quote(project_id)}&d={quote(dataset_id)}"
        f"&t={quote(table_id)}&page=table"
    )


def destination_table(
    configuration: Mapping[str, Any] | None, default_project: str | None
) -> tuple[str, str, str] | None:
    """``(project, dataset, table)`` of a query's ``destinationTable``, or None."""
    query = (configuration or {}).get("query") if isinstance(configuration, Mapping) else None
    table = query.get("destinationTable") if isinstance(query, Mapping) else None
    if isinstance(table, Mapping) and table.get("datasetId") and table.get("tableId"):
        project = table.get("projectId") or default_project
        return (project, table["datasetId"], table["tableId"]) if project else None
    if isinstance(table, str) and table.count(".") in (1, 2):  # "dataset.table" or "project.dataset.table"
        parts = table.replace(":", ".").split(".")
        if len(parts) == 2 and default_project:
            return (default_project, parts[0], parts[1])
        if len(parts) == 3:
            return (parts[0], parts[1], parts[2])
    return None
