"""What the statement handles of one SQL API request mean to the mixin, together.

What it is for: the mixin follows one external id; a Snowflake request of N statements has N
statement handles, so the id is the list and its status is the statements' statuses joined.

How it works: ``SnowflakeSqlApiHook.get_sql_api_query_status`` reads each handle as ``running``
(HTTP 202), ``success`` (200) or ``error`` (422, a failed or cancelled statement).
:func:`request_status` joins them: any ``error`` makes the request :data:`ERROR` (a retry
submits anew), otherwise any ``running`` makes it :data:`RUNNING` (a retry reconnects), and only
all ``success`` is :data:`SUCCESS`. A status this module does not know counts as running: waiting
on a finished statement costs a poll, treating a running one as ended would run it twice.

What it does not do: it makes no API calls and imports no Snowflake library.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["ERROR", "RUNNING", "SUCCESS", "failure_message", "is_active", "is_succeeded", "request_status"]

RUNNING = "running"
SUCCESS = "success"
ERROR = "error"


def request_status(statuses: Iterable[str]) -> str:
    """The request's status from its statements' statuses (see the module docstring)."""
    seen = [str(status) for status in statuses]
    if ERROR in seen:
        return ERROR
    if all(status == SUCCESS for status in seen):
        return SUCCESS
    return RUNNING


def is_active(status: str) -> bool:
    return status not in (SUCCESS, ERROR)


def is_succeeded(status: str) -> bool:
    return status == SUCCESS


def failure_message(failed: Mapping[str, Mapping[str, Any]]) -> str:
    """``Snowflake statement <handle> failed: <message>`` for each failed handle, joined."""
    parts = [
        f"Snowflake statement {handle} failed: {answer.get('message') or 'no message'}"
        for handle, answer in failed.items()
    ]
    return "; ".join(parts) or "a Snowflake statement failed without a message"
