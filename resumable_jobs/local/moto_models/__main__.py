"""``python -m resumable_jobs.local.moto_models [moto_server arguments]``: moto_server with our additions."""

from __future__ import annotations

import sys

from resumable_jobs.local.moto_models import install_all


def main() -> None:
    install_all()
    from moto.server import main as moto_server_main

    moto_server_main(sys.argv[1:])


if __name__ == "__main__":
    main()
