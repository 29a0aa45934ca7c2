"""What one resume decision tells the outside world: metrics, a trace span and log events.

What it is for: a team that switches from ``airflow.sdk.ResumableJobMixin`` keeps its dashboards,
trace queries and log alerts. So the names are upstream's: the ``resumable_job.*`` counters with
the tags ``operator`` and (in multi-team deployments) ``team_name``; the span
``resumable_job.resume_decision`` with ``operator``, ``resumable.external_id_key``,
``resumable.decision``, ``resumable.external_id`` and ``resumable.prior_status``; and the log
events "Reconnecting to existing job", "Job already completed successfully, skipping
resubmission", "Prior job in terminal state, resubmitting fresh" (WARNING) and "... crash
recovery is disabled ..." with upstream's structured fields (``external_id_key``,
``external_id``, ``status``). What this package knows beyond upstream travels as *extra*
attributes and fields - ``resumable.generation`` / ``generation``, ``resumable.reason`` /
``reason``, ``found_by_submission_token`` - never as a different name for the same thing.

How it works: the core mixin opens :func:`decision_span` around its decision, calls
:func:`record_decision` with the result, then :func:`count` and :func:`log_decision`. Decisions
upstream does not have (a request that changed, a cleared task, a job the system forgot) are
reported under the upstream ``resumable.decision`` value with the same effect
(:func:`upstream_decision`) and told apart by ``resumable.reason``. The stats client and the
tracer are looked up when used: the stats module is the one upstream calls (so whatever patches or
configures it sees our counters), and the tracer is the upstream mixin module's own ``tracer`` (so
the span carries the same instrumentation scope).

What it does not do: it emits nothing below Airflow 3.3 (the shim makes no decision), and it
never fails a task: without a stats client or OpenTelemetry, metrics or spans are skipped.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
from collections.abc import Iterator
from typing import Any

from resumable_jobs.mixin.decision import Action, Decision, Reason

FRESH_SUBMIT = "resumable_job.fresh_submit"
RECONNECT_ATTEMPT = "resumable_job.reconnect_attempt"
RECONNECT_SUCCESS = "resumable_job.reconnect_success"
ALREADY_SUCCEEDED = "resumable_job.already_succeeded"
TERMINAL_RESUBMIT = "resumable_job.terminal_resubmit"

DECISION_SPAN = "resumable_job.resume_decision"
#: The module whose ``tracer`` upstream's mixin uses: ours uses the same one.
UPSTREAM_TRACER_MODULE = "airflow.sdk.bases.resumablejobmixin"

#: Upstream's log events (substrings of these are what existing searches and alerts match).
RECONNECTING = "Reconnecting to existing job"
ALREADY_COMPLETED = "Job already completed successfully, skipping resubmission"
TERMINAL_STATE = "Prior job in terminal state, resubmitting fresh"
NO_STORED_ID = "No stored external ID found; submitting fresh job"
PERSISTED = "Persisted external ID to task store"
NO_TASK_STATE_STORE = "task_state_store not available in context, crash recovery is disabled for this run"
#: Ours: upstream has no such decision (it returns the old result after a clear).
CLEARED_AFTER_SUCCESS = "Prior job completed successfully before this task instance was cleared, resubmitting fresh"
CANCELLED_EARLIER = "Prior job was cancelled by an earlier try of this task instance, resubmitting fresh"
FOUND_BY_TOKEN = "Prior job found by its submission token, adopting it"

_log = logging.getLogger(__name__)


# ----------------------------------------------------------------- metrics
@functools.cache
def _stats() -> Any:
    for module, attr in (
        ("airflow.sdk._shared.observability.metrics.stats", None),
        ("airflow.sdk.observability.stats", "Stats"),
        ("airflow.stats", "Stats"),
    ):
        try:
            imported = __import__(module, fromlist=["_"])
        except ImportError:
            continue
        return getattr(imported, attr) if attr else imported
    _log.debug("No Airflow stats client found; resumable_job metrics are not emitted")
    return None


def incr(name: str, tags: dict[str, str]) -> None:
    stats = _stats()
    if stats is not None:
        stats.incr(name, tags=tags)


def metric_tags(operator: str, ti: Any) -> dict[str, str]:
    """``{"operator": ...}``, plus ``team_name`` when the task instance belongs to a team."""
    tags = {"operator": operator}
    try:
        team_name = (getattr(ti, "stats_tags", None) or {}).get("team_name")
    except Exception:  # noqa: BLE001 - a tag is never worth failing the task over
        team_name = None
    if team_name:
        tags["team_name"] = team_name
    return tags


def metric_names(decision: Decision) -> list[str]:
    """The upstream counters a decision increments, in order."""
    if decision.reason in (Reason.FRESH, Reason.RETRY_SUBMISSION):
        return [FRESH_SUBMIT]
    names = [RECONNECT_ATTEMPT]
    if decision.action is Action.RECONNECT:
        names.append(RECONNECT_SUCCESS)
    elif decision.action is Action.ALREADY_SUCCEEDED:
        names.append(ALREADY_SUCCEEDED)
    else:
        names.append(TERMINAL_RESUBMIT)
    return names


def count(decision: Decision, tags: dict[str, str]) -> None:
    for name in metric_names(decision):
        incr(name, tags)


# ----------------------------------------------------------------- the span
def upstream_decision(decision: Decision) -> str:
    """The ``resumable.decision`` value upstream would report for a decision with this effect."""
    if decision.action is Action.RECONNECT:
        return "reconnect"
    if decision.action is Action.ALREADY_SUCCEEDED:
        return "already_succeeded"
    if decision.reason in (Reason.FRESH, Reason.RETRY_SUBMISSION):
        return "fresh_submit"
    return "terminal_resubmit"


def _tracer() -> Any:
    upstream = sys.modules.get(UPSTREAM_TRACER_MODULE)
    tracer = getattr(upstream, "tracer", None)
    if tracer is not None:
        return tracer
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer(UPSTREAM_TRACER_MODULE)


@contextlib.contextmanager
def decision_span(operator: str, external_id_key: str) -> Iterator[Any]:
    """The ``resumable_job.resume_decision`` span (a no-op object without OpenTelemetry)."""
    tracer = _tracer()
    if tracer is None:
        yield _NoSpan()
        return
    with tracer.start_as_current_span(DECISION_SPAN) as span:
        span.set_attribute("operator", operator)
        span.set_attribute("resumable.external_id_key", external_id_key)
        yield span


def record_no_store(span: Any) -> None:
    span.set_attribute("resumable.decision", "no_task_state_store")


def record_decision(span: Any, decision: Decision, generation: int | None) -> None:
    """Upstream's attributes, then ours (``resumable.reason``, ``resumable.generation``)."""
    span.set_attribute("resumable.decision", upstream_decision(decision))
    prior = _prior_job(decision)
    if prior is not None:
        span.set_attribute("resumable.external_id", str(prior))
    if decision.status is not None:
        span.set_attribute("resumable.prior_status", str(decision.status))
    span.set_attribute("resumable.reason", decision.reason.name.lower())
    if generation is not None:
        span.set_attribute("resumable.generation", generation)
    if decision.adopted:
        span.set_attribute("resumable.found_by_submission_token", True)


