"""``python -m resumable_jobs.review PATH...``: the reviewer without the package's CLI wrapper."""

from __future__ import annotations

import argparse
import sys

from resumable_jobs.help_format import HelpFormatter
from resumable_jobs.review.command import add_arguments, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="resumable-jobs review",
        description="Review DAG files for crash-safety anti-patterns.",
        formatter_class=HelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
