"""Cases the first reviewer missed: two are found now, one is still missed.

Kept in the corpus so the measured recall is honest: ``expected.py`` lists what is found
(the helper's Variable.set, deferrable from default_args) and what is still missed (a value
whose type comes from another function), and the tests pin both.
"""

from datetime import datetime, timezone

from airflow.models import Variable
from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG, task


def remember_job(job_id):
    # Runs inside the task below through a call: the reviewer follows the file's helpers.
    Variable.set("spark_job_id", job_id)


def now():
    return datetime.now(tz=timezone.utc)


@task(retries=2)
def submit(**context):
    remember_job("job-1")
    # The type of now() is not inferred across functions.
    context["task_state_store"].set("submitted_at", now())


with DAG(dag_id="defaults", schedule=None, default_args={"deferrable": True}):
    # deferrable comes from default_args: RJ006 reads them.
    DatabricksSubmitRunOperator(task_id="run", tasks=[], wait_for_termination=False)
    submit()
