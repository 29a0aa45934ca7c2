"""Output formats for a review: ``text`` for people, ``json`` for scripts, ``sarif`` for GitHub.

Each format is a function ``render(result) -> str``; all of them render the same findings and
file errors, so switching format never changes what is reported.
"""

from __future__ import annotations

from collections.abc import Callable

from resumable_jobs.review.findings import ReviewResult
from resumable_jobs.review.formats import json_format, sarif, text

__all__ = ["FORMATS"]

FORMATS: dict[str, Callable[[ReviewResult], str]] = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
}
