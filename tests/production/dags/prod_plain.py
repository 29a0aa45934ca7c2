"""The recovery benchmark's baseline: a plain task that only retries, in the same deployment.

Try 1 waits until it is killed (or a cap passes); later tries log one line and return. The time
from the kill to that line is what Airflow's own retry costs, with no job to reconnect to.
"""

from __future__ import annotations

import time

from airflow.sdk import DAG, task
from prod_support import RETRY_ARGS, START

with DAG("prod_plain_retry", schedule=None, start_date=START, catchup=False, default_args=RETRY_ARGS):

    @task(task_id="job")
    def job(**context) -> int:
        try_number = context["ti"].try_number
        if try_number == 1:
            print("PRODUCTION DRILL: plain try 1 is waiting to be killed", flush=True)
            deadline = time.monotonic() + float(context["dag_run"].conf.get("cap", 300))
            while time.monotonic() < deadline:
                time.sleep(0.5)
            raise RuntimeError("try 1 was not killed")
        print(f"PRODUCTION DRILL: plain retry {try_number} started", flush=True)
        return try_number

    job()
