"""Redshift Data API statement statuses, and what each one means to the resumable mixin.

What it is for: one place that maps a DescribeStatement answer onto the decision table - which
statuses a retry reconnects to, which one means "return the result", which statement ids the
task returns, and what to tell the user when a statement did not finish.

How it works: the Data API moves a statement through SUBMITTED, PICKED and STARTED to FINISHED,
FAILED or ABORTED (the API reference's ``StatementStatusString``). The first three are *active*
(a retry reconnects), FINISHED is the only success, and everything else ends the generation.
:func:`describe_statement` raises :class:`JobNotFoundError` when the Data API does not know the
id (``ResourceNotFoundException``; ``ValidationException`` for an id it cannot parse), as
upstream's operator maps both to "not found". A batch (BatchExecuteStatement) is one statement
whose description lists its ``SubStatements`` (``<id>:1``, ``<id>:2``...): their ids are the ones
upstream's operator returns, so :func:`statement_ids` does the same.

What it does not do: it does not wait, retry or sleep; polling belongs to the operator. It never
reads query text into messages (SQL may carry literals a log should not).
"""

from __future__ import annotations

from typing import Any

from resumable_jobs.mixin.errors import JobNotFoundError

__all__ = [
    "ACTIVE_STATUSES",
    "FINISHED",
    "describe_statement",
    "failure_summary",
    "is_active",
    "is_succeeded",
    "statement_ids",
]

FINISHED = "FINISHED"
#: Statuses in which the statement may still finish: a retry reconnects to it.
ACTIVE_STATUSES = frozenset({"SUBMITTED", "PICKED", "STARTED"})
#: Error codes that mean "the Data API does not know this id" (as upstream maps them).
_NOT_FOUND_CODES = frozenset({"ResourceNotFoundException", "ValidationException"})


def is_active(status: str | None) -> bool:
    return status in ACTIVE_STATUSES


def is_succeeded(status: str | None) -> bool:
    return status == FINISHED


def describe_statement(client: Any, statement_id: str) -> dict[str, Any]:
    """DescribeStatement for ``statement_id``; :class:`JobNotFoundError` when the Data API has no such id.

    Other errors (throttling, credentials, network) propagate: the mixin must not mistake an
    unreachable service for a forgotten statement and run the SQL again.
    """
    from botocore.exceptions import ClientError

    try:
        return client.describe_statement(Id=statement_id)
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code")
        if code in _NOT_FOUND_CODES:
            raise JobNotFoundError(statement_id, f"DescribeStatement answered {code}") from error
        raise


def statement_ids(description: dict[str, Any]) -> list[str]:
    """The ids a task returns for a statement: its sub-statements' for a batch, else its own."""
    subs = description.get("SubStatements") or []
    return [sub["Id"] for sub in subs] if subs else [description["Id"]]


def failure_summary(description: dict[str, Any]) -> str:
    """One sentence on why a statement did not finish: its status, its error, the failing sub-statement."""
    parts = [f"Redshift Data statement {description.get('Id')!r} ended {description.get('Status')}"]
    if description.get("Error"):
        parts.append(f"error: {description['Error']}")
    for sub in description.get("SubStatements") or []:
        if sub.get("Status") not in (FINISHED, None) and sub.get("Error"):
            parts.append(f"sub-statement {sub['Id']} {sub['Status']}: {sub['Error']}")
            break
    return "; ".join(parts)
