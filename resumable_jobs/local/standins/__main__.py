"""``python -m resumable_jobs.local.standins KIND --port-file PATH [--hold-seconds N]``.

Runs one stand-in (``databricks``, ``bigquery`` or ``snowflake``) in the foreground; see
:mod:`resumable_jobs.local.standins.server`. Started and stopped by
:class:`resumable_jobs.local.standins.process.StandinProcess`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from resumable_jobs.local.standins.server import KINDS, serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m resumable_jobs.local.standins", description=__doc__)
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--port-file", type=Path, required=True, help="where to write the port once listening")
    parser.add_argument(
        "--hold-seconds",
        type=float,
        default=None,
        help="keep new jobs RUNNING this long unless released (default: finish after a few reads)",
    )
    args = parser.parse_args(argv)
    serve(args.kind, port_file=args.port_file, hold_seconds=args.hold_seconds)


if __name__ == "__main__":
    main()
