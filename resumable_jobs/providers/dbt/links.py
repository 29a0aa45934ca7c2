"""The "Monitor Job Run" extra link: the page of the dbt Cloud run the task followed.

The operator pushes the run's ``href`` to XCom under ``job_run_url`` (upstream's key, which
upstream's link reads too) on every path - fresh run, reconnect, already succeeded, before
deferring - so the link points at the run this try followed, also after a retry reconnected.
"""

from __future__ import annotations

from typing import ClassVar

from resumable_jobs.providers.common import XComUrlLink

__all__ = ["XCOM_RUN_ID_KEY", "XCOM_RUN_URL_KEY", "DbtCloudRunJobOperatorLink"]

#: XCom keys shared with the upstream operator, so downstream tasks keep pulling the same keys.
XCOM_RUN_ID_KEY = "job_run_id"
XCOM_RUN_URL_KEY = "job_run_url"


class DbtCloudRunJobOperatorLink(XComUrlLink):
    """Extra link to the dbt Cloud page of the run the task followed (read from XCom)."""

    name: ClassVar[str] = "Monitor Job Run"
    xcom_key: ClassVar[str] = XCOM_RUN_URL_KEY
