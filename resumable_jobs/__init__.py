"""Crash-safe external job submission for Apache Airflow.

``from resumable_jobs import ResumableJobMixin`` gives the durable mixin on Airflow 3.3 and later
(a subclass of ``airflow.sdk.ResumableJobMixin``) and the always-resubmit shim below 3.3. The
choice is made on first attribute access, so ``import resumable_jobs`` alone (the CLI, the
provider entry point) stays cheap and imports no provider package or cloud SDK.
"""

from __future__ import annotations

from resumable_jobs._version import __version__

#: ``typing.TYPE_CHECKING`` without importing typing (5 ms of every CLI start): type checkers
#: take a module-level ``TYPE_CHECKING = False`` as the same flag.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from resumable_jobs.mixin.core import ResumableJobMixin
    from resumable_jobs.mixin.errors import ExternalJobFailed, JobNotFoundError

__all__ = ["ExternalJobFailed", "JobNotFoundError", "ResumableJobMixin", "__version__"]


def __getattr__(name: str) -> object:
    if name == "ResumableJobMixin":
        from resumable_jobs.shims.airflow_version import durable_supported

        if durable_supported():
            from resumable_jobs.mixin.core import ResumableJobMixin as mixin
        else:
            from resumable_jobs.shims.pre33 import ResumableJobMixin as mixin
        globals()[name] = mixin
        return mixin
    if name in ("ExternalJobFailed", "JobNotFoundError"):
        from resumable_jobs.mixin import errors

        return getattr(errors, name)
    raise AttributeError(f"module 'resumable_jobs' has no attribute {name!r}")
