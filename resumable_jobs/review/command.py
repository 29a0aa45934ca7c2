"""``resumable-jobs review PATH...``: the command-line face of the reviewer.

``add_arguments`` and ``run`` are the interface ``resumable_jobs.cli`` calls; ``run`` returns
the exit code: 0 when nothing was found, 1 when there are findings or files that could not be
reviewed, 2 for a usage error (a path on the command line that does not exist, is a broken
link or a link loop; an unknown code in ``--select``/``--ignore``). Links and loops met inside
a folder are reported as file errors, and the rest of the folder is reviewed.
"""

from __future__ import annotations

import argparse
import os
import sys

from resumable_jobs.review.engine import review_files
from resumable_jobs.review.findings import FileError
from resumable_jobs.review.formats import FORMATS
from resumable_jobs.review.rules import ALL_RULES, Rule
from resumable_jobs.review.walker import PathError, walk

__all__ = ["UsageError", "add_arguments", "available_cpus", "run", "select_rules"]

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Arguments that make sense to argparse but not to the reviewer."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="DAG files or folders (folders are searched for *.py)")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODES",
        help="only these rules, comma-separated codes or prefixes (e.g. RJ001,RJ005); repeatable",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="skip these rules, comma-separated codes or prefixes; applied after --select; repeatable",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="processes for trees of 200 files or more (default: 0, one per CPU this process may run on)",
    )
    parser.add_argument(
        "--include-uncertain",
        action="store_true",
        help="also report what a rule holds back for want of evidence, each with the reason (off by default)",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")


def run(args: argparse.Namespace) -> int:
    try:
        rules = select_rules(args.select, args.ignore)
        walked = walk(args.paths)
    except (PathError, UsageError) as exc:
        return _usage(str(exc))
    if args.jobs < 0:
        return _usage("--jobs must be 0 or more")
    jobs = args.jobs if args.jobs > 0 else available_cpus()
    result = review_files(walked.files, rules, jobs=jobs, include_uncertain=args.include_uncertain)
    result.errors.extend(FileError(p.path, p.message) for p in walked.problems)
    result.sort()
    report = FORMATS[args.format](result)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(report)
    else:
        sys.stdout.write(report)
    return EXIT_FINDINGS if result.findings or result.errors else EXIT_CLEAN


def available_cpus() -> int:
    """``--jobs 0``: one process per CPU this process may run on.

    Other work on the machine is not subtracted. The processes share the files in small
    batches, each taking the next batch when it is done (see ``engine._analyse_in_processes``),
    so a process that gets little CPU reviews few files and costs only its fork; under the
    kernel's fair scheduling two processes get more of two busy cores than one does. The load
    average was the wrong signal anyway: it lags by a minute and counts the reviewer's own
    previous run.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def select_rules(select: list[str], ignore: list[str]) -> list[Rule]:
    """The rules left after ``--select`` (default: all) and ``--ignore``."""
    selected = _codes(select) if select else None
    ignored = _codes(ignore)
    return [
        rule
        for rule in ALL_RULES
        if (selected is None or any(rule.code.startswith(s) for s in selected))
        and not any(rule.code.startswith(i) for i in ignored)
    ]


def _codes(values: list[str]) -> list[str]:
    codes = [c.strip().upper() for value in values for c in value.split(",") if c.strip()]
    for code in codes:
        if not any(rule.code.startswith(code) for rule in ALL_RULES):
            known = ", ".join(rule.code for rule in ALL_RULES)
            raise UsageError(f"unknown rule code {code!r} (known: {known})")
    return codes


def _usage(message: str) -> int:
    print(f"resumable-jobs review: error: {message}", file=sys.stderr)
    return EXIT_USAGE
