"""RJ004: a watermark or last-processed timestamp kept in a Variable.

Why: a watermark belongs to the data it describes. In a Variable it is global: any DAG or task
can overwrite it, two DAGs loading different tables can collide on one key, and nothing ties it
to the asset. ``asset_state_store`` is scoped to the asset and kept across DAG runs, and every
DAG that declares the asset as an inlet or outlet can read it (spec section 4).

How: inside a task body, ``execute()`` or a ``python_callable``: a ``Variable.set`` whose key
names a watermark (``watermark``, ``hwm``, ``last_processed_at``, ``last_sync_ts``, ...), and a
read of such a key (a call or a Jinja ``{{ var.value.key }}``) when some task writes it (a template
read of one nothing writes is held back as uncertain); an offset-like key a task
reads and then moves on and that something else reads back (the position of shared data; one
only its own task reads back is that task's progress, RJ001), or that a task writes and the DAG
reads when it is parsed, or another DAG file reads (the position others plan from); and a key naming a date that a task writes and something else reads back
(another task, or a module of the DAG when it is parsed): the DAG's position in time; read
only by tasks the DAG runs after the writer (``call_api() >> wait_for_quota()``), the writer not
reading it, it is this run's value handed on, RJ001. Decided
over the whole reviewed tree, so helpers and config modules in other files count.

What it does not do: report date-like configuration that a task only reads (``max_date``,
``start_date_override``), or anything at module level.
"""

from __future__ import annotations

from collections.abc import Iterator

from resumable_jobs.review.findings import WARNING, Finding
from resumable_jobs.review.keys import KeyKind, is_strong, names_a_switch, names_configuration
from resumable_jobs.review.rules.base import Rule, no_local_findings, record_finding
from resumable_jobs.review.rules.rj001_variable_state import _READ_ONLY, own_progress
from resumable_jobs.review.variable_usage import ProjectFacts

__all__ = ["RULE"]


def check_project(facts: ProjectFacts) -> Iterator[Finding]:
    usage = facts.usage()
    for record in usage.records:
        if record.silenced(RULE.code):
            continue
        if record.origin == "parse":
            continue  # evidence about how a key is used, not a use in a task
        if record.switch or names_a_switch(record.key):
            continue  # a feature switch, read or turned by a task: configuration
        uncertain = None
        if record.kind is KeyKind.WATERMARK:
            if record.op == "get" and not usage.written(record.key):
                if not is_strong(record.key) or names_configuration(record.key):
                    continue
                uncertain = _READ_ONLY if record.origin == "jinja" else None
        elif own_progress(usage, record.key):
            continue  # the task's own progress: RJ001
        elif not (
            usage.advanced_across_runs(record.key)
            or usage.date_kept_across_runs(record.key)
            or usage.position_planned_from(record.key)
            or usage.abbreviated_watermark(record.key)
        ):
            continue
        verb = "stores" if record.op == "set" else "reads"
        call = record.template or f"Variable.{record.op}({record.shown_key})"
        via = f" in {record.via}" if record.via else ""
        finding = record_finding(
            record,
            RULE.code,
            RULE.severity,
            f"{call}{via} {verb} a watermark in a global Variable: any "
            "DAG or task can overwrite it and it is not tied to the asset it describes",
            _suggestion(record.shown_key),
        )
        yield finding if uncertain is None else finding.as_uncertain(uncertain)


def _suggestion(key: str) -> str:
    return (
        "Keep it in asset_state_store, scoped to the asset and kept across DAG runs.\n"
        "Before:\n"
        f"    Variable.set({key}, new_watermark)\n"
        "After:\n"
        "    @task(inlets=[ORDERS], outlets=[ORDERS])\n"
        "    def load(asset_state_store=None):\n"
        "        store = asset_state_store[ORDERS]\n"
        '        store.set("watermark", datetime.now(tz=timezone.utc).isoformat())'
    )


RULE = Rule(
    code="RJ004",
    name="watermark-in-variable",
    severity=WARNING,
    summary="Watermark or last-processed timestamp kept in a Variable; use asset_state_store.",
    check=no_local_findings,
    check_project=check_project,
)
