"""What Airflow's providers manager learns about this package (the ``apache_airflow_provider`` entry point).

What it is for: ``airflow providers list``, ``airflow providers get --full``, ``airflow providers
triggers`` and the api-server's extra-link resolution see this package the way they see an
upstream provider: its integrations, the modules holding its operators and its triggers, the
link classes its operators show, and where each integration is documented.

How it works: a plain dict in the shape of Airflow's ``provider_info.schema.json``. Integration
names are the external systems' (as upstream providers name them), so a trigger or operator
entry points at the integration it belongs to; ``how-to-guide`` names this repository's doc for
that operator family.

What it does not do: it declares no hooks and no ``connection-types``. The operators use the
upstream providers' hooks and connection types (``databricks``, ``aws``,
``google_cloud_platform``, ``spark``), which those providers - installed with each extra -
register already; declaring them again would make Airflow warn about a duplicate connection type.
"""

from __future__ import annotations

from resumable_jobs._version import __version__

#: integration name -> (external documentation, our doc, operator modules)
_INTEGRATIONS: dict[str, tuple[str, str, list[str]]] = {
    "Databricks": (
        "https://docs.databricks.com/",
        "/docs/providers/databricks.md",
        [
            "resumable_jobs.providers.databricks.submit_run",
            "resumable_jobs.providers.databricks.run_now",
        ],
    ),
    "AWS Batch": (
        "https://aws.amazon.com/batch/",
        "/docs/providers/amazon.md",
        ["resumable_jobs.providers.amazon.batch"],
    ),
    "AWS Glue": (
        "https://aws.amazon.com/glue/",
        "/docs/providers/amazon.md",
        ["resumable_jobs.providers.amazon.glue"],
    ),
    "Amazon Redshift": (
        "https://aws.amazon.com/redshift/",
        "/docs/providers/amazon.md",
        ["resumable_jobs.providers.amazon.redshift_data"],
    ),
    "Amazon EMR Serverless": (
        "https://aws.amazon.com/emr/serverless/",
        "/docs/providers/amazon.md",
        ["resumable_jobs.providers.amazon.emr_serverless"],
    ),
    "Amazon EMR on EKS": (
        "https://aws.amazon.com/emr/features/eks/",
        "/docs/providers/amazon.md",
        ["resumable_jobs.providers.amazon.emr_containers"],
    ),
    "Google BigQuery": (
        "https://cloud.google.com/bigquery/",
        "/docs/providers/google.md",
        ["resumable_jobs.providers.google.bigquery_insert_job"],
    ),
    "Apache Spark": (
        "https://spark.apache.org/",
        "/docs/providers/spark.md",
        ["resumable_jobs.providers.spark.operator"],
    ),
    "Snowflake": (
        "https://docs.snowflake.com/en/developer-guide/sql-api/index",
        "/docs/providers/snowflake.md",
        ["resumable_jobs.providers.snowflake.sql_api"],
    ),
    "dbt Cloud": (
        "https://docs.getdbt.com/docs/dbt-cloud-apis/overview",
        "/docs/providers/dbt-cloud.md",
        ["resumable_jobs.providers.dbt.operator"],
    ),
    "Kubernetes": (
        "https://kubernetes.io/",
        "/docs/providers/kubernetes.md",
        ["resumable_jobs.providers.kubernetes.pod"],
    ),
}

#: integration name -> modules holding triggers of our own, which the triggerer loads by class path
#: when a deferred task resumes waiting (the other families use upstream's triggers)
_TRIGGERS: dict[str, list[str]] = {
    "Apache Spark": [
        "resumable_jobs.providers.spark.trigger",
        "resumable_jobs.providers.spark.yarn.trigger",
        "resumable_jobs.providers.spark.kubernetes.trigger",
    ],
    "Snowflake": ["resumable_jobs.providers.snowflake.trigger"],
    "Amazon Redshift": ["resumable_jobs.providers.amazon.redshift_trigger"],
    "AWS Batch": ["resumable_jobs.providers.amazon.batch_trigger"],
    "AWS Glue": ["resumable_jobs.providers.amazon.glue_trigger"],
    "Amazon EMR Serverless": ["resumable_jobs.providers.amazon.emr_serverless_trigger"],
    "Amazon EMR on EKS": ["resumable_jobs.providers.amazon.emr_containers_trigger"],
    "dbt Cloud": ["resumable_jobs.providers.dbt.trigger"],
    "Google BigQuery": ["resumable_jobs.providers.google.trigger"],
    "Kubernetes": ["resumable_jobs.providers.kubernetes.trigger"],
}

#: Link classes the api-server may need to resolve operator extra links by class path.
_EXTRA_LINKS = [
    "resumable_jobs.providers.amazon.links.BatchJobDetailsLink",
    "resumable_jobs.providers.amazon.links.BatchJobDefinitionLink",
    "resumable_jobs.providers.amazon.links.BatchJobQueueLink",
    "resumable_jobs.providers.amazon.links.BatchCloudWatchLogsLink",
    "resumable_jobs.providers.amazon.glue_links.GlueJobRunDetailsLink",
    "resumable_jobs.providers.amazon.emr_links.EmrServerlessS3LogsLink",
    "resumable_jobs.providers.amazon.emr_links.EmrServerlessCloudWatchLogsLink",
    "resumable_jobs.providers.amazon.emr_links.EmrServerlessDashboardLink",
    "resumable_jobs.providers.amazon.emr_links.EmrServerlessLogsLink",
    "resumable_jobs.providers.databricks.links.DatabricksRunPageLink",
    "resumable_jobs.providers.google.links.BigQueryJobLink",
    "resumable_jobs.providers.google.links.BigQueryTableLink",
    "resumable_jobs.providers.spark.links.SparkMasterUiLink",
    "resumable_jobs.providers.dbt.links.DbtCloudRunJobOperatorLink",
]


def get_provider_info() -> dict:
    return {
        "package-name": "airflow-provider-resumable-jobs",
        "name": "Resumable Jobs",
        "description": "Crash-safe submission of Databricks, AWS Batch, BigQuery and Spark jobs: "
        "a retry after a worker crash reconnects to the running job instead of starting a duplicate.",
        "versions": [__version__],
        "integrations": [
            {
                "integration-name": name,
                "external-doc-url": external_doc,
                "how-to-guide": [our_doc],
                "tags": ["resumable"],
            }
            for name, (external_doc, our_doc, _) in _INTEGRATIONS.items()
        ],
        "operators": [
            {"integration-name": name, "python-modules": modules}
            for name, (_, _, modules) in _INTEGRATIONS.items()
        ],
        "triggers": [{"integration-name": name, "python-modules": modules} for name, modules in _TRIGGERS.items()],
        "extra-links": list(_EXTRA_LINKS),
    }
