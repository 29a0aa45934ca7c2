"""The "See Databricks Job Run" extra link.

The operators push the run page URL to XCom under ``run_page_url`` (the key the upstream
operators use) on every path - fresh run, reconnect, already succeeded, deferred - so the link
points at the run this try actually followed.
"""

from __future__ import annotations

from typing import ClassVar

from resumable_jobs.providers.common import XComUrlLink

__all__ = ["XCOM_RUN_ID_KEY", "XCOM_RUN_PAGE_URL_KEY", "DatabricksRunPageLink"]

#: XCom keys shared with the upstream operators, so downstream tasks keep pulling the same keys.
XCOM_RUN_ID_KEY = "run_id"
XCOM_RUN_PAGE_URL_KEY = "run_page_url"


class DatabricksRunPageLink(XComUrlLink):
    """Extra link to the page of the Databricks run the task followed (read from XCom)."""

    name: ClassVar[str] = "See Databricks Job Run"
    xcom_key: ClassVar[str] = XCOM_RUN_PAGE_URL_KEY
