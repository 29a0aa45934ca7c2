"""The "Spark Master UI" extra link and the XCom keys the operator pushes.

The operator pushes the master web UI URL and the driver id on every path (fresh driver,
reconnect, already finished, deferred, resumed), so the link is there whichever try followed the
driver. The standalone master has no page per driver; its front page lists running and completed
drivers with links to their workers' logs.
"""

from __future__ import annotations

from typing import ClassVar

from resumable_jobs.providers.common import XComUrlLink

__all__ = ["XCOM_DRIVER_ID_KEY", "XCOM_MASTER_UI_URL_KEY", "SparkMasterUiLink"]

XCOM_DRIVER_ID_KEY = "spark_driver_id"
XCOM_MASTER_UI_URL_KEY = "spark_master_ui_url"


class SparkMasterUiLink(XComUrlLink):
    """Extra link to the web UI of the Spark standalone master that runs the task's driver."""

    name: ClassVar[str] = "Spark Master UI"
    xcom_key: ClassVar[str] = XCOM_MASTER_UI_URL_KEY
