"""Find the Glue job run an earlier try started, by the submission token in its arguments.

What it is for: Glue's StartJobRun takes no idempotency token, so the submit-to-persist window is
closed by a search. Every run the operator starts carries the mixin's ``submission_token`` as
the run argument :data:`TOKEN_ARGUMENT`; a retry whose predecessor died before persisting the run
id asks :func:`find_run` for the run with its generation's token and follows it. The same search
answers StartJobRun's ``ConcurrentRunsExceededException``: if the run holding the slot is ours,
the retry follows it instead of failing while it runs.

How it works: GetJobRuns for the job name, ``MaxResults`` :data:`PAGE_SIZE`, following
``NextToken`` for at most ``max_pages`` pages, keeping runs whose ``Arguments`` match. A run
started by the Amazon provider's own ``GlueJobOperator`` for the same task instance carries
upstream's ``--airflow_task_uuid`` argument instead (:data:`UPSTREAM_TASK_UUID_ARGUMENT`,
``dag_id:task_id:run_id:map_index``); :func:`upstream_task_uuid` builds that value so a task
switched from upstream's operator mid-retries can recognise its predecessor's run.

What it does not do: it never starts or stops a run, and it sees only runs GetJobRuns still
returns (Glue keeps run history for a limited time) within the page limit, newest first on AWS.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "PAGE_SIZE",
    "TOKEN_ARGUMENT",
    "UPSTREAM_TASK_UUID_ARGUMENT",
    "find_run",
    "iter_runs",
    "upstream_task_uuid",
]

#: The run argument carrying the submission token on every run the operator starts.
TOKEN_ARGUMENT = "--resumable-jobs-token"
#: The run argument upstream's GlueJobOperator tags its runs with (durable deferrable tries).
UPSTREAM_TASK_UUID_ARGUMENT = "--airflow_task_uuid"
#: GetJobRuns' largest page.
PAGE_SIZE = 200

_log = logging.getLogger(__name__)


def iter_runs(client: Any, job_name: str, *, max_pages: int) -> Iterator[dict[str, Any]]:
    """Yield the job's runs as GetJobRuns pages them; nothing for a job Glue does not know."""
    request: dict[str, Any] = {"JobName": job_name, "MaxResults": PAGE_SIZE}
    for _ in range(max_pages):
        try:
            page = client.get_job_runs(**request)
        except client.exceptions.EntityNotFoundException:
            return  # no such job: no run of it can exist
        yield from page.get("JobRuns") or []
        next_token = page.get("NextToken")
        if not next_token:
            return
        request["NextToken"] = next_token
    _log.warning(
        "Stopped searching the runs of Glue job %r after %d pages of %d runs: an older run was not examined",
        job_name,
        max_pages,
        PAGE_SIZE,
    )


def find_run(
    client: Any,
    job_name: str,
    argument: str,
    value: str,
    *,
    max_pages: int,
    accept: Callable[[dict[str, Any]], bool] = lambda run: True,
) -> dict[str, Any] | None:
    """The job's most recent run whose ``Arguments[argument] == value`` (and that ``accept`` takes), or None."""
    matches = [
        run
        for run in iter_runs(client, job_name, max_pages=max_pages)
        if (run.get("Arguments") or {}).get(argument) == value and accept(run)
    ]
    if not matches:
        return None
    matches.sort(key=lambda run: str(run.get("StartedOn") or ""), reverse=True)
    if len(matches) > 1:
        _log.warning(
            "%d runs of Glue job %r carry %s=%s: %s; following the most recent, %s",
            len(matches),
            job_name,
            argument,
            value,
            [run.get("Id") for run in matches],
            matches[0].get("Id"),
        )
    return matches[0]


def upstream_task_uuid(ti: Any) -> str | None:
    """The value upstream's operator puts in ``--airflow_task_uuid`` for this task instance."""
    if ti is None or not all(hasattr(ti, name) for name in ("dag_id", "task_id", "run_id")):
        return None
    map_index = getattr(ti, "map_index", -1)
    return f"{ti.dag_id}:{ti.task_id}:{ti.run_id}:{-1 if map_index is None else map_index}"