class _NoSpan:
    """Stands in for a span where OpenTelemetry is not installed."""

    def set_attribute(self, key: str, value: Any) -> None:
        pass


# ----------------------------------------------------------------- log events
def _prior_job(decision: Decision) -> Any:
    """The stored job the decision is about: followed, or replaced by a new submission."""
    return decision.external_id if decision.action is not Action.SUBMIT else decision.previous_id


def log_no_store(log: Any) -> None:
    log.warning(NO_TASK_STATE_STORE)


def log_decision(log: Any, decision: Decision, *, external_id_key: str, generation: int | None) -> None:
    """The decision's event, with upstream's wording and fields (ours added after them).

    A changed request logs nothing here: the core mixin's WARNING, naming both fingerprints, is
    that decision's line.
    """
    fields: dict[str, Any] = {"external_id_key": external_id_key}
    prior = _prior_job(decision)
    if prior is not None:
        fields["external_id"] = prior
    if decision.status is not None:
        fields["status"] = decision.status
    fields["reason"] = decision.reason.value
    if generation is not None:
        fields["generation"] = generation
    if decision.adopted:
        fields["found_by_submission_token"] = True

    if decision.action is Action.RECONNECT:
        log.info(RECONNECTING, **fields)
    elif decision.action is Action.ALREADY_SUCCEEDED:
        log.info(ALREADY_COMPLETED, **fields)
    elif decision.reason in (Reason.TERMINAL, Reason.NOT_FOUND):
        log.warning(TERMINAL_STATE, **fields)
    elif decision.reason is Reason.RERUN_AFTER_SUCCESS:
        log.info(CLEARED_AFTER_SUCCESS, **fields)
    elif decision.reason is Reason.CANCELLED_ON_PURPOSE:
        log.info(CANCELLED_EARLIER, **fields)
    elif decision.reason is Reason.RETRY_SUBMISSION:
        # Not upstream's quiet first submission: an earlier try may have died while submitting.
        log.info(NO_STORED_ID, **fields)
    elif decision.reason is Reason.FRESH:
        log.debug(NO_STORED_ID, **fields)


def log_found_by_token(log: Any, external_id: Any, *, external_id_key: str, generation: int) -> None:
    # Not the token itself: Airflow's log masker redacts any field named like a token, and the
    # job (named here) carries it for whoever needs it.
    log.info(FOUND_BY_TOKEN, external_id_key=external_id_key, external_id=external_id, generation=generation)


def log_persisted(log: Any, decision: Decision, external_id: Any, *, external_id_key: str, generation: int) -> None:
    """The line naming the job a submission produced (INFO: upstream logs it at DEBUG)."""
    fields: dict[str, Any] = {
        "external_id_key": external_id_key,
        "external_id": external_id,
        "generation": generation,
        "reason": decision.reason.value,
    }
    if decision.previous_id is not None:
        fields["replaces"] = decision.previous_id
    log.info(PERSISTED, **fields)
