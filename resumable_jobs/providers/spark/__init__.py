"""Spark standalone: ``SparkSubmitOperator`` submitting through the master's REST server.

``from resumable_jobs.providers.spark import SparkSubmitOperator``. Importing it loads neither the
upstream Spark provider, ``requests``, ``aiohttp`` nor ``pyspark``: the REST client and the
trigger import their HTTP libraries when they are used. The local test cluster lives in
:mod:`resumable_jobs.local.spark_cluster` and is not imported here.
"""

from __future__ import annotations

from resumable_jobs.providers.spark.operator import SparkSubmitOperator

__all__ = ["SparkSubmitOperator"]
