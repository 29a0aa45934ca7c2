"""A static reviewer for the DAG anti-patterns of the state store spec (sections 2, 5, 6, 8).

Why: no existing linter catches these patterns (a Variable used as a job checkpoint, a job id
kept in XCom for the retry, a hand-written reconnect, a fire-and-forget submit plus sensor,
a misused ``ResumableJobMixin``, values the state store rejects); today they are found only
when a person reviews the DAG.

How: each file is parsed with :mod:`ast` and never imported or executed, so the reviewer runs
without Airflow and without the DAG's dependencies. Rules live in
:mod:`resumable_jobs.review.rules`, one module per rule code.

What it does not do: decide architecture for you. RJ005 is advice that names a trade-off, and
every rule prefers silence to a finding a reviewer would reject.
"""

from __future__ import annotations

from resumable_jobs.review.engine import review_file, review_files, review_source
from resumable_jobs.review.findings import ADVICE, ERROR, WARNING, FileError, Finding, ReviewResult
from resumable_jobs.review.rules import ALL_RULES, RULES_BY_CODE, Rule

__all__ = [
    "ADVICE",
    "ALL_RULES",
    "ERROR",
    "RULES_BY_CODE",
    "WARNING",
    "FileError",
    "Finding",
    "ReviewResult",
    "Rule",
    "review_file",
    "review_files",
    "review_source",
]
