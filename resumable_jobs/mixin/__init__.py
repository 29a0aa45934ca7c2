"""The core of the package: the resumable-job contract and its durable implementation.

``resumable_jobs.ResumableJobMixin`` picks the implementation for the installed Airflow; import
from here only what is version-independent (errors, tokens, the decision table).
"""

from __future__ import annotations

from resumable_jobs.mixin.contract import EVENT_ERROR, EVENT_SUCCESS, ResumableJobContract
from resumable_jobs.mixin.errors import ExternalJobFailed, JobNotFoundError

__all__ = ["EVENT_ERROR", "EVENT_SUCCESS", "ExternalJobFailed", "JobNotFoundError", "ResumableJobContract"]
