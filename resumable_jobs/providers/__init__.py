"""Crash-safe operators, one small package per provider family.

``databricks`` (DatabricksSubmitRunOperator, DatabricksRunNowOperator), ``amazon``
(BatchOperator), ``google`` (BigQueryInsertJobOperator), ``spark`` (SparkSubmitOperator). Each
is drop-in for the upstream operator of the same name and imports its upstream hook, trigger
and cloud client only inside methods, so a DAG file that imports it stays cheap to parse.
"""
