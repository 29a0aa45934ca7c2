"""``resumable-jobs``: the package's command line.

Subcommands are registered here and implemented in their own modules, imported only when their
subcommand runs, so ``resumable-jobs --version`` answers without importing Airflow.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from resumable_jobs._version import __version__
from resumable_jobs.help_format import HelpFormatter

#: subcommand -> (module providing ``add_arguments(parser)`` and ``run(args) -> int``, help line)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "review": ("resumable_jobs.review.command", "review DAG files for crash-safety anti-patterns"),
    "doctor": ("resumable_jobs.doctor", "check the installed Airflow and settings for crash safety"),
    "demo": ("resumable_jobs.demo.command", "watch a retry reconnect to a Spark driver after a worker crash"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="resumable-jobs",
        description="Crash-safe external job submission for Apache Airflow.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_line) in SUBCOMMANDS.items():
        # add_help=False: `resumable-jobs review --help` must reach the subcommand's own parser,
        # which knows its arguments (declared by its module, imported only when it runs).
        sub_parser = sub.add_parser(name, help=help_line, add_help=False, formatter_class=HelpFormatter)
        sub_parser.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # Parse the subcommand first, then let its module declare its own arguments.
    known, _ = parser.parse_known_args(argv)
    if known.command is None:
        parser.print_help()
        return 2
    module = importlib.import_module(known._module)
    sub_parser = argparse.ArgumentParser(
        prog=f"resumable-jobs {known.command}",
        description=SUBCOMMANDS[known.command][1],
        formatter_class=HelpFormatter,
    )
    module.add_arguments(sub_parser)
    args = sub_parser.parse_args(argv[argv.index(known.command) + 1 :])
    return int(module.run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
