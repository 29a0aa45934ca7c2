"""Which Airflow is installed, and whether it can give crash recovery.

Why a module of its own: the core mixin, the shim, the CLI's ``doctor`` and the tests all ask the
same question ("is ``task_state_store`` there?"), and they must agree. The answer comes from the
installed distribution's metadata, so asking it does not import Airflow.
"""

from __future__ import annotations

import functools
import re
from importlib import metadata

#: The first Airflow release with ``task_state_store`` and ``airflow.sdk.ResumableJobMixin`` (AIP-103).
DURABLE_MIN_VERSION = (3, 3)


def _release_tuple(version: str) -> tuple[int, ...]:
    """``"3.3.0rc1"`` -> ``(3, 3, 0)``: the leading numeric release segment only."""
    match = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(part) for part in match.group(0).split(".")) if match else ()


@functools.cache
def installed_airflow_version() -> str:
    """Return the installed Airflow version string, e.g. ``"3.3.2"``.

    The Task SDK is what runs our operators, but its version numbers differ from Airflow's; the
    ``apache-airflow-core`` (or ``apache-airflow``) distribution carries the number users know.
    """
    for dist in ("apache-airflow-core", "apache-airflow"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    raise RuntimeError(
        "Apache Airflow is not installed: airflow-provider-resumable-jobs needs Airflow 3.0 or later."
    )


@functools.cache
def durable_supported() -> bool:
    """True when the installed Airflow has ``task_state_store`` (3.3 or later)."""
    return _release_tuple(installed_airflow_version())[:2] >= DURABLE_MIN_VERSION
