"""Plain text: one ``path:line:col: CODE [severity] message`` line per finding, then the fix.

The first line of each finding uses the ``path:line:col:`` prefix that editors and terminals
turn into a link. The suggestion follows, indented, so it reads as part of the finding.
"""

from __future__ import annotations

from resumable_jobs.review.findings import SEVERITIES, ReviewResult

__all__ = ["render"]


def render(result: ReviewResult) -> str:
    out: list[str] = []
    for finding in result.findings:
        out.append(
            f"{finding.path}:{finding.line}:{finding.column}: {finding.code} [{finding.severity}] {finding.message}"
        )
        if finding.uncertain is not None:
            out.append(f"    uncertain: {finding.uncertain}")
        out.extend(f"    {line}" for line in finding.suggestion.splitlines())
        out.append("")
    for error in result.errors:
        out.append(f"{error.path}: error: {error.message}")
    out.append(_summary(result))
    return "\n".join(out) + "\n"


def _summary(result: ReviewResult) -> str:
    files = f"{result.files_reviewed} file{'s' if result.files_reviewed != 1 else ''}"
    if not result.findings and not result.errors:
        return f"No findings in {files}."
    counts = {s: sum(1 for f in result.findings if f.severity == s) for s in SEVERITIES}
    parts = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    n = len(result.findings)
    summary = f"{n} finding{'s' if n != 1 else ''}" + (f" ({parts})" if parts else "") + f" in {files}"
    if result.errors:
        e = len(result.errors)
        summary += f"; {e} path{'s' if e != 1 else ''} could not be reviewed"
    return summary + "."
