"""Which files a review covers, from the paths given on the command line.

Why: users point the reviewer at a DAGs folder, a few files (pre-commit passes changed files),
or both. Folders are searched for ``*.py`` files; hidden folders, ``__pycache__`` and virtual
environments are skipped because they are never DAG code and can be large.

What it does not do: read ``.airflowignore``; files named explicitly are always reviewed, even
without a ``.py`` suffix.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

__all__ = ["MissingPathError", "python_files"]

_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env"})


class MissingPathError(Exception):
    """A path given by the user does not exist (a usage error, exit code 2)."""


def python_files(paths: Iterable[str]) -> list[str]:
    """Every file to review, each once, in a stable order. Raises for a missing path."""
    found: dict[str, None] = {}
    for path in paths:
        if os.path.isdir(path):
            for file in _walk(path):
                found.setdefault(file, None)
        elif os.path.exists(path):
            found.setdefault(path, None)
        else:
            raise MissingPathError(path)
    return list(found)


def _walk(folder: str) -> Iterator[str]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(root, name)
