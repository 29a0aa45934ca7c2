"""AWS Batch: ``from resumable_jobs.providers.amazon import BatchOperator``.

Importing this package imports neither boto3/botocore nor the Amazon provider: the operator
imports ``BatchClientHook`` and ``BatchJobTrigger`` inside its methods.
"""

from __future__ import annotations

from resumable_jobs.providers.amazon.batch import BatchOperator
from resumable_jobs.providers.amazon.emr_containers import EmrContainerOperator
from resumable_jobs.providers.amazon.emr_serverless import EmrServerlessStartJobOperator

__all__ = [
    "BatchOperator",
    "EmrContainerOperator",
    "EmrServerlessStartJobOperator",
]
