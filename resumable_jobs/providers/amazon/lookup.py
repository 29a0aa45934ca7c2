"""Find the Batch job an earlier try submitted, by the submission-token tag it carries.

What it is for: closing the window between SubmitJob returning and the job id being persisted.
Every job the operator submits carries the mixin's ``submission_token`` in the tag
:data:`TOKEN_TAG_KEY`; a retry whose predecessor died inside that window asks this module for
the job with its generation's token and reconnects to it instead of submitting a duplicate.

How it works: Batch cannot filter ListJobs by tag, but it can by job name - and with a filter it
returns jobs of every status, not only RUNNING ones. So :func:`find_job_by_token` lists the
queue's jobs with the task's job name (following ``nextToken``), reads their tags with
DescribeJobs (100 ids per call) and keeps those whose token tag matches. If several match (only
possible when a listing lagged behind a submission), a job that did not fail is preferred, then
the most recent.

What it does not do: it cannot see jobs ListJobs no longer returns (Batch keeps finished jobs
for a limited time) nor jobs submitted under another name or to another queue - a request whose
name or queue changed between tries is a different request anyway. It never submits anything.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

__all__ = ["DESCRIBE_BATCH_SIZE", "TOKEN_TAG_KEY", "find_job_by_token", "list_job_ids_by_name"]

#: The tag carrying the submission token on every job the operator submits.
TOKEN_TAG_KEY = "resumable-jobs:submission-token"
#: DescribeJobs accepts at most this many ids per call.
DESCRIBE_BATCH_SIZE = 100

_log = logging.getLogger(__name__)


def list_job_ids_by_name(client: Any, *, job_queue: str, job_name: str) -> Iterator[str]:
    """Yield the ids of the queue's jobs named ``job_name``, whatever their status."""
    request: dict[str, Any] = {
        "jobQueue": job_queue,
        "filters": [{"name": "JOB_NAME", "values": [job_name]}],
    }
    while True:
        page = client.list_jobs(**request)
        for summary in page.get("jobSummaryList") or []:
            if summary.get("jobName") == job_name:  # the filter is case-insensitive; names are not
                yield summary["jobId"]
        next_token = page.get("nextToken")
        if not next_token:
            return
        request["nextToken"] = next_token


def find_job_by_token(
    client: Any, *, job_queue: str, job_name: str, token: str, tag_key: str = TOKEN_TAG_KEY
) -> str | None:
    """Return the id of the job in ``job_queue`` named ``job_name`` tagged ``tag_key=token``, or None."""
    ids = list(dict.fromkeys(list_job_ids_by_name(client, job_queue=job_queue, job_name=job_name)))
    matches = []
    for start in range(0, len(ids), DESCRIBE_BATCH_SIZE):
        chunk = ids[start : start + DESCRIBE_BATCH_SIZE]
        for job in client.describe_jobs(jobs=chunk).get("jobs") or []:
            if (job.get("tags") or {}).get(tag_key) == token:
                matches.append(job)
    if not matches:
        return None
    matches.sort(key=lambda job: (job.get("status") != "FAILED", job.get("createdAt") or 0), reverse=True)
    if len(matches) > 1:
        _log.warning(
            "%d AWS Batch jobs carry submission token %s: %s; following %s",
            len(matches),
            token,
            [job["jobId"] for job in matches],
            matches[0]["jobId"],
        )
    return matches[0]["jobId"]
