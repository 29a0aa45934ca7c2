"""What the reviewer reports: findings on code, and errors on files it could not read.

Findings are plain frozen records so that every output format (text, JSON, SARIF) renders the
same facts and tests can compare them exactly. Positions are 1-based for both line and column,
counted in characters (not bytes), because that is what editors, GitHub and SARIF show.

The records are named tuples and plain classes, not dataclasses: ``dataclasses`` and the
``inspect`` module it imports cost about 14 ms of every run's start, a tenth of reviewing a
small tree, and a frozen dataclass is slow to make.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = ["ADVICE", "ERROR", "SEVERITIES", "WARNING", "FileError", "Finding", "ReviewResult"]

#: The change prevents a real failure (a duplicate job, a lost id, a value the store rejects).
ERROR = "error"
#: Likely wrong, but depends on something the reviewer cannot see in the file.
WARNING = "warning"
#: A design trade-off worth a conversation, never a defect on its own (spec section 6).
ADVICE = "advice"

SEVERITIES = (ERROR, WARNING, ADVICE)


class Finding(namedtuple("Finding", "path line column code severity message suggestion uncertain", defaults=(None,))):
    """One problem at one place in one file.

    Equality, hashing and ordering use (path, line, column, code) only, so reports are stable
    from run to run and one rule's two findings at one place count once.

    ``uncertain``: None for a finding whose evidence is all in the code; otherwise the reason the
    rule cannot be sure (``nothing in the reviewed tree writes this key: it may be configuration
    set by hand``). Such findings are left out of reports unless ``--include-uncertain`` asks
    for them: a reviewer that is wrong often gets switched off, and a miss costs less.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Finding and self[:4] == other[:4]  # type: ignore[index]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:4])

    def __lt__(self, other: Finding) -> bool:
        return self[:4] < other[:4]

    def __le__(self, other: Finding) -> bool:
        return self[:4] <= other[:4]

    def __gt__(self, other: Finding) -> bool:
        return self[:4] > other[:4]

    def __ge__(self, other: Finding) -> bool:
        return self[:4] >= other[:4]

    def as_dict(self) -> dict[str, object]:
        found = dict(zip(self._fields, self))
        if self.uncertain is None:
            del found["uncertain"]
        return found

    def as_uncertain(self, reason: str) -> Finding:
        """The same finding, held back from the default report for ``reason``."""
        return self._replace(uncertain=reason)


class FileError(namedtuple("FileError", "path message")):
    """A file the reviewer could not review (syntax error, undecodable bytes, unreadable)."""

    __slots__ = ()

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


class ReviewResult:
    """Everything one review run found, in a stable order."""

    def __init__(
        self, findings: list[Finding] | None = None, errors: list[FileError] | None = None, files_reviewed: int = 0
    ) -> None:
        self.findings: list[Finding] = findings if findings is not None else []
        self.errors: list[FileError] = errors if errors is not None else []
        self.files_reviewed = files_reviewed

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not ReviewResult:
            return NotImplemented
        return (self.findings, self.errors, self.files_reviewed) == (
            other.findings,  # type: ignore[attr-defined]
            other.errors,  # type: ignore[attr-defined]
            other.files_reviewed,  # type: ignore[attr-defined]
        )

    def __repr__(self) -> str:
        return f"ReviewResult(findings={self.findings!r}, errors={self.errors!r}, files_reviewed={self.files_reviewed})"

    def sort(self) -> None:
        self.findings.sort()
        self.errors.sort()
