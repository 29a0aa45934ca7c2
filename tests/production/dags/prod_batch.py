"""Production-suite DAGs on AWS Batch in moto_server, where moto allows.

moto without Docker finishes a job inside SubmitJob (see ``resumable_jobs.local.moto_server``),
so no drill can catch a Batch job RUNNING; these DAGs cover the windows that do not need one:
a crash between persisting the id and ``defer()``, a submit-only task killed after submitting,
and a cleared task. Endpoint, queue and definition come from AIRFLOW_CONN_AWS_DEFAULT,
RJ_PROD_BATCH_QUEUE and RJ_PROD_BATCH_DEFINITION.
"""

from __future__ import annotations

import os

from airflow.sdk import DAG, PokeReturnValue, task
from prod_support import RETRY_ARGS, START, DieOnFirstTry

from resumable_jobs.providers.amazon import BatchOperator

JOB = {
    "job_name": "rj-prod",
    "job_queue": os.environ.get("RJ_PROD_BATCH_QUEUE", "rj-local-queue"),
    "job_definition": os.environ.get("RJ_PROD_BATCH_DEFINITION", "rj-local-definition"),
    "aws_conn_id": "aws_default",
    "poll_interval": 1,
}


class BatchDyingBeforeDefer(DieOnFirstTry, BatchOperator):
    crash_point = "before_defer"


class BatchDyingAfterPersist(DieOnFirstTry, BatchOperator):
    crash_point = "after_persist"


with DAG("prod_batch_sync", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    BatchOperator(task_id="job", **JOB)

with DAG("prod_batch_kill_before_defer", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    BatchDyingBeforeDefer(task_id="job", deferrable=True, **JOB)

with DAG("prod_batch_submit_and_sensor", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):
    submit = BatchDyingAfterPersist(task_id="submit", wait_for_termination=False, **JOB)

    @task.sensor(task_id="wait", poke_interval=2, timeout=600, mode="reschedule", retries=2)
    def wait(job_id: str) -> PokeReturnValue:
        from airflow.providers.amazon.aws.hooks.batch_client import BatchClientHook

        job = BatchClientHook(aws_conn_id="aws_default").get_job_description(job_id)
        print(f"PRODUCTION DRILL: sensor sees job {job_id} {job['status']}")
        if job["status"] == "FAILED":
            raise RuntimeError(f"Batch job {job_id} failed: {job.get('statusReason')}")
        return PokeReturnValue(is_done=job["status"] == "SUCCEEDED", xcom_value=job_id)

    wait(submit.output)
