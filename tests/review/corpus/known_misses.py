"""Cases a human reviewer would flag and the static reviewer does not (yet).

They are kept in the corpus so the measured recall is honest: the expected findings for this
file list them, and the tests pin the reviewer's current (silent) behaviour.
"""

from datetime import datetime, timezone

from airflow.models import Variable
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG, task


def remember_job(job_id):
    # Runs inside the task below, but only through a call: helpers are not followed.
    Variable.set("spark_job_id", job_id)


def now():
    return datetime.now(tz=timezone.utc)


@task(retries=2)
def submit(**context):
    remember_job("job-1")
    # The type of now() is not inferred across functions.
    context["task_state_store"].set("submitted_at", now())


with DAG(dag_id="defaults", schedule=None, default_args={"deferrable": True}):
    # deferrable comes from default_args: RJ006 reads literal keywords only.
    DatabricksSubmitRunOperator(task_id="run", tasks=[], wait_for_termination=False)
    submit()
