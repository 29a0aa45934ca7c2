"""RJ002 positives: a job id kept in XCom so the task's retry can find it."""

from airflow.sdk import BaseOperator, dag, get_current_context, task

JOB_KEY = "job_id"


def submit_job():
    return "job-1"


def wait_for(job_id):
    return job_id


@task(retries=2)
def submit_and_wait(**context):
    ti = context["ti"]
    job_id = ti.xcom_pull(key="job_id")
    if not job_id:
        job_id = submit_job()
        ti.xcom_push(key="job_id", value=job_id)
    return wait_for(job_id)


@task(retries=2)
def with_kwargs(**kwargs):
    run_id = kwargs["ti"].xcom_pull(task_ids="with_kwargs", key="databricks_run_id")
    if run_id is None:
        kwargs["ti"].xcom_push("databricks_run_id", submit_job())


@task(retries=2)
def current_context_form():
    context = get_current_context()
    existing = context["task_instance"].xcom_pull(key=JOB_KEY)
    if existing:
        return wait_for(existing)
    context["task_instance"].xcom_push(key=JOB_KEY, value=submit_job())


class BatchLikeOperator(BaseOperator):
    def execute(self, context):
        job_id = self._existing(context)
        if job_id is None:
            job_id = submit_job()
            context["ti"].xcom_push(key="batch_job_id", value=job_id)
        return wait_for(job_id)

    def _existing(self, context):
        return context["ti"].xcom_pull(task_ids=self.task_id, key="batch_job_id")


@dag(schedule=None)
def xcom_state():
    submit_and_wait()
    with_kwargs()
    current_context_form()
    BatchLikeOperator(task_id="batch")


xcom_state()
