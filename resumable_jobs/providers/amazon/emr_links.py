"""Extra links of the EMR Serverless operator: S3 logs, CloudWatch logs, the application UIs.

What it is for: upstream's four buttons, with upstream's labels, on every path of the task -
also when a try reconnected to a run an earlier try started, found it already succeeded, or
resumed from the triggerer.

How it works: the S3 and CloudWatch pages are fixed URLs the operator builds at run time from
the run's ``monitoringConfiguration`` and pushes to XCom (:class:`XComUrlLink`). The Spark/Tez UI
("EMR Serverless Dashboard") and the driver's stdout are one-time URLs that EMR Serverless issues
on request and that expire after an hour, so a URL pushed at run time would be dead when
someone clicks it: the operator pushes the run's coordinates (application id, run id, connection,
region) instead, and :class:`EmrServerlessDashboardLink` / :class:`EmrServerlessLogsLink` ask
GetDashboardForJobRun when the UI renders them, as upstream's links do.

What it does not do: import botocore or the Amazon provider at import time (the dashboard lookup
imports the hook inside ``get_link``), or fail a page render: a lookup error renders no link.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import quote_plus, urlparse

from airflow.sdk import BaseOperatorLink

from resumable_jobs.providers.amazon.links import console_domain
from resumable_jobs.providers.common import XComUrlLink

if TYPE_CHECKING:
    from airflow.models.taskinstancekey import TaskInstanceKey
    from airflow.sdk import BaseOperator

__all__ = [
    "DASHBOARD_XCOM_KEY",
    "EmrServerlessCloudWatchLogsLink",
    "EmrServerlessDashboardLink",
    "EmrServerlessLogsLink",
    "EmrServerlessS3LogsLink",
    "serverless_cloudwatch_url",
    "serverless_dashboard_url",
    "serverless_s3_logs_url",
]

#: XCom key of the coordinates the two application-UI links look up when rendered.
DASHBOARD_XCOM_KEY = "emr_serverless_dashboard_run"


class EmrServerlessS3LogsLink(XComUrlLink):
    """The S3 console on the run's log prefix (when the run logs to S3)."""

    name = "S3 Logs"
    xcom_key = "emr_serverless_s3_logs_url"


class EmrServerlessCloudWatchLogsLink(XComUrlLink):
    """The CloudWatch console on the run's log streams (when the run logs to CloudWatch)."""

    name = "CloudWatch Logs"
    xcom_key = "emr_serverless_cloudwatch_logs_url"


class _DashboardLookupLink(BaseOperatorLink):
    """A link whose URL EMR Serverless issues when the link is rendered (see the module docstring)."""

    name: ClassVar[str] = "EMR Serverless Dashboard"
    path: ClassVar[str | None] = None

    def get_link(self, operator: BaseOperator, *, ti_key: TaskInstanceKey) -> str:
        from airflow.sdk.execution_time.xcom import XCom

        where = XCom.get_value(ti_key=ti_key, key=DASHBOARD_XCOM_KEY)
        if not isinstance(where, dict):
            return ""
        try:
            url = serverless_dashboard_url(where)
        except Exception:  # noqa: BLE001 - a link must never break the page
            return ""
        if not url:
            return ""
        return urlparse(url)._replace(path=self.path).geturl() if self.path else url


class EmrServerlessDashboardLink(_DashboardLookupLink):
    """The run's Spark or Tez UI (``enable_application_ui_links=True``)."""

    name = "EMR Serverless Dashboard"


class EmrServerlessLogsLink(_DashboardLookupLink):
    """The Spark driver's stdout (``enable_application_ui_links=True``, Spark jobs)."""

    name = "Spark Driver stdout"
    path = "/logs/SPARK_DRIVER/stdout.gz"


def serverless_dashboard_url(where: dict[str, Any]) -> str | None:
    """Ask GetDashboardForJobRun for the run's one-time UI URL (one attempt, no retries)."""
    from airflow.providers.amazon.aws.hooks.emr import EmrServerlessHook

    hook = EmrServerlessHook(
        aws_conn_id=where.get("aws_conn_id"),
        region_name=where.get("region_name"),
        config={"retries": {"total_max_attempts": 1}},
    )
    response = hook.conn.get_dashboard_for_job_run(applicationId=where["application_id"], jobRunId=where["job_run_id"])
    return response.get("url")


def serverless_s3_logs_url(
    partition: str | None, *, region: str, log_uri: str, application_id: str, job_run_id: str
) -> str | None:
    """The S3 console on ``<logUri>/applications/<application>/jobs/<run>/``."""
    domain = console_domain(partition)
    parsed = urlparse(log_uri or "")
    if domain is None or not region or parsed.scheme not in ("s3", "s3a", "s3n") or not parsed.netloc:
        return None
    prefix = parsed.path.strip("/")
    prefix = f"{prefix}/" if prefix else ""
    return (
        f"https://console.{domain}/s3/buckets/{parsed.netloc}?region={region}"
        f"&prefix={prefix}applications/{application_id}/jobs/{job_run_id}/"
    )


def serverless_cloudwatch_url(partition: str | None, *, region: str, group: str, stream_prefix: str) -> str | None:
    """The CloudWatch console on ``group``, its streams filtered by ``stream_prefix``.

    The console's fragment encodes ``?`` and ``=`` of its own filter as ``$3F`` and ``$3D``.
    """
    domain = console_domain(partition)
    if domain is None or not (region and group):
        return None
    stream_filter = quote_plus("?logStreamNameFilter=").replace("%", "$") + quote_plus(stream_prefix)
    return (
        f"https://console.{domain}/cloudwatch/home?region={region}"
        f"#logsV2:log-groups/log-group/{quote_plus(group)}{stream_filter}"
    )
