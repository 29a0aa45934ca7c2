"""RJ001: a Variable used as per-run state (cursor, offset, external job id) inside a task.

Why: Variables are one global value per key. A cursor or job id kept there is shared by every
DAG run, every mapped index and every task that happens to use the same key, so a concurrent
run overwrites it and a retry can resume from another run's position or reconnect to another
run's job. ``task_state_store`` is scoped to one task instance and survives its retries, which
is the scope this state needs (spec sections 1-3).

How: a ``Variable.set`` inside a task body, ``execute()``/``poke()`` or a ``python_callable``
whose key names per-run state (see :mod:`resumable_jobs.review.keys`) is reported. A
``Variable.get`` of such a key is reported only when a task in the same file also writes that
key, or when the key is unambiguous (``cursor``, ``checkpoint``): a read-only job id can be
configuration, such as the id of a Databricks job definition.

What it does not do: report Variables read as configuration (table names, cluster ids,
feature flags), Variable calls at module level (parse time), watermarks (RJ004), or the
Variable calls of a reconnect-or-submit ``if`` already reported as RJ003.
"""

from __future__ import annotations

from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import ModuleIndex
from resumable_jobs.review.keys import KeyKind, is_strong
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.rules.rj003_reconnect import reconnect_ifs
from resumable_jobs.review.variables import VariableAccess, runtime_variable_accesses, written_keys

__all__ = ["RULE"]

_STATE_KINDS = (KeyKind.JOB_ID, KeyKind.CURSOR)


def check(index: ModuleIndex) -> Iterator[Finding]:
    reported_as_reconnect = {(found.function, found.key) for found in reconnect_ifs(index)}
    written = written_keys(index)
    for access in runtime_variable_accesses(index):
        if access.kind not in _STATE_KINDS:
            continue
        if (access.function, access.key) in reported_as_reconnect:
            continue
        if access.op == "get" and access.key not in written and not is_strong(access.key):
            continue
        yield make_finding(index, access.node, RULE.code, RULE.severity, _message(access), _suggestion(access))


def _message(access: VariableAccess) -> str:
    verb = "stores" if access.op == "set" else "reads"
    return (
        f"Variable.{access.op}({access.shown_key}) {verb} per-run state ({access.kind.value}) in a "
        "global Variable: every run, mapped index and retry shares that one value, so a "
        "concurrent run can overwrite it and a retry can resume from another run's state"
    )


def _suggestion(access: VariableAccess) -> str:
    shown = access.shown_key
    extra, retention = "", ""
    if access.kind is KeyKind.JOB_ID:
        retention = ", retention=NEVER_EXPIRE"  # a job id must outlive the job
        extra = (
            "\nFor an operator that submits an external job, ResumableJobMixin does this for you"
            "\n(it persists the id before polling and reconnects on retry)."
        )
    return (
        "Keep it in task_state_store: scoped to this task instance, kept across its retries."
        f"{extra}\n"
        "Before:\n"
        f"    value = Variable.get({shown}, default_var=None)\n"
        f"    Variable.set({shown}, new_value)\n"
        "After:\n"
        '    store = context["task_state_store"]\n'
        f"    value = store.get({shown})\n"
        f"    store.set({shown}, new_value{retention})"
    )


RULE = Rule(
    code="RJ001",
    name="variable-as-run-state",
    severity=ERROR,
    summary="Variable used as per-run state (cursor, offset, job id) inside a task; use task_state_store.",
    check=check,
)
