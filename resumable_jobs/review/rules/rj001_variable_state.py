"""RJ001: a Variable used as per-run state (cursor, offset, external job id) inside a task.

Why: Variables are one global value per key. A cursor or job id kept there is shared by every
DAG run, every mapped index and every task that happens to use the same key, so a concurrent
run overwrites it and a retry can resume from another run's position or reconnect to another
run's job. ``task_state_store`` is scoped to one task instance and survives its retries, which
is the scope this state needs (spec sections 1-3).

How: decided over the whole reviewed tree from the Variable records of every file (see
:mod:`resumable_jobs.review.variables`), so a helper in ``dags/utils/`` that a task calls
counts. A ``Variable.set`` that runs in a task whose key names per-run state (see
:mod:`resumable_jobs.review.keys`) is reported. A read of such a key (a call, or a Jinja
``{{ var.value.key }}``) is reported only when some task writes that key, or when the key is
unambiguous (``cursor``, ``checkpoint``): a read-only job id can be configuration, such as the
id of a Databricks job definition. A key whose name says nothing is reported when one task of a
DAG writes it and another task of that DAG reads it (a per-run marker passed through a global;
a key built from configuration the reviewer cannot resolve counts when both calls in the file
write the same expression, and a key two task functions build from one f-string around a
parameter each counts when the DAG's calls fill it alike: ``pull(region)`` writing
``f"pull_done_{region}"``, ``check(region)`` reading it), or when a task writes it with a value
computed from what it read (a value moved on from run to run), in the DAG file whose task moves
it on: another DAG file, or another DAG of the same file, that only reads it reads a value that
DAG publishes. A key naming
a time that a task writes and that only tasks the DAG runs after it read (``quota_reset_time``
set by ``call_api()``, read by ``wait_for_quota()`` wired after it) is handed on within the run
and reported here; read by anything else it is the DAG's position in time (RJ004). A key built
only from the task instance's identity (``f"{ti.task_id}_{ds}"``: the task and DAG ids, the run's
id or date, the map index) that one task both reads and writes under the same expression, in its
code or through helpers it runs, is that task instance's own state (a retry checkpoint): the
scope ``task_state_store`` already has.

An offset or cursor that one task reads and moves on from run to run, and that nothing else
reads back, is that task's own progress and reported here, whatever its key says, in the DAG
file whose task moves it on and in the helpers that file's tasks run; a write in another DAG file
none of whose tasks read it (a backfill setting that position) is held back as uncertain, naming
the file whose task moves it on, unless a clause above reports it on its own evidence (a key
naming a cursor, a marker one task of its file writes and another reads). When another
task, DAG file or a module at parse time reads it back, it is the position of shared data: a
watermark (RJ004). A read of an unambiguous key (``cursor``, ``checkpoint``) that nothing in the
tree writes is reported only in code; in a template (``{{ var.value.cursor }}``) it is held back
as uncertain (``--include-uncertain``): templated fields read configuration set by hand.

What it does not do: report Variables read as configuration (table names, cluster ids, a key
whose last word names a place or setting, ``checkpoint_bucket``), feature switches (a key
naming one, ``enable_x``, read or turned off by a task, or a read compared with a yes/no
literal, unless a task of the same DAG writes the key for that read: a marker, reported with
its writes), an offset a task writes that the DAG reads when parsed or another DAG file reads
(RJ004: the position others plan from), Variable calls at module
level (parse time), watermarks and dates a task advances from run to run (RJ004), or the
Variable calls of a reconnect-or-submit ``if`` already reported as RJ003.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.keys import (
    KeyKind,
    classify,
    is_strong,
    names_a_date,
    names_a_switch,
    names_an_offset,
    names_configuration,
    names_progress,
)
from resumable_jobs.review.rules.base import Rule, no_local_findings, record_finding
from resumable_jobs.review.variable_usage import ProjectFacts
from resumable_jobs.review.variables import VariableRecord

__all__ = ["RULE"]

_STATE_KINDS = (KeyKind.JOB_ID, KeyKind.CURSOR)


def check_project(facts: ProjectFacts) -> Iterator[Finding]:
    usage = facts.usage()
    for record in usage.records:
        if (record.function, record.key) in facts.reconnects or record.silenced(RULE.code):
            continue
        if record.origin == "parse":
            continue  # evidence about how a key is used, not a use in a task
        if names_a_switch(record.key):
            continue  # a feature switch, read or turned by a task: configuration, what Variables are for
        if record.switch and not (record.kind is None and usage.passed_between_tasks(record)):
            # compared with a yes/no literal: a switch set by hand, unless a task of the same DAG
            # writes the key for this read (a marker handed between tasks: its writes are reported)
            continue
        uncertain, own = None, False
        progress = own_progress(usage, record.key)
        # a task of another DAG file moves the key on and no task of this one reads it
        elsewhere = progress and not usage.moved_on_in_file_of(record)
        if record.kind in _STATE_KINDS:
            if progress and not elsewhere:
                what = _OWN_PROGRESS
            elif record.op == "get" and not usage.written(record.key):
                # read only: nothing in the tree writes it, so it may be configuration set by hand
                if not is_strong(record.key) or names_configuration(record.key):
                    continue
                uncertain = _READ_ONLY if record.origin == "jinja" else None
                what = record.kind.value
            elif usage.advanced_across_runs(record.key) or usage.position_planned_from(record.key):
                if not elsewhere:
                    continue  # an offset others read back: a watermark, RJ004
                what, uncertain = _moved_on_elsewhere(usage, record)
            else:
                what = record.kind.value
        elif record.kind is None and usage.kept_by_its_task(record):
            own = True
            what = (
                f"the task's own state, under a key of the task instance's identity ({record.identity}), "
                "read and written by that task"
            )
        elif record.kind is None and progress and not elsewhere:
            what = _OWN_PROGRESS
        elif record.kind is None and elsewhere:
            if usage.passed_between_tasks(record):
                what = "a marker one task writes and another reads"
            else:
                what, uncertain = _moved_on_elsewhere(usage, record)
        elif record.kind is None and (
            usage.date_kept_across_runs(record.key)
            or usage.advanced_across_runs(record.key)
            or usage.position_planned_from(record.key)
            or usage.abbreviated_watermark(record.key)
        ):
            continue  # a date, an id position others read back, a "wm" moved on: a watermark, RJ004
        elif record.kind is None and names_progress(record.key) and usage.read_and_written_by_one_task(record.key):
            what = "state a task reads and writes back"
        elif record.kind is None and usage.passed_between_tasks(record):
            what = "a marker one task writes and another reads"
        elif record.kind is None and usage.advanced_in_dag_of(record):
            what = "a value a task moves on from run to run"
        else:
            continue
        finding = record_finding(record, RULE.code, RULE.severity, _message(record, what), _suggestion(record, own))
        yield finding if uncertain is None else finding.as_uncertain(uncertain)


#: why a template read of an unambiguous key (``cursor``, ``checkpoint``) that nothing writes is
#: held back: a templated field is where configuration is read
_READ_ONLY = (
    "a template read of a key nothing in the reviewed tree writes: a templated field usually "
    "reads configuration, set by hand (the UI, the CLI, a deployment script)"
)


_OWN_PROGRESS = "the task's own progress, read and moved on by that task"


def _moved_on_elsewhere(usage, record: VariableRecord) -> tuple[str, str]:
    """What is known of a write of an own-progress key in a DAG file none of whose tasks read
    it (a backfill copy setting the position another DAG's task moves on), and why it is held
    back: it is not this file's task's progress, and whether it races the other DAG's runs is
    not shown."""
    files = ", ".join(sorted(os.path.basename(f) for f in usage.moving_files(record.key)))
    return (
        f"a position a task of {files} reads and moves on",
        (
            f"written here; a task of {files} reads it and moves it on: not the progress of a task of "
            "this file, which may set that position for the other DAG (a backfill, a reset)"
        ),
    )


def own_progress(usage, key: str | None) -> bool:
    """An offset or cursor that one task reads and moves on, and that nothing else reads back:
    the task's own progress (RJ001), decided by use and not by the key's words. Others reading
    it back make it the position of the data they share: a watermark (RJ004). A key naming a
    date or a time stays a watermark."""
    if not key:
        return False
    known = usage.__dict__.setdefault("_own_progress", {})
    found = known.get(key)
    if found is None:
        kind = classify(key)
        found = known[key] = (
            not names_a_date(key)
            and kind is not KeyKind.WATERMARK
            and (names_an_offset(key) or kind is KeyKind.CURSOR)
            and usage.read_and_written_by_one_task(key)
            and not usage.read_beyond_its_writers(key)
        )
    return found


def _message(record: VariableRecord, what: str) -> str:
    verb = "stores" if record.op == "set" else "reads"
    call = record.template or f"Variable.{record.op}({record.shown_key})"
    via = f" in {record.via}" if record.via else ""
    return (
        f"{call}{via} {verb} per-run state ({what}) in a "
        "global Variable: every run, mapped index and retry shares that one value, so a "
        "concurrent run can overwrite it and a retry can resume from another run's state"
    )


def _suggestion(record: VariableRecord, own_identity: bool = False) -> str:
    shown = after = record.shown_key
    extra, retention = "", ""
    if record.kind is KeyKind.JOB_ID:
        retention = ", retention=NEVER_EXPIRE"  # a job id must outlive the job
        extra = (
            "\nFor an operator that submits an external job, ResumableJobMixin does this for you"
            "\n(it persists the id before polling and reconnects on retry)."
        )
    elif own_identity:  # a key of the task instance's identity: the store's own scope
        extra = "\nThe store keeps one value per task instance, so the key needs no task id, run or date."
        after = '"checkpoint"'
    elif record.kind is None:
        extra = "\nA value one task hands to another in the same run belongs in XCom (return it)."
    return (
        "Keep it in task_state_store: scoped to this task instance, kept across its retries."
        f"{extra}\n"
        "Before:\n"
        f"    value = Variable.get({shown}, default_var=None)\n"
        f"    Variable.set({shown}, new_value)\n"
        "After:\n"
        '    store = context["task_state_store"]\n'
        f"    value = store.get({after})\n"
        f"    store.set({after}, new_value{retention})"
    )


RULE = Rule(
    code="RJ001",
    name="variable-as-run-state",
    severity=ERROR,
    summary="Variable used as per-run state (cursor, offset, job id) inside a task; use task_state_store.",
    check=no_local_findings,
    check_project=check_project,
)
