"""Extra links of the Batch operator: job details, job definition, job queue, CloudWatch logs.

What it is for: buttons in the Airflow UI that open the AWS console on the job this task
follows - also when the try reconnected to a job an earlier try submitted, found it already
succeeded, or resumed from the triggerer.

How it works: the operator builds each URL at run time (it knows the region and partition from
its hook and the ARNs from DescribeJobs) and pushes it to XCom under the link's ``xcom_key``;
the link classes only read it back (:class:`resumable_jobs.providers.common.XComUrlLink`). The
URL builders below are plain functions so the operator and the tests share them.

What it does not do: it imports neither botocore nor the Amazon provider (upstream's link
module does, through its base class), and it never calls AWS when the UI renders a link. A URL
that was never pushed (the job had not started, so it had no log stream yet) renders as no link.
"""

from __future__ import annotations

from urllib.parse import quote_plus

from resumable_jobs.providers.common import XComUrlLink

__all__ = [
    "BatchCloudWatchLogsLink",
    "BatchJobDefinitionLink",
    "BatchJobDetailsLink",
    "BatchJobQueueLink",
    "cloudwatch_logs_url",
    "console_domain",
    "job_definition_url",
    "job_details_url",
    "job_queue_url",
]

_DOMAINS = {"aws": "aws.amazon.com", "aws-cn": "amazonaws.cn", "aws-us-gov": "amazonaws-us-gov.com"}


class BatchJobDetailsLink(XComUrlLink):
    """The Batch console page of the job this task followed."""

    name = "Batch Job Details"
    xcom_key = "batch_job_details_url"


class BatchJobDefinitionLink(XComUrlLink):
    """The Batch console page of the job's definition (the revision the job ran with)."""

    name = "Batch Job Definition"
    xcom_key = "batch_job_definition_url"


class BatchJobQueueLink(XComUrlLink):
    """The Batch console page of the queue the job ran in."""

    name = "Batch Job Queue"
    xcom_key = "batch_job_queue_url"


class BatchCloudWatchLogsLink(XComUrlLink):
    """The CloudWatch Logs stream of the job's (first) container, once the job has one.

    Labelled "CloudWatch Events", as upstream's operator labels the same page, so a team's
    runbooks ("open CloudWatch Events on the task") stay right after the switch.
    """

    name = "CloudWatch Events"
    xcom_key = "batch_cloudwatch_logs_url"


def console_domain(partition: str | None) -> str | None:
    """The console host suffix for an AWS partition (None for partitions without a known console)."""
    return _DOMAINS.get(partition or "aws")


def _batch_console(region: str, partition: str | None, fragment: str) -> str | None:
    domain = console_domain(partition)
    if domain is None or not region:
        return None
    return f"https://console.{domain}/batch/home?region={region}#{fragment}"


def job_details_url(region: str, partition: str | None, job_id: str) -> str | None:
    return _batch_console(region, partition, f"jobs/detail/{job_id}")


def job_definition_url(region: str, partition: str | None, job_definition_arn: str) -> str | None:
    return _batch_console(region, partition, f"job-definition/detail/{job_definition_arn}")


def job_queue_url(region: str, partition: str | None, job_queue_arn: str) -> str | None:
    return _batch_console(region, partition, f"queues/detail/{job_queue_arn}")


def cloudwatch_logs_url(partition: str | None, *, region: str, group: str, stream: str) -> str | None:
    domain = console_domain(partition)
    if domain is None or not (region and group and stream):
        return None
    return (
        f"https://console.{domain}/cloudwatch/home?region={region}"
        f"#logsV2:log-groups/log-group/{quote_plus(group)}/log-events/{quote_plus(stream)}"
    )
