"""Keep the submit + reschedule-sensor split - very long jobs, no Triggerer, scarce worker slots.

Use when: the job runs for hours, there is no Triggerer, and a worker slot held for the whole
run is the cost to avoid. A sensor in ``mode="reschedule"`` frees the slot between pokes.

Two things make this split safe:
* the submit task stays durable (``durable=True`` is the default even with
  ``wait_for_termination=False``): a crashed submit retry returns the stored run id instead of
  starting a second run;
* everything downstream depends on the *sensor*: the submit task turns green as soon as
  Databricks accepts the run, which says nothing about whether the run succeeds.
"""

from __future__ import annotations

import datetime

from airflow.sdk import DAG, PokeReturnValue, task

from resumable_jobs.providers.databricks import DatabricksSubmitRunOperator

with DAG(
    dag_id="example_choice_long_job_submit_and_sensor",
    schedule="@daily",
    start_date=datetime.datetime(2026, 1, 1),
    catchup=False,
    tags=["resumable-jobs", "section-6"],
):
    submit = DatabricksSubmitRunOperator(  # noqa: RJ005 - deliberate split (long job, scarce slots)
        task_id="submit_backfill",
        tasks=[{"task_key": "backfill", "spark_jar_task": {"main_class_name": "com.acme.Backfill"}, "existing_cluster_id": "0101-abc"}],
        wait_for_termination=False,  # returns the run id; durable by default
        retries=3,
    )

    @task.sensor(poke_interval=600, timeout=24 * 3600, mode="reschedule", retries=3)
    def wait_for_backfill(run_id: int) -> PokeReturnValue:
        from airflow.providers.databricks.hooks.databricks import DatabricksHook

        state = DatabricksHook().get_run_state(run_id)
        if state.is_terminal and not state.is_successful:
            raise RuntimeError(f"Databricks run {run_id} ended {state.result_state}: {state.state_message}")
        return PokeReturnValue(is_done=state.is_terminal, xcom_value=run_id)

    @task
    def publish_tables(run_id: int) -> None:
        print(f"backfill run {run_id} succeeded; publishing")

    # downstream hangs off the sensor, never off the submit task
    publish_tables(wait_for_backfill(submit.output))
