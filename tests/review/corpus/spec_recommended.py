"""Near misses: the spec's own recommended ("after") code must produce no findings."""

from datetime import datetime, timezone

from airflow.providers.databricks.operators.databricks import DatabricksSubmitRunOperator
from airflow.sdk import DAG, NEVER_EXPIRE, Asset, BaseOperator, ResumableJobMixin, dag, task

NOTEBOOK_PATH = "/Shared/etl"
ORDERS = Asset(name="orders/daily", uri="s3://warehouse/orders/daily")


def fetch_records_after(cursor):
    return [{"id": cursor + 1}]


def fetch_records_since(watermark):
    return [watermark]


@dag(schedule="@daily")
def etl_with_checkpoint():
    @task(retries=3)
    def process_records(**context):
        task_state_store = context["task_state_store"]
        cursor = task_state_store.get("last_cursor", default=0)
        for record in fetch_records_after(cursor):
            cursor = record["id"]
            task_state_store.set("last_cursor", cursor)

    @task(retries=2)
    def process_partition(partition_id, **context):
        task_state_store = context["task_state_store"]
        cursor = task_state_store.get("cursor", default=0)
        task_state_store.set("cursor", cursor + partition_id, retention=NEVER_EXPIRE)

    process_records()
    process_partition.expand(partition_id=[0, 1, 2, 3])


etl_with_checkpoint()


with DAG(dag_id="producer", schedule=None, start_date=datetime(2026, 1, 1), catchup=False):

    @task(inlets=[ORDERS], outlets=[ORDERS])
    def load(asset_state_store=None):
        asset_state_store = asset_state_store[ORDERS]
        watermark = asset_state_store.get("watermark", default="2026-01-01T00:00:00+00:00")
        records = fetch_records_since(watermark)
        now = datetime.now(tz=timezone.utc).isoformat()
        asset_state_store.set("watermark", now)
        asset_state_store.set("last_run_summary", {"rows_loaded": len(records), "completed_at": now})

    load()


class MyBatchOperator(BaseOperator, ResumableJobMixin):
    external_id_key = "batch_job_id"

    def execute(self, context):
        return self.execute_resumable(context)

    def submit_job(self, context):
        return self.hook.submit_batch()

    def get_job_status(self, external_id, context):
        return self.hook.get_status(external_id)

    def is_job_active(self, status):
        return status in ("RUNNING", "PENDING", "QUEUED")

    def is_job_succeeded(self, status):
        return status == "SUCCEEDED"

    def poll_until_complete(self, external_id, context):
        self.hook.wait(external_id)

    def get_job_result(self, external_id, context):
        return None


with DAG("my_dag", schedule=None, default_args={"durable": False}):
    MyBatchOperator(task_id="job", durable=False)
    run_job = DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        deferrable=True,
        wait_for_termination=True,
    )
    run_sync = DatabricksSubmitRunOperator(
        task_id="run_sync",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        wait_for_termination=True,
        durable=True,
    )
