"""Google Cloud: the crash-safe ``BigQueryInsertJobOperator``.

``from resumable_jobs.providers.google import BigQueryInsertJobOperator``. Importing this package
loads neither the upstream Google provider nor any Google client library; they are imported when
a task runs.
"""

from __future__ import annotations

from resumable_jobs.providers.google.bigquery_insert_job import BigQueryInsertJobOperator
from resumable_jobs.providers.google.links import BigQueryJobLink, BigQueryTableLink

__all__ = ["BigQueryInsertJobOperator", "BigQueryJobLink", "BigQueryTableLink"]
