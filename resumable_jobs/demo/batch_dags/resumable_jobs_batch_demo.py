"""The AWS Batch crash-recovery demo DAG: one durable BatchOperator task with retries.

The operator is the package's own; the subclass only writes down what each try did (JSON files in
RJ_DEMO_STATE_DIR) so that ``resumable-jobs demo --backend batch`` knows which process to SIGKILL
and can print the timeline. It changes nothing about the decisions:

* ``submit_job`` records (pid, job id, try) the moment SubmitJob returns and then holds the try
  for RJ_DEMO_HOLD_SECONDS. That holds open the window in which the job exists on Batch but its
  id is not persisted yet - the demo kills the worker there, because moto (without Docker)
  finishes a job inside SubmitJob and never shows it RUNNING.
* ``on_job_selected`` records which job each try ended up following, submitted or adopted.

This file sits alone in its folder so the demo's embedded Airflow parses only this DAG.
"""

from __future__ import annotations

import datetime
import json
import os
import time
from pathlib import Path
from typing import Any

from airflow.sdk import DAG

from resumable_jobs.providers.amazon import BatchOperator


def _record(name: str, record: dict[str, Any]) -> None:
    Path(os.environ["RJ_DEMO_STATE_DIR"], f"{name}.json").write_text(json.dumps(record))


class DemoBatchOperator(BatchOperator):
    def submit_job(self, context: Any) -> Any:
        job_id = super().submit_job(context)
        try_number = context["ti"].try_number
        _record(f"submitted-try-{try_number}", {"try_number": try_number, "pid": os.getpid(), "job_id": job_id})
        hold = float(os.environ.get("RJ_DEMO_HOLD_SECONDS", "0"))
        if hold > 0:
            self.log.info("Demo: SubmitJob returned %s; holding %.0fs before the id is persisted", job_id, hold)
            time.sleep(hold)
        return job_id

    def on_job_selected(self, external_id: Any, context: Any) -> None:
        super().on_job_selected(external_id, context)
        try_number = context["ti"].try_number
        _record(f"try-{try_number}", {"try_number": try_number, "pid": os.getpid(), "job_id": external_id})


with DAG(
    dag_id="resumable_jobs_batch_demo",
    schedule=None,
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    default_args={"retries": 2, "retry_delay": datetime.timedelta(seconds=1)},
):
    DemoBatchOperator(
        task_id="transform",
        job_name="resumable-jobs-batch-demo",
        job_queue=os.environ.get("RJ_DEMO_BATCH_QUEUE", "rj-local-queue"),
        job_definition=os.environ.get("RJ_DEMO_BATCH_DEFINITION", "rj-local-definition"),
        aws_conn_id="aws_default",
        poll_interval=1,
    )
