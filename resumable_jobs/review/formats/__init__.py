"""Output formats for a review: ``text`` for people, ``json`` for scripts, ``sarif`` for GitHub.

Each format is a function ``render(result) -> str``; all of them render the same findings and
file errors, so switching format never changes what is reported. A format's module is imported
when the format is first used: a run writes one format, and SARIF's ``pathlib`` alone would add
to every run's start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping

from resumable_jobs.review.findings import ReviewResult

__all__ = ["FORMATS"]

_MODULES = {"text": "text", "json": "json_format", "sarif": "sarif"}


class _Formats(Mapping[str, Callable[[ReviewResult], str]]):
    """Format name -> ``render``, importing the format's module on first use."""

    def __getitem__(self, name: str) -> Callable[[ReviewResult], str]:
        module = _MODULES[name]
        return importlib.import_module(f"{__name__}.{module}").render

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


FORMATS: Mapping[str, Callable[[ReviewResult], str]] = _Formats()
