"""The help formatter of every ``resumable-jobs`` parser: argparse's, without importing shutil.

Why: argparse makes a formatter each time an argument is declared (to check its metavar), and
its formatter asks ``shutil.get_terminal_size()`` for the width: about 5 ms of every start of
the CLI, mostly the compression modules shutil imports, for help that is rarely printed. The
reviewer runs in pre-commit on every commit, so its start-up is a cost users feel.

How: the width is worked out the way shutil works it out (``$COLUMNS``, then the terminal of
standard output, then 80 columns) and handed to argparse's own formatter, less the two columns
argparse takes off itself; the help reads the same.
"""

from __future__ import annotations

import argparse
import os
import sys

__all__ = ["HelpFormatter"]


class HelpFormatter(argparse.HelpFormatter):
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _terminal_columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # no stdout, not a terminal
            columns = 0
    return columns or 80
