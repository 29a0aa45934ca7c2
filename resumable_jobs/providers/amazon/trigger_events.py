"""Upstream's AWS trigger events, translated into the event the resumable mixin resumes with.

What it is for: the Amazon provider's triggers end with ``{"status": "success" | <other>,
<id key>: ..., "message": ...}``, where the id key depends on the trigger (``job_id`` for Batch
and EMR on EKS, ``run_id`` for Glue, ``statement_id`` for Redshift Data); the mixin's
``execute_complete`` takes ``{"status": "success" | "error", "external_id": ..., "message": ...}``.
Every AWS operator here translates the one into the other the same way.

How it works: :func:`translate_trigger_event` leaves an event alone when it is not upstream's (not
a dict, already carrying ``external_id``, or without the id key); otherwise it returns the
mixin's event: "success" stays a success with the operator's message, any other status becomes
an error whose message the operator builds from the id and the trigger's message (typically by
reading the job's own failure reason).

What it does not do: read the job, raise, or decide what an unexpected event means: the mixin's
``execute_complete`` does that with what this returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["translate_trigger_event"]


def translate_trigger_event(
    event: Any, id_key: str, success_message: str, error_message: Callable[[Any, Any], str]
) -> Any:
    """The mixin's event for upstream's ``event`` (whose job id is under ``id_key``); other events unchanged.

    ``error_message(external_id, trigger_message)`` is called only for a status other than "success".
    """
    if not isinstance(event, dict) or "external_id" in event or id_key not in event:
        return event
    external_id = event[id_key]
    if event.get("status") == "success":
        return {"status": "success", "external_id": external_id, "message": success_message}
    return {"status": "error", "external_id": external_id, "message": error_message(external_id, event.get("message"))}
