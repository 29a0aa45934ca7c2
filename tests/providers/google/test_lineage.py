"""OpenLineage for BigQueryInsertJobOperator: upstream's lineage, also on tries upstream never has.

The reference is upstream's own operator, from the installed Google provider, asked about the
same job over the same (requests-mock) BigQuery API. Ours must answer identically - facet for
facet - whether the try inserted the job, reconnected to it, found it already done or resumed
from the triggerer; and the OpenLineage provider must pick ours up with its default extractor.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from resumable_jobs.local.standins.bigquery import API, PROJECT
from resumable_jobs.providers.google import BigQueryInsertJobOperator
from resumable_jobs.testing import (
    CrashPoint,
    FakeTaskInstance,
    InMemoryTaskStateStore,
    SimulatedWorkerCrash,
    crash_at,
    make_context,
    run_try,
)

pytest.importorskip("airflow.providers.openlineage", reason="the OpenLineage provider is not installed")

CONFIGURATION = {
    "query": {
        "query": "SELECT order_id, amount FROM shop.orders",
        "useLegacySql": False,
        "destinationTable": {"projectId": PROJECT, "datasetId": "shop", "tableId": "daily"},
    }
}
SCHEMA = [{"name": "order_id", "type": "INTEGER"}, {"name": "amount", "type": "NUMERIC"}]
ORDERS, DAILY = f"{PROJECT}.shop.orders", f"{PROJECT}.shop.daily"


TABLES = re.compile(re.escape(f"{API}/projects/{PROJECT}/datasets/") + r"(?P<dataset>[^/]+)/tables/(?P<table>[^/?]+)")


@pytest.fixture
def warehouse(bigquery_api):
    """BigQuery with an orders table the query reads and the daily table it writes.

    The jobs stand-in runs no queries, so a finished job gets what BigQuery reports about a
    query here (:func:`_report_statistics`), and tables.get answers with the two schemas.
    """
    fake, mocker = bigquery_api

    def table(request, context):
        found = TABLES.match(request.url)
        name = f"{found['dataset']}.{found['table']}"
        if name not in ("shop.orders", "shop.daily"):
            context.status_code = 404
            return {"error": {"code": 404, "message": f"Not found: Table {PROJECT}:{name}"}}
        reference = {"projectId": PROJECT, "datasetId": found["dataset"], "tableId": found["table"]}
        return {"kind": "bigquery#table", "tableReference": reference, "schema": {"fields": SCHEMA}}

    mocker.get(TABLES, json=table)
    return fake


def _report_statistics(warehouse):
    """What BigQuery adds to a finished query job's resource: its type and the tables it read."""
    for job in warehouse.jobs.values():
        job.resource["configuration"]["jobType"] = "QUERY"
        job.resource["statistics"] = {
            "query": {
                "referencedTables": [{"projectId": PROJECT, "datasetId": "shop", "tableId": "orders"}],
                "totalBytesBilled": "1048576",
                "cacheHit": False,
            }
        }


def _op(**kwargs):
    return BigQueryInsertJobOperator(task_id="daily", configuration=CONFIGURATION, poll_interval=0, **kwargs)


def _ti():
    return FakeTaskInstance(task_id="daily", dag_id="shop", max_tries=3)


def _upstream_lineage(job_id):
    """What upstream's operator reports for ``job_id`` (its execute leaves the id in ``job_id``)."""
    from airflow.providers.google.cloud.operators.bigquery import BigQueryInsertJobOperator as Upstream

    upstream = Upstream(task_id="daily", configuration=CONFIGURATION, location="EU")
    upstream.job_id = job_id
    return upstream.get_openlineage_facets_on_complete(None)


def _assert_upstreams_lineage(ours, job_id):
    expected = _upstream_lineage(job_id)
    assert [d.name for d in ours.inputs] == [ORDERS]
    assert [d.name for d in ours.outputs] == [DAILY]
    assert ours.run_facets["externalQuery"].externalQueryId == job_id
    assert "errorMessage" not in ours.run_facets
    assert ours.inputs == expected.inputs
    assert ours.outputs == expected.outputs
    assert ours.run_facets == expected.run_facets
    assert ours.job_facets == expected.job_facets


def test_fresh_job_has_upstreams_lineage(warehouse):
    op = _op()
    job_id = run_try(op, make_context(InMemoryTaskStateStore(), _ti()))
    _report_statistics(warehouse)
    lineage = op.get_openlineage_facets_on_complete(None)
    _assert_upstreams_lineage(lineage, job_id)
    assert lineage.outputs[0].facets["schema"].fields[0].name == "order_id"
    assert lineage.job_facets["sql"].query == "SELECT order_id, amount FROM shop.orders"


@pytest.mark.durable_only
@pytest.mark.parametrize("point", [CrashPoint.MID_POLL, CrashPoint.AFTER_JOB_SUCCEEDED], ids=lambda p: p.name)
def test_retry_that_followed_the_earlier_tries_job_has_its_lineage(warehouse, point):
    store, ti = InMemoryTaskStateStore(), _ti()
    first = _op()
    with crash_at(first, point, store), pytest.raises(SimulatedWorkerCrash):
        run_try(first, make_context(store, ti))
    (job_id,) = warehouse.inserted_jobs

    retry = _op()
    assert run_try(retry, make_context(store, ti.next_try())) == job_id
    assert warehouse.inserted_jobs == [job_id]  # the retry inserted nothing: upstream would report no job
    _report_statistics(warehouse)
    _assert_upstreams_lineage(retry.get_openlineage_facets_on_complete(None), job_id)


def test_try_resumed_from_the_trigger_has_the_jobs_lineage(warehouse):
    job_id = run_try(_op(wait_for_termination=False), make_context(InMemoryTaskStateStore(), _ti()))
    warehouse.jobs[job_id].finish()
    resumed = _op(deferrable=True)  # a fresh instance, as the worker that runs execute_complete has
    event = {"status": "success", "job_id": job_id, "message": "Job completed"}
    assert resumed.execute_complete(make_context(InMemoryTaskStateStore(), _ti()), event, job_id, "EU") == job_id
    _report_statistics(warehouse)
    _assert_upstreams_lineage(resumed.get_openlineage_facets_on_complete(None), job_id)


def test_openlineage_uses_its_default_extractor_and_returns_the_tables(warehouse):
    from airflow.providers.openlineage.extractors.base import DefaultExtractor
    from airflow.providers.openlineage.extractors.manager import ExtractorManager
    from airflow.utils.state import TaskInstanceState

    op = _op()
    run_try(op, make_context(InMemoryTaskStateStore(), _ti()))
    _report_statistics(warehouse)
    manager = ExtractorManager()
    assert manager.get_extractor_class(op) is DefaultExtractor
    lineage = manager.extract_metadata(
        dagrun=SimpleNamespace(run_id="manual__1"),
        task=op,
        task_instance_state=TaskInstanceState.SUCCESS,
        task_instance=None,
    )
    assert ([d.name for d in lineage.inputs], [d.name for d in lineage.outputs]) == ([ORDERS], [DAILY])


def test_no_job_means_no_lineage_as_upstream(warehouse):
    lineage = _op().get_openlineage_facets_on_complete(None)  # failed before BigQuery accepted a job
    assert (lineage.inputs, lineage.outputs, lineage.run_facets) == ([], [], {})
