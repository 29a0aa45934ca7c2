"""RJ001 near misses: Variables used as configuration, or outside task bodies."""

from airflow.models import Variable
from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
from airflow.sdk import dag, task

# Parse time, not per-run state (a different problem, not ours).
START_CURSOR = Variable.get("etl_cursor", default_var=0)
Variable.set("bootstrap_job_id", "none")


class Variable2:
    """A user class that happens to have get/set; not Airflow's Variable."""

    @staticmethod
    def get(key, default=None):
        return default

    @staticmethod
    def set(key, value):
        return None


@task
def configured():
    cluster_id = Variable.get("databricks_cluster_id")
    table = Variable.get("target_table", default_var="orders")
    flags = Variable.get("feature_flags", deserialize_json=True)
    # A job *definition* id read as configuration: nothing writes it per run.
    definition = Variable.get("nightly_job_id")
    return cluster_id, table, flags, definition


@task
def publish_model_version(version):
    # Cross-DAG sharing of a value is what Variables are for.
    Variable.set("latest_model_version", version)


@task
def not_airflow_variable():
    Variable2.set("etl_cursor", 10)
    return Variable2.get("job_id")


def helper_never_used_as_callable():
    Variable.set("etl_cursor", 5)


@dag(schedule=None)
def uses_config():
    DatabricksRunNowOperator(task_id="run", job_id=Variable.get("nightly_job_id"))
    configured()
    publish_model_version("v1")
    not_airflow_variable()


uses_config()
