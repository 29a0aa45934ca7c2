"""JSON: ``{"findings": [...], "errors": [...]}`` with 1-based lines and columns.

The keys are part of the command's interface: ``path``, ``line``, ``column``, ``code``,
``severity``, ``message``, ``suggestion`` for findings, ``path`` and ``message`` for errors.
"""

from __future__ import annotations

import json

from resumable_jobs.review.findings import ReviewResult

__all__ = ["render"]


def render(result: ReviewResult) -> str:
    document = {
        "findings": [finding.as_dict() for finding in result.findings],
        "errors": [error.as_dict() for error in result.errors],
    }
    return json.dumps(document, indent=2) + "\n"
