"""SARIF 2.1.0, the format GitHub code scanning uploads (``github/codeql-action/upload-sarif``).

How: one run whose driver lists every rule (id, name, descriptions, default level) and one
result per finding. Severities map to SARIF levels: error -> ``error``, warning -> ``warning``,
advice -> ``note``. Paths are written relative to the current directory with ``%SRCROOT%`` as
their base, which is how code scanning maps them back to the repository when the review runs
from the repository root. Columns count Unicode code points, as declared in the run. Files that
could not be reviewed become tool execution notifications, so the upload still succeeds.
"""

from __future__ import annotations

import json
import os
from pathlib import PurePath

from resumable_jobs._version import __version__
from resumable_jobs.review.findings import ADVICE, ERROR, WARNING, ReviewResult
from resumable_jobs.review.rules import ALL_RULES

__all__ = ["LEVELS", "render"]

LEVELS = {ERROR: "error", WARNING: "warning", ADVICE: "note"}
_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(result: ReviewResult) -> str:
    rule_index = {rule.code: i for i, rule in enumerate(ALL_RULES)}
    run = {
        "tool": {
            "driver": {
                "name": "resumable-jobs review",
                "version": __version__,
                "rules": [_rule(rule) for rule in ALL_RULES],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [
            {
                "ruleId": f.code,
                "ruleIndex": rule_index[f.code],
                "level": LEVELS[f.severity],
                "message": {"text": f"{f.message}\n\n{_uncertain(f)}{f.suggestion}"},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(f.path), "uriBaseId": "%SRCROOT%"},
                            "region": {"startLine": f.line, "startColumn": f.column},
                        }
                    }
                ],
            }
            for f in result.findings
        ],
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {
                        "level": "error",
                        "message": {"text": e.message},
                        "locations": [
                            {"physicalLocation": {"artifactLocation": {"uri": _uri(e.path), "uriBaseId": "%SRCROOT%"}}}
                        ],
                    }
                    for e in result.errors
                ],
            }
        ],
    }
    document = {"$schema": _SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2) + "\n"


def _rule(rule) -> dict[str, object]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": f"See docs/review.md, section {rule.code}, for examples and options."},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
    }


def _uri(path: str) -> str:
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive on Windows
        return PurePath(absolute).as_uri()
    if relative.startswith(".."):
        return PurePath(absolute).as_uri()
    return PurePath(relative).as_posix()


def _uncertain(finding) -> str:
    """The reason a rule held the finding back, for a report made with ``--include-uncertain``."""
    return f"Uncertain: {finding.uncertain}\n\n" if finding.uncertain is not None else ""
