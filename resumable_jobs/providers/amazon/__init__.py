"""AWS: ``from resumable_jobs.providers.amazon import BatchOperator`` (likewise ``GlueJobOperator``,
``RedshiftDataOperator``, ``EmrServerlessStartJobOperator``, ``EmrContainerOperator``).

Importing this package imports neither boto3/botocore nor the Amazon provider: each operator
imports its upstream hook and trigger inside its methods.
"""

from __future__ import annotations

from resumable_jobs.providers.amazon.batch import BatchOperator
from resumable_jobs.providers.amazon.emr_containers import EmrContainerOperator
from resumable_jobs.providers.amazon.emr_serverless import EmrServerlessStartJobOperator
from resumable_jobs.providers.amazon.glue import GlueJobOperator
from resumable_jobs.providers.amazon.redshift_data import RedshiftDataOperator

__all__ = [
    "BatchOperator",
    "EmrContainerOperator",
    "EmrServerlessStartJobOperator",
    "GlueJobOperator",
    "RedshiftDataOperator",
]
