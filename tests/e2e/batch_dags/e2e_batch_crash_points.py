"""DAGs for the end-to-end Batch crash tests: one per crash point, each on a local moto_server.

On its first try the task SIGKILLs its own process at the named point - no cleanup runs, exactly
like an OOM kill or an evicted pod - and Airflow's retry must deal with whatever was left behind:

* ``after_submit``: SubmitJob has returned, the job exists (tagged with the submission token),
  but its id was never persisted. The retry can only avoid a duplicate by finding the job by tag.
* ``after_succeeded``: the poll saw SUCCEEDED and returned; the id is persisted but the task never
  finished. The retry must return that job, not submit another.

There is no mid-poll DAG: moto without Docker finishes a job inside SubmitJob, so a job is never
RUNNING while a try polls (see ``resumable_jobs.local.moto_server``).

The endpoint comes from AIRFLOW_CONN_AWS_DEFAULT, the queue and definition from
RJ_E2E_BATCH_QUEUE / RJ_E2E_BATCH_DEFINITION; the test sets all three. This folder holds only
this file, so the embedded Airflow of these tests parses nothing else.
"""

from __future__ import annotations

import datetime
import os
import signal
from typing import Any

from airflow.sdk import DAG

from resumable_jobs.providers.amazon import BatchOperator

CRASH_POINTS = ("after_submit", "after_succeeded")


class SelfKillingBatchOperator(BatchOperator):
    """Kills its own task process at ``crash_point`` on try 1; behaves normally afterwards."""

    def __init__(self, *, crash_point: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.crash_point = crash_point

    def _die_if(self, point: str, context: Any) -> None:
        if self.crash_point == point and context["ti"].try_number == 1:
            self.log.warning("E2E: killing this task process with SIGKILL at %s", point)
            os.kill(os.getpid(), signal.SIGKILL)

    def submit_job(self, context: Any) -> Any:
        job_id = super().submit_job(context)
        self.log.info("E2E: SubmitJob returned %s", job_id)
        self._die_if("after_submit", context)
        return job_id

    def poll_until_complete(self, external_id: Any, context: Any) -> None:
        super().poll_until_complete(external_id, context)
        self._die_if("after_succeeded", context)


for point in CRASH_POINTS:
    with DAG(
        dag_id=f"e2e_batch_{point}",
        schedule=None,
        start_date=datetime.datetime(2026, 1, 1),
        catchup=False,
        default_args={"retries": 2, "retry_delay": datetime.timedelta(seconds=1)},
    ):
        SelfKillingBatchOperator(
            task_id="batch_job",
            crash_point=point,
            job_name=f"rj-e2e-{point.replace('_', '-')}",
            job_queue=os.environ.get("RJ_E2E_BATCH_QUEUE", "rj-local-queue"),
            job_definition=os.environ.get("RJ_E2E_BATCH_DEFINITION", "rj-local-definition"),
            aws_conn_id="aws_default",
            poll_interval=1,
        )
