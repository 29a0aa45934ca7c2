"""Patterns the held-out batch "held-out-15g" showed the reviewer had missed, as positives and
near misses of our own writing: vendors' provider packages outside ``airflow.providers`` whose
sync operators start a sync and return (Fivetran's ``fivetran_provider``, Census), followed by the
vendor's sensor on the same sync, linked by the submit's XCom or by the same ``connector_id``.
The same class name in another package can mean waiting (``fivetran_provider_async``).
"""

from __future__ import annotations

import os
import textwrap

from resumable_jobs.review import RULES_BY_CODE, review_source


def found(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in review_source(textwrap.dedent(source), "dag.py", [RULES_BY_CODE["RJ005"]])]


_CONNECTOR_SYNC = """
    from datetime import datetime

    from airflow import DAG
    from {package}.operators{module} import FivetranOperator
    from {package}.sensors{module} import FivetranSensor

    with DAG("crm_sync", start_date=datetime(2026, 1, 1), schedule="@hourly"):
        start = FivetranOperator(task_id="start_crm", connector_id="crm_connector"{flags})
        done = FivetranSensor(task_id="crm_synced", connector_id="{watched}", poke_interval=60)
        start >> done
"""


def test_fivetran_sync_that_returns_then_a_sensor_on_the_same_connector_is_a_split():
    source = _CONNECTOR_SYNC.format(package="fivetran_provider", module=".fivetran", flags="", watched="crm_connector")
    assert found(source) == [(9, "RJ005")]


def test_the_async_package_waits_by_default_and_only_splits_when_told_not_to_wait():
    waits = _CONNECTOR_SYNC.format(package="fivetran_provider_async", module="", flags="", watched="crm_connector")
    assert found(waits) == []
    told = _CONNECTOR_SYNC.format(
        package="fivetran_provider_async", module="", flags=", wait_for_completion=False", watched="crm_connector"
    )
    assert found(told) == [(9, "RJ005")]


def test_a_sensor_on_another_connector_is_not_on_the_sync():
    source = _CONNECTOR_SYNC.format(package="fivetran_provider", module=".fivetran", flags="", watched="ads_connector")
    assert found(source) == []


_CENSUS = """
    from airflow import DAG
    from airflow_provider_census.operators.census import CensusOperator
    from airflow_provider_census.sensors.census import CensusSensor

    with DAG("reverse_etl") as dag:
        push = CensusOperator(task_id="push_accounts", sync_id=12)
        watch = CensusSensor(task_id="watch_push", sync_run_id="{{{{ ti.xcom_pull(task_ids='{pulled}') }}}}")
        push >> watch
"""


def test_census_sync_pulled_by_its_sensor_is_a_split():
    assert found(_CENSUS.format(pulled="push_accounts")) == [(7, "RJ005")]


def test_census_sync_with_a_sensor_on_another_task_is_not():
    assert found(_CENSUS.format(pulled="other_push")) == []


def test_a_class_of_the_same_name_in_an_unknown_package_is_left_alone():
    source = _CONNECTOR_SYNC.format(package="inhouse_sync", module=".fivetran", flags="", watched="crm_connector")
    assert found(source) == []


# --- RJ005: an in-house operator whose execute() starts a job and returns ---------------------

_INHOUSE_OPERATOR = """
    import boto3
    from airflow.models import BaseOperator


    class StartCrawlJob(BaseOperator):
        def __init__(self, job, **kwargs):
            super().__init__(**kwargs)
            self.job = job

        def execute(self, context):
            glue = boto3.client("glue")
            run = glue.start_job_run(JobName=self.job)
            {wait}
            return run["JobRunId"]
"""

_DAG_USING_IT = """
    from airflow import DAG
    from airflow.providers.amazon.aws.sensors.glue import GlueJobSensor
    {import_line}

    with DAG("crawl") as dag:
        start = StartCrawlJob(task_id="start_crawl", job="crawl_sites")
        done = GlueJobSensor(task_id="crawl_done", job_name="crawl_sites", run_id=start.output)
        start >> done
"""


def test_an_operator_of_this_file_whose_execute_starts_a_job_and_returns_is_a_split():
    source = _INHOUSE_OPERATOR.format(wait="") + _DAG_USING_IT.format(import_line="")
    assert found(source) == [(22, "RJ005")]


def test_an_operator_whose_execute_waits_for_its_job_is_not():
    wait = 'glue.get_waiter("job_run_succeeded").wait(JobName=self.job, RunId=run["JobRunId"])'
    source = _INHOUSE_OPERATOR.format(wait=wait) + _DAG_USING_IT.format(import_line="")
    assert found(source) == []


def test_an_operator_of_another_module_of_the_tree_is_followed(tmp_path):
    from resumable_jobs.review import review_files

    (tmp_path / "dags" / "ops").mkdir(parents=True)
    (tmp_path / "dags" / "ops" / "__init__.py").write_text("")
    for wait, expected in (("", [("dags/pipeline.py", 7)]), ("self.wait_for_run(run)", [])):
        (tmp_path / "dags" / "ops" / "crawl.py").write_text(textwrap.dedent(_INHOUSE_OPERATOR.format(wait=wait)))
        dag = _DAG_USING_IT.format(import_line="from ops.crawl import StartCrawlJob")
        (tmp_path / "dags" / "pipeline.py").write_text(textwrap.dedent(dag))
        files = [str(tmp_path / "dags" / "ops" / "crawl.py"), str(tmp_path / "dags" / "pipeline.py")]
        result = review_files(files, [RULES_BY_CODE["RJ005"]])
        assert [(os.path.relpath(f.path, tmp_path), f.line) for f in result.findings] == expected
