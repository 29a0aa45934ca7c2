"""RJ009: a durable operator's request carries a value that changes on every try.

Why: a durable operator reconnects on retry only to a job submitted for the same request: it
keeps a fingerprint of the rendered request and submits anew when the fingerprint differs
(otherwise a mapped task whose inputs shift could reconnect to another item's job). A request
that renders ``{{ ti.try_number }}``, the current time (``{{ macros.datetime.now() }}``) or a
fresh ``uuid`` is different on every try, so no retry ever reconnects: each one submits a
duplicate job, which is the failure durability exists to prevent. The same holds for a value
computed when the DAG file is parsed (``run_name=f"etl-{uuid.uuid4()}"``): every try parses
the file again.

How: for calls of durable operators (this project's providers, upstream's
``DatabricksSubmitRunOperator``, and classes built on ``ResumableJobMixin``, here or in another
module of the tree) that are not ``durable=False``, every argument except the scheduling ones is
searched for Jinja expressions naming ``try_number``, ``ti.start_date``, ``now()``,
``utcnow()``, ``uuid`` or ``random``, and for direct calls of ``uuid.uuid4()``,
``datetime.now()``, ``time.time()``, ``pendulum.now()`` and friends. The finding is on the
argument. A bare name handed to an argument (``json=payload``, the common way to build a
Databricks request) is read through the one value the name is bound to: in the function that
creates the task (a ``@dag`` function), else at module level, including inside ``with DAG(...)``
blocks; names inside that value are followed the same way, two levels deep.

What it does not do: flag run-scoped values (``{{ ds }}``, ``{{ run_id }}``, ``{{ ts }}`` of
the logical date): they are the same on every try of a run, which is what reconnecting needs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import ModuleIndex
from resumable_jobs.review.job_requests import per_try_value
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.taskgraph import task_graphs

__all__ = ["RULE"]

#: upstream operators that are durable by default (spec section 5 names this one)
_UPSTREAM_DURABLE = frozenset({"DatabricksSubmitRunOperator"})
_SCHEDULING = frozenset(
    {"task_id", "retries", "retry_delay", "trigger_rule", "pool", "queue", "doc_md", "execution_timeout", "dag"}
)


def check(index: ModuleIndex) -> Iterator[Finding]:
    text = index.source_text
    if not ("resumable_jobs" in text or "Databricks" in text or index.classes or index.imports_local_code):
        return  # no durable operator can be in this file
    if not _may_vary(text):
        return  # no per-try template and no call that differs per parse can be in this file
    for graph in task_graphs(index, min_tasks=1):
        for node in graph.nodes:
            if node.function is not None or not _is_durable(index, node.operator):
                continue
            durable = node.setting("durable")
            if isinstance(durable, ast.Constant) and durable.value is False:
                continue
            for call in node.calls:
                for kw in call.keywords:
                    if kw.arg in _SCHEDULING or kw.arg is None:
                        continue
                    what = per_try_value(index, kw.value, call)
                    if what is not None:
                        yield make_finding(
                            index,
                            kw,
                            RULE.code,
                            RULE.severity,
                            f"{kw.arg} renders {what}, which differs on every try: the durable operator's "
                            "request fingerprint changes, so a retry never reconnects to the job it "
                            "submitted and submits a duplicate",
                            _suggestion(kw.arg),
                        )


def _may_vary(text: str) -> bool:
    """Whether the source text holds a word a finding needs: a per-try Jinja expression
    (:data:`~resumable_jobs.review.job_requests.PER_TRY`) or the name of a call in :data:`~resumable_jobs.review.job_requests.PER_PARSE_CALLS`.

    Substring tests, not a regular expression: this runs on every file, and ``in`` is many
    times faster than a search with alternatives. ``datetime(`` (in every DAG file) is not a
    call of ``time()``, hence the counts.
    """
    if any(word in text for word in _VARYING_WORDS):
        return True
    return text.count("time(") > text.count("datetime(") or "time_ns" in text or "from time import" in text


_VARYING_WORDS = ("try_number", "ti.start_date", "instance.start_date", "now", "uuid", "random", "today")


def _is_durable(index: ModuleIndex, name: str | None) -> bool:
    """A durable operator: ours, an upstream one that is durable on 3.3, a ``ResumableJobMixin``
    subclass, or an in-house class built on one of those."""
    return index.along_bases(name, lambda cls: True if _durable_class(cls) else None) is not None


def _durable_class(name: str | None) -> bool:
    if not name:
        return False
    last = name.rsplit(".", 1)[-1]
    if name.startswith("resumable_jobs.providers."):
        return True
    if last in _UPSTREAM_DURABLE and name.startswith("airflow.providers."):
        return True
    return last == "ResumableJobMixin" and name.startswith(("airflow.", "resumable_jobs"))


def _suggestion(argument: str) -> str:
    return (
        "Build the request from values that stay the same for every try of the run: the run id,\n"
        "the logical date, the map index. The operator already makes each submission unique.\n"
        "Before:\n"
        f'    {argument}="etl-{{{{ ti.try_number }}}}-{{{{ macros.datetime.now() }}}}"\n'
        "After:\n"
        f'    {argument}="etl-{{{{ run_id }}}}-{{{{ ti.map_index }}}}"'
    )


RULE = Rule(
    code="RJ009",
    name="per-try-request",
    severity=ERROR,
    summary="A durable operator's request renders a per-try value (try_number, now(), uuid): no retry can reconnect.",
    check=check,
)
