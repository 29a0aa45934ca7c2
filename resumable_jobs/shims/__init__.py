"""Airflow version detection and the pre-3.3 stand-in mixin.

``resumable_jobs.ResumableJobMixin`` resolves to the core mixin on Airflow 3.3 and later and to
:class:`resumable_jobs.shims.pre33.ResumableJobMixin` below it; both keep one contract, so an
operator written once runs on both.
"""

from __future__ import annotations

from resumable_jobs.shims.airflow_version import (
    DURABLE_MIN_VERSION,
    durable_supported,
    installed_airflow_version,
)

__all__ = ["DURABLE_MIN_VERSION", "durable_supported", "installed_airflow_version"]
