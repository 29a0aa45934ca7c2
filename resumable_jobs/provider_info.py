"""What ``airflow providers list`` shows for this package (the ``apache_airflow_provider`` entry point)."""

from __future__ import annotations

from resumable_jobs._version import __version__


def get_provider_info() -> dict:
    return {
        "package-name": "airflow-provider-resumable-jobs",
        "name": "Resumable Jobs",
        "description": "Crash-safe submission of Databricks, AWS Batch, BigQuery and Spark jobs: "
        "a retry after a worker crash reconnects to the running job instead of starting a duplicate.",
        "versions": [__version__],
        # Link classes the api-server may need to resolve operator extra links by class path.
        "extra-links": [
            "resumable_jobs.providers.amazon.links.BatchJobDetailsLink",
            "resumable_jobs.providers.amazon.links.BatchJobDefinitionLink",
            "resumable_jobs.providers.amazon.links.BatchJobQueueLink",
            "resumable_jobs.providers.amazon.links.BatchCloudWatchLogsLink",
            "resumable_jobs.providers.databricks.links.DatabricksRunPageLink",
            "resumable_jobs.providers.google.links.BigQueryJobLink",
            "resumable_jobs.providers.google.links.BigQueryTableLink",
            "resumable_jobs.providers.spark.links.SparkMasterUiLink",
        ],
        # Triggers the triggerer loads by class path when a deferred task resumes waiting.
        "triggers": [
            {
                "integration-name": "Apache Spark",
                "python-modules": [
                    "resumable_jobs.providers.spark.trigger",
                    "resumable_jobs.providers.spark.yarn.trigger",
                    "resumable_jobs.providers.spark.kubernetes.trigger",
                ],
            },
        ],
    }
