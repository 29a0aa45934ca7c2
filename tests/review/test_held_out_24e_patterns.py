"""Shapes of blind batch "held-out-24e" (our own code, written after the kind of error the batch
showed; no third-party code), each with a near miss:

- a key that names the last thing a run handled (``last_processed_region``: a verb and a thing,
  no word for a time) is a position in a sequence of things, and what it is comes from its use:
  handed from one task of a DAG to another, or moved on by a task nothing else reads, it is run
  state (RJ001); moved on by one task and read back by another, it is a watermark (RJ004);
  written and read by nothing, nothing is reported;
- the same words followed by a time (``last_loaded_quarter``, ``last_processed_at``) still name
  a watermark.
"""

from __future__ import annotations

from .sources import found

# -- the last thing handled, handed between the tasks of one DAG -------------------------------

_ROUND_ROBIN = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator

    def pick_next_region(ti):
        done = int(Variable.get("KEY", default_var=0))
        remaining = [r for r in list_regions() if r > done]
        ti.xcom_push(key="region", value=min(remaining))

    def remember_region(ti):
        region = ti.xcom_pull(task_ids="pick", key="region")
        Variable.set("KEY", str(region))

    with DAG("regions_one_by_one") as dag:
        pick = PythonOperator(task_id="pick", python_callable=pick_next_region)
        remember = PythonOperator(task_id="remember", python_callable=remember_region)
        pick >> remember
"""


def test_the_last_region_handled_handed_from_the_last_task_to_the_first_is_run_state():
    source = _ROUND_ROBIN.replace("KEY", "last_processed_region_for_sales")
    assert found(source, "RJ001", "RJ004") == [(7, "RJ001"), (13, "RJ001")]


def test_near_miss_the_same_hand_off_under_a_key_naming_a_period_is_a_watermark():
    source = _ROUND_ROBIN.replace("KEY", "last_loaded_quarter")
    assert found(source, "RJ001", "RJ004") == [(7, "RJ004"), (13, "RJ004")]


# -- the last thing handled, written and read by nothing ---------------------------------------

_PUBLISHED = """
    from airflow.decorators import dag, task
    from airflow.models import Variable

    @dag(schedule="@hourly")
    def customers_export():
        @task
        def export(batch):
            last = upload(batch)
            Variable.set("KEY", str(last))

        export(read_batch())

    customers_export()
"""


def test_the_last_customer_processed_that_nothing_reads_back_is_not_reported():
    assert found(_PUBLISHED.replace("KEY", "last_processed_customer"), "RJ001", "RJ004") == []


def test_near_miss_the_time_of_the_last_processing_is_a_watermark_whoever_reads_it():
    assert found(_PUBLISHED.replace("KEY", "last_processed_at"), "RJ001", "RJ004") == [(10, "RJ004")]


# -- the last thing handled, moved on by one task ----------------------------------------------

_FEED = """
    from airflow import DAG
    from airflow.models import Variable
    from airflow.operators.python import PythonOperator, ShortCircuitOperator

    def anything_new():
        return newest_sequence() > Variable.get("last_ingested_feed_sequence", default_var="")

    def ingest():
        start = Variable.get("last_ingested_feed_sequence", default_var="")
        newest = copy_feed_from(start)
        Variable.set("last_ingested_feed_sequence", newest)

    with DAG("feed") as dag:
        gate = ShortCircuitOperator(task_id="gate", python_callable=anything_new)
        gate >> PythonOperator(task_id="ingest", python_callable=ingest)
"""


def test_the_last_sequence_one_task_moves_on_and_another_reads_back_is_a_watermark():
    assert found(_FEED, "RJ001", "RJ004") == [(7, "RJ004"), (10, "RJ004"), (12, "RJ004")]


def test_near_miss_the_same_sequence_nothing_else_reads_is_the_tasks_own_progress():
    source = _FEED.replace('> Variable.get("last_ingested_feed_sequence", default_var="")', "> 0")
    assert found(source, "RJ001", "RJ004") == [(10, "RJ001"), (12, "RJ001")]
