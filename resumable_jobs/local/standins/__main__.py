"""``python -m resumable_jobs.local.standins KIND --port-file PATH [--hold-seconds N]``.

Runs one stand-in (``databricks``, ``bigquery``, ``snowflake`` or ``dbt_cloud``) in the foreground; see
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
    parser.add_argument("--tls-cert", type=Path, default=None, help="serve https with this certificate (PEM)")
    parser.add_argument("--tls-key", type=Path, default=None, help="the certificate's key (PEM)")
    args = parser.parse_args(argv)
    tls = None
    if args.tls_cert is not None:
        from resumable_jobs.local.tls import LocalCertificate

        tls = LocalCertificate(args.tls_cert, args.tls_key).server_context()
    serve(args.kind, port_file=args.port_file, hold_seconds=args.hold_seconds, tls=tls)


if __name__ == "__main__":
    main()
