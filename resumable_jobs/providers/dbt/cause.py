"""The run's ``cause`` carries the submission token, and a retry finds its run by it.

What it is for: closing the window between "Trigger Job Run" returning and the run id being
persisted. dbt Cloud has no idempotency key: a second trigger is a second run. The only free text
a run keeps is its trigger's ``cause``, so every run the operator starts carries the mixin's
``submission_token`` there, and a retry whose predecessor died inside the window looks for a run
of the job with its generation's token before it triggers anything.

How it works: :func:`cause_with_token` appends `` [airflow-rj:<token>]`` to the trigger reason and
shortens the reason (never the token) so the whole stays within dbt Cloud's 255 characters. With
OpenLineage parent-job injection on, the cause is upstream's JSON object; :func:`lineage_cause_with_token`
adds the token as one more key (dropping the ``root`` block, then the lineage, if that is what it
takes to fit). :func:`find_run_by_token` lists the job's runs newest first (``order_by=-id``,
``include_related=trigger``), :data:`PAGE_SIZE` per page, at most :data:`MAX_PAGES` pages, and
returns the run whose cause carries exactly this token - preferring one that did not fail, then
the newest, if a listing lag ever let two exist.

What it does not do: it cannot see a run older than the pages it reads (the run was triggered
moments before the crash, so it is among the newest unless the job started hundreds of runs
since); it cannot mark runs started through ``rerun`` (``retry_from_failure=True``), whose
request has no ``cause``. It never triggers or cancels anything.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

__all__ = [
    "CAUSE_MAX_LENGTH",
    "MAX_PAGES",
    "PAGE_SIZE",
    "TOKEN_KEY",
    "cause_with_token",
    "find_run_by_token",
    "lineage_cause_with_token",
    "token_in",
]

#: dbt Cloud refuses longer causes (apache/airflow#34676; upstream's ``DBT_CAUSE_MAX_LENGTH``).
CAUSE_MAX_LENGTH = 255
#: List Runs returns at most 100 runs per request (API v2 reference).
PAGE_SIZE = 100
MAX_PAGES = 5
#: The key carrying the token in an OpenLineage JSON cause.
TOKEN_KEY = "airflow_rj_token"
_MARKER = re.compile(r"\[airflow-rj:([A-Za-z0-9_-]{1,64})\]")
_ELLIPSIS = "..."

_log = logging.getLogger(__name__)


def cause_with_token(reason: str, token: str) -> str:
    """``"<reason> [airflow-rj:<token>]"``, at most 255 characters; the reason is cut, never the token."""
    marker = f"[airflow-rj:{token}]"
    room = CAUSE_MAX_LENGTH - len(marker) - 1
    reason = " ".join(str(reason).split())
    if len(reason) > room:
        reason = reason[: room - len(_ELLIPSIS)].rstrip() + _ELLIPSIS
    return f"{reason} {marker}" if reason else marker


def lineage_cause_with_token(cause: str, token: str) -> str | None:
    """Add the token to upstream's OpenLineage JSON cause; None when ``cause`` is not such an object."""
    try:
        parsed = json.loads(cause)
    except (TypeError, ValueError):
        return None
    if not isinstance(parsed, dict):
        return None
    for candidate in (parsed, {k: v for k, v in parsed.items() if k != "root"}, {}):
        text = json.dumps({**candidate, TOKEN_KEY: token}, separators=(",", ":"))
        if len(text) <= CAUSE_MAX_LENGTH:
            if candidate is not parsed:
                _log.warning(
                    "The OpenLineage parent information was shortened to fit the submission token into the "
                    "dbt Cloud run's cause (%d characters at most)",
                    CAUSE_MAX_LENGTH,
                )
            return text
    return None  # pragma: no cover - a 64-character token always fits on its own


def token_in(cause: Any) -> str | None:
    """The submission token a run's cause carries, or None."""
    if not isinstance(cause, str):
        return None
    found = _MARKER.findall(cause)
    if found:
        return found[-1]
    try:
        parsed = json.loads(cause)
    except ValueError:
        return None
    value = parsed.get(TOKEN_KEY) if isinstance(parsed, dict) else None
    return value if isinstance(value, str) else None


def find_run_by_token(
    hook: Any, *, account_id: Any, job_id: Any, token: str, max_pages: int = MAX_PAGES
) -> dict[str, Any] | None:
    """The newest run of ``job_id`` whose cause carries ``token`` (as List Runs returns it), or None."""
    matches: list[dict[str, Any]] = []
    for page in range(max_pages):
        runs = (
            hook.get_job_runs(
                account_id=account_id,
                payload={
                    "job_definition_id": job_id,
                    "order_by": "-id",
                    "include_related": ["trigger"],
                    "limit": PAGE_SIZE,
                    "offset": page * PAGE_SIZE,
                },
            ).json()["data"]
            or []
        )
        matches += [run for run in runs if token_in((run.get("trigger") or {}).get("cause")) == token]
        if len(runs) < PAGE_SIZE:
            break
    if not matches:
        return None
    matches.sort(key=lambda run: (run.get("status") not in (20, 30), run.get("id") or 0), reverse=True)
    if len(matches) > 1:
        _log.warning(
            "%d dbt Cloud runs of job %s carry submission token %s: %s; following %s",
            len(matches),
            job_id,
            token,
            [run.get("id") for run in matches],
            matches[0].get("id"),
        )
    return matches[0]
