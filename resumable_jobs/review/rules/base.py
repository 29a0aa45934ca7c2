"""The shape every rule has: a stable code, a default severity, a summary, and a check.

Why: output formats, ``--select``/``--ignore`` and the SARIF rule table all need the same facts
about a rule, so each rule module declares them once in a :class:`Rule` and the rest of the
reviewer reads them from there.

What it does not do: rules never see files or options; they receive a :class:`ModuleIndex`
and yield findings, which keeps them testable on a source string.
"""

from __future__ import annotations

import ast
from collections import namedtuple
from collections.abc import Iterable

from resumable_jobs.review.findings import Finding
from resumable_jobs.review.index import ModuleIndex

__all__ = ["Rule", "make_finding", "no_local_findings", "record_finding"]


class Rule(namedtuple("Rule", "code name severity summary check check_project", defaults=(None,))):
    """A reviewer rule.

    ``check(index)`` yields every finding of this rule in one module. ``summary`` is the
    one-line description shown in SARIF and the docs; messages on findings are specific to the
    code. ``check_project(facts)``, for rules decided over the whole reviewed tree (RJ001,
    RJ004), makes the findings from the facts every file reported; ``check`` then returns
    nothing.
    """

    __slots__ = ()


def make_finding(
    index: ModuleIndex,
    node: ast.AST,
    code: str,
    severity: str,
    message: str,
    suggestion: str,
) -> Finding:
    line, column = index.position(node)
    return Finding(index.path, line, column, code, severity, message, suggestion)


def no_local_findings(index: ModuleIndex) -> Iterable[Finding]:
    """``check`` of a rule decided over the whole tree (see ``Rule.check_project``)."""
    return ()


def record_finding(record, code: str, severity: str, message: str, suggestion: str) -> Finding:
    """A finding at a Variable record's position."""
    return Finding(record.path, record.line, record.column, code, severity, message, suggestion)
