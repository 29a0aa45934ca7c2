"""Which files a review covers, from the paths given on the command line.

Why: users point the reviewer at a DAGs folder, a few files (pre-commit passes changed files),
or both. Folders are searched for ``*.py`` files; hidden folders, ``__pycache__`` and virtual
environments are skipped because they are never DAG code and can be large. Airflow's DAG
parser follows symlinked folders and files, so the walk does too: a symlinked team folder is
reviewed, not skipped without a word.

How: the walk follows symlinks and remembers the real path of every folder on the current
branch; a link back to one of them is a loop, reported by name (``dags/loop -> dags``) and not
entered. A folder reached twice through different links is walked once. Problems with the
paths the user typed (missing, a broken link, a link loop) raise :class:`PathError`, a usage
error; problems found inside a folder (a broken link, a loop, an unreadable folder) are
returned as :class:`WalkProblem` so the review still runs and reports them.

What it does not do: read ``.airflowignore``; files named explicitly are always reviewed, even
without a ``.py`` suffix.
"""

from __future__ import annotations

import os
from collections import namedtuple
from collections.abc import Iterable

__all__ = ["MissingPathError", "PathError", "WalkProblem", "WalkResult", "python_files", "walk"]

_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env"})


class PathError(Exception):
    """A path given by the user cannot be reviewed (a usage error, exit code 2)."""


#: Kept for callers of the first release: a missing path is one kind of path error.
MissingPathError = PathError


class WalkProblem(namedtuple("WalkProblem", "path message")):
    """Something inside a folder the walk could not follow, with the path it concerns."""

    __slots__ = ()


class WalkResult:
    """The files to review, in a stable order, and the problems met on the way."""

    __slots__ = ("files", "problems")

    def __init__(self, files: list[str], problems: list[WalkProblem]) -> None:
        self.files = files
        self.problems = problems


def python_files(paths: Iterable[str]) -> list[str]:
    """Every file to review, each once, in a stable order. Raises PathError for a bad path."""
    return walk(paths).files


def walk(paths: Iterable[str]) -> WalkResult:
    """Files to review and the problems met on the way; raises PathError for a bad argument."""
    found: dict[str, None] = {}
    problems: list[WalkProblem] = []
    seen_dirs: set[str] = set()
    for path in paths:
        _check_argument(path)
        if os.path.isdir(path):
            _walk_folder(path, found, problems, seen_dirs)
        else:
            found.setdefault(path, None)
    return WalkResult(list(found), problems)


def _check_argument(path: str) -> None:
    if os.path.exists(path):
        return
    if os.path.islink(path):
        target = os.readlink(path)
        if _is_link_loop(path):
            raise PathError(f"symlink loop: {path} -> {target} (the link resolves back to itself)")
        raise PathError(f"broken symlink: {path} -> {target} (the target does not exist)")
    raise PathError(f"path does not exist: {path}")


def _is_link_loop(path: str) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == 40  # ELOOP
    return False


def _walk_folder(top: str, found: dict[str, None], problems: list[WalkProblem], seen_dirs: set[str]) -> None:
    """Depth-first, sorted, following links; ``branch`` holds the real paths above a folder."""
    stack: list[tuple[str, frozenset[str]]] = [(top, frozenset())]
    while stack:
        folder, branch = stack.pop()
        real = os.path.realpath(folder)
        if real in branch:
            problems.append(WalkProblem(folder, f"symlink loop: {folder} -> {real}, not followed"))
            continue
        if real in seen_dirs:
            continue  # the same folder through another link: reviewed once
        seen_dirs.add(real)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            problems.append(WalkProblem(folder, f"cannot read folder: {exc.strerror or exc}"))
            continue
        subfolders = []
        for entry in entries:
            path = os.path.join(folder, entry.name)
            try:
                is_dir = entry.is_dir()  # follows links
                is_file = entry.is_file()
            except OSError:
                is_dir = is_file = False
            if entry.is_symlink() and not is_dir and not is_file:
                kind = "symlink loop" if _is_link_loop(path) else "broken symlink"
                problems.append(WalkProblem(path, f"{kind}: {path} -> {os.readlink(path)}, not followed"))
            elif is_dir:
                if not entry.name.startswith(".") and entry.name not in _SKIPPED_DIRS:
                    subfolders.append(path)
            elif is_file and entry.name.endswith(".py"):
                found.setdefault(path, None)
        for sub in reversed(subfolders):
            stack.append((sub, branch | {real}))
