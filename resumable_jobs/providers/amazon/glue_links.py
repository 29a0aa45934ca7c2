"""The Glue operator's extra link: the AWS Glue console page of the job run this task followed.

What it is for: a button labelled as upstream's ("AWS Glue Job Run Details") that opens the run
whether the try started it, reconnected to it, found it finished or resumed from the triggerer.

How it works: the operator pushes the URL to XCom under :attr:`GlueJobRunDetailsLink.xcom_key` as
soon as it knows the run (:class:`resumable_jobs.providers.common.XComUrlLink` reads it back);
:func:`job_run_url` builds it from the region, partition, job name and run id.

What it does not do: import botocore or the Amazon provider (upstream's link base class does),
or call AWS when the UI renders the link.
"""

from __future__ import annotations

from urllib.parse import quote

from resumable_jobs.providers.amazon.links import console_domain
from resumable_jobs.providers.common import XComUrlLink

__all__ = ["GlueJobRunDetailsLink", "job_run_url"]


class GlueJobRunDetailsLink(XComUrlLink):
    """The Glue Studio console page of the job run this task followed."""

    name = "AWS Glue Job Run Details"
    xcom_key = "glue_job_run_details_url"


def job_run_url(region: str | None, partition: str | None, job_name: str, run_id: str) -> str | None:
    domain = console_domain(partition)
    if domain is None or not region:
        return None
    return f"https://console.{domain}/gluestudio/home?region={region}#/job/{quote(job_name, safe='')}/run/{run_id}"
