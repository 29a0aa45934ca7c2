"""What both demos share: the version check, and the per-try records their DAGs write.

Each demo DAG writes a small JSON file per try (its process id, the job it follows) into a state
directory; the demo reads them to know which process to SIGKILL and what the retry did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO


def require_durable_airflow(out: TextIO) -> bool:
    """True on Airflow 3.3+; otherwise say why the demo cannot run and return False."""
    from resumable_jobs.shims import durable_supported, installed_airflow_version

    if durable_supported():
        return True
    print(
        f"The demo shows crash recovery, which needs Airflow 3.3 or later (installed: "
        f"{installed_airflow_version()}). Run it with the Airflow 3.3 environment "
        "(scripts/demo creates one).",
        file=out,
    )
    return False


def read_record(state_dir: Path, name: str) -> dict[str, Any] | None:
    """The record ``<name>.json`` a demo DAG wrote, or None while it is not (fully) there."""
    try:
        return json.loads((state_dir / f"{name}.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
