"""RJ006: ``deferrable=True`` together with ``wait_for_termination=False``.

Why: an operator only defers while it waits for the job. With the wait switched off it returns
as soon as the job is accepted, so ``deferrable=True`` does nothing and the task is the
fire-and-forget submit it was probably meant to replace (spec section 6). The fix is to make it
wait, which then frees the worker while the Triggerer polls.

How: any call that passes ``deferrable=True`` and ``wait_for_termination=False`` or
``wait_for_completion=False`` as literals. The finding is on the wait keyword, the one to
change.

What it does not do: follow values through variables or ``default_args``; a flag that is not a
literal is left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import ModuleIndex, keyword
from resumable_jobs.review.rules.base import Rule, make_finding

__all__ = ["RULE", "WAIT_KEYWORDS"]

WAIT_KEYWORDS = ("wait_for_termination", "wait_for_completion")


def _literal(kw: ast.keyword | None, value: bool) -> bool:
    return kw is not None and isinstance(kw.value, ast.Constant) and kw.value.value is value


def check(index: ModuleIndex) -> Iterator[Finding]:
    for site in index.calls:
        call = site.node
        if not _literal(keyword(call, "deferrable"), True):
            continue
        for name in WAIT_KEYWORDS:
            wait = keyword(call, name)
            if _literal(wait, False):
                yield make_finding(
                    index,
                    wait,
                    RULE.code,
                    RULE.severity,
                    f"deferrable=True has no effect with {name}=False: the task returns as soon "
                    "as the job is accepted, so nothing is deferred and the task's outcome says "
                    "nothing about the job's",
                    _suggestion(name),
                )


def _suggestion(name: str) -> str:
    return (
        "Let the task wait; with deferrable=True the Triggerer does the waiting and the worker\n"
        "slot is freed.\n"
        "Before:\n"
        f"    deferrable=True, {name}=False,\n"
        "After:\n"
        f"    deferrable=True, {name}=True,  # deferrable alone does not imply waiting"
    )


RULE = Rule(
    code="RJ006",
    name="deferrable-without-wait",
    severity=ERROR,
    summary="deferrable=True with wait_for_termination=False (or wait_for_completion=False): nothing is deferred.",
    check=check,
)
