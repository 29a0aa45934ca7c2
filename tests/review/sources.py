"""What the reviewer's pattern tests share: review a source string, write a small tree, and name
findings by relative path, so each test module holds only its cases."""

from __future__ import annotations

import os
import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_source

__all__ = ["found", "relative", "write"]


def found(source: str, *codes: str) -> list[tuple[int, str]]:
    """(line, code) of each finding in ``source`` (dedented), by the rules ``codes`` (default all)."""
    rules = [RULES_BY_CODE[c] for c in codes] if codes else list(RULES_BY_CODE.values())
    return [(f.line, f.code) for f in review_source(textwrap.dedent(source), "dag.py", rules)]


def write(root, files: dict[str, str]) -> list[str]:
    """Write ``{relative path: source}`` under ``root`` (sources dedented); the paths written."""
    paths = []
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        paths.append(str(path))
    return paths


def relative(root, result) -> list[tuple[str, int, str]]:
    """(path relative to ``root``, line, code) of each finding of a review result."""
    return [(os.path.relpath(f.path, root), f.line, f.code) for f in result.findings]
