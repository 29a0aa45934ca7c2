"""What the reviewer reports: findings on code, and errors on files it could not read.

Findings are plain frozen records so that every output format (text, JSON, SARIF) renders the
same facts and tests can compare them exactly. Positions are 1-based for both line and column,
counted in characters (not bytes), because that is what editors, GitHub and SARIF show.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ADVICE", "ERROR", "SEVERITIES", "WARNING", "FileError", "Finding", "ReviewResult"]

#: The change prevents a real failure (a duplicate job, a lost id, a value the store rejects).
ERROR = "error"
#: Likely wrong, but depends on something the reviewer cannot see in the file.
WARNING = "warning"
#: A design trade-off worth a conversation, never a defect on its own (spec section 6).
ADVICE = "advice"

SEVERITIES = (ERROR, WARNING, ADVICE)


@dataclass(frozen=True, order=True)
class Finding:
    """One problem at one place in one file.

    Ordering is by (path, line, column, code) so reports are stable from run to run.
    """

    path: str
    line: int
    column: int
    code: str
    severity: str = field(compare=False)
    message: str = field(compare=False)
    suggestion: str = field(compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "suggestion": self.suggestion,
        }


@dataclass(frozen=True, order=True)
class FileError:
    """A file the reviewer could not review (syntax error, undecodable bytes, unreadable)."""

    path: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


@dataclass
class ReviewResult:
    """Everything one review run found, in a stable order."""

    findings: list[Finding] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    files_reviewed: int = 0

    def sort(self) -> None:
        self.findings.sort()
        self.errors.sort()
