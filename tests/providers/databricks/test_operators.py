"""What a DAG author sees from either operator on one try: requests sent, value returned, XComs,
links, failures, cancellation. Runs on every Airflow version (the mixin or the shim)."""

from __future__ import annotations

import importlib
import warnings

import pytest

from resumable_jobs import ExternalJobFailed
from resumable_jobs.providers.databricks import (
    DatabricksRunNowOperator,
    DatabricksRunPageLink,
    DatabricksSubmitRunOperator,
)
from resumable_jobs.testing import (
    FakeTaskInstance,
    InMemoryTaskStateStore,
    make_context,
    run_trigger_until_event,
    run_try,
)
from tests.providers.databricks.builders import OPERATORS, run_now, submit_run
from resumable_jobs.local.standins.databricks import TASK_ERROR, page_url


def _context(**ti_fields):
    return make_context(InMemoryTaskStateStore(), FakeTaskInstance(**ti_fields))


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_fresh_run_waits_for_success_and_returns_the_run_id(workspace, make, endpoint, key, deferrable):
    context = _context()
    result = run_try(make(deferrable=deferrable), context)

    (run_id,) = workspace.runs
    assert result == run_id
    assert len(workspace.started(endpoint)) == 1
    assert (workspace.runs[run_id].life_cycle, workspace.runs[run_id].result) == (
        "TERMINATED",
        "SUCCESS",
    )
    assert context["ti"].xcom == {"run_id": run_id, "run_page_url": page_url(run_id)}


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_deferral_hands_the_submitted_run_to_the_upstream_trigger(workspace, make, endpoint, key):
    context = _context()
    with pytest.raises(BaseException) as deferred:
        make(deferrable=True, polling_period_seconds=5).execute(context)

    assert type(deferred.value).__name__ == "TaskDeferred"
    trigger = deferred.value.trigger
    (run_id,) = workspace.runs
    classpath, kwargs = trigger.serialize()
    assert classpath == "airflow.providers.databricks.triggers.databricks.DatabricksExecutionTrigger"
    assert kwargs["run_id"] == run_id and kwargs["polling_period_seconds"] == 5
    assert kwargs["run_page_url"] == page_url(run_id)
    assert context["ti"].xcom == {
        "run_id": run_id,
        "run_page_url": page_url(run_id),
    }  # pushed before deferring


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
@pytest.mark.parametrize("deferrable", [False, True], ids=["sync", "deferrable"])
def test_failed_run_raises_with_the_failed_tasks_errors(workspace, make, endpoint, key, deferrable):
    workspace.fail_next = 1
    with pytest.raises(ExternalJobFailed) as failure:
        run_try(make(deferrable=deferrable), _context())
    (run_id,) = workspace.runs
    message = str(failure.value)
    assert f"Databricks run {run_id} ended TERMINATED with result FAILED" in message
    assert f"etl (run {workspace.runs[run_id].task_run_id}): {TASK_ERROR}" in message


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_without_waiting_the_run_id_is_returned_and_nothing_polls(workspace, make, endpoint, key):
    context = _context()
    result = run_try(make(wait_for_termination=False), context)
    (run_id,) = workspace.runs
    assert result == run_id
    assert workspace.runs[run_id].life_cycle == "RUNNING"  # still running: only the page URL was read
    assert context["ti"].xcom == {"run_id": run_id, "run_page_url": page_url(run_id)}


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_deferrable_without_waiting_warns_at_construction_and_never_defers(workspace, make, endpoint, key):
    with pytest.warns(UserWarning, match="defers nothing.*Set wait_for_termination=True"):
        op = make(deferrable=True, wait_for_termination=False)
    result = op.execute(_context())  # returns: no TaskDeferred
    assert result in workspace.runs


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_waiting_modes_do_not_warn(make, endpoint, key):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        make(deferrable=True)
        make(deferrable=False, wait_for_termination=False)


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_do_xcom_push_false_pushes_no_run_xcoms(workspace, make, endpoint, key):
    context = _context()
    run_try(make(do_xcom_push=False), context)
    assert context["ti"].xcom == {}


@pytest.mark.parametrize(("make", "endpoint", "key"), OPERATORS)
def test_upstream_trigger_error_event_raises_with_its_errors(make, endpoint, key):
    event = {
        "run_id": 1234,
        "run_page_url": page_url(1234),
        "run_state": '{"life_cycle_state": "INTERNAL_ERROR", "result_state": "FAILED", "state_message": "cluster lost"}',
        "repair_run": False,
        "errors": [{"task_key": "etl", "run_id": 123401, "error": "OOM"}],
    }
    context = _context()
    with pytest.raises(
        ExternalJobFailed,
        match=r"run 1234 ended INTERNAL_ERROR with result FAILED: cluster lost.*etl \(run 123401\): OOM",
    ):
        make().execute_complete(context, event)
    assert context["ti"].xcom == {"run_id": 1234, "run_page_url": page_url(1234)}


@pytest.mark.parametrize("operator", [DatabricksSubmitRunOperator, DatabricksRunNowOperator])
def test_drop_in_for_upstream_parameters_template_fields_and_link(operator):
    import inspect

    upstream_module = importlib.import_module("airflow.providers.databricks.operators.databricks")
    upstream = getattr(upstream_module, operator.__name__)
    assert tuple(operator.template_fields) == tuple(upstream.template_fields)
    assert operator.external_id_key == upstream.external_id_key

    def accepted(cls):
        return {
            name
            for klass in cls.__mro__
            if "__init__" in vars(klass)
            for name in inspect.signature(klass.__init__).parameters
        }

    missing = set(inspect.signature(upstream.__init__).parameters) - accepted(operator)
    assert missing == set()
    (link,) = operator.operator_extra_links
    assert isinstance(link, DatabricksRunPageLink) and link.xcom_key == "run_page_url"
    assert link.name == upstream.operator_extra_links[0].name


def test_submit_run_merges_named_parameters_over_json_and_forwards_params(workspace):
    op = submit_run(
        json={
            "run_name": "from-json",
            "timeout_seconds": 60,
            "tasks": [{"task_key": "old"}],
        },
        tasks=[{"task_key": "etl", "notebook_task": {"notebook_path": "/x"}}],
        timeout_seconds=3600,
        params={"day": "2026-01-01", "unset": None},
        wait_for_termination=False,
    )
    op.execute(_context())
    (body,) = workspace.started("runs/submit")
    assert body["run_name"] == "from-json"
    assert body["timeout_seconds"] == "3600"  # normalised to a string, as upstream does
    assert body["tasks"] == [
        {
            "task_key": "etl",
            "notebook_task": {
                "notebook_path": "/x",
                "base_parameters": {"day": "2026-01-01"},
            },
        }
    ]
    assert op.tasks == [{"task_key": "etl", "notebook_task": {"notebook_path": "/x"}}]  # not mutated


def test_submit_run_defaults_run_name_to_the_task_id(workspace):
    submit_run(task_id="nightly_etl", wait_for_termination=False).execute(_context())
    assert workspace.started("runs/submit")[0]["run_name"] == "nightly_etl"


def test_submit_run_rejects_dbt_task_without_git_source(workspace):
    with pytest.raises(ValueError, match="git_source is required for dbt_task"):
        submit_run(tasks=None, dbt_task={"commands": ["dbt run"]}).execute(_context())
    assert workspace.started() == []


def test_templated_json_string_is_accepted(workspace):
    op = submit_run(
        tasks=None,
        json="{'tasks': [{'task_key': 'etl'}], 'run_name': 'x'}",
        wait_for_termination=False,
    )
    op.execute(_context())
    assert workspace.started("runs/submit")[0]["tasks"] == [{"task_key": "etl"}]


def test_run_now_forwards_params_as_job_parameters_and_resolves_job_name(workspace):
    op = run_now(
        job_id=None,
        job_name="nightly",
        params={"day": "2026-01-01"},
        wait_for_termination=False,
    )
    op.execute(_context())
    (body,) = workspace.started("run-now")
    assert body["job_id"] == 7 and "job_name" not in body
    assert body["job_parameters"] == {"day": "2026-01-01"}


def test_run_now_does_not_forward_params_next_to_legacy_parameter_slots(workspace):
    run_now(notebook_params={"a": "1"}, params={"day": "x"}, wait_for_termination=False).execute(_context())
    (body,) = workspace.started("run-now")
    assert body["notebook_params"] == {"a": "1"} and "job_parameters" not in body


def test_run_now_rejects_job_id_with_job_name(workspace):
    with pytest.raises(ValueError, match="'job_name' is not allowed with argument 'job_id'"):
        run_now(job_name="nightly").execute(_context())
    assert workspace.started() == []


def test_run_now_cancels_previous_runs_before_a_fresh_run(workspace):
    older = workspace.add_run(endpoint="run-now")
    run_id = run_now(cancel_previous_runs=True, wait_for_termination=False).execute(_context())
    assert [int(call["job_id"]) for call in workspace.calls("runs/cancel-all")] == [7]
    assert workspace.runs[older].result == "CANCELED"
    assert workspace.runs[run_id].life_cycle == "RUNNING"


def test_run_now_repair_run_repairs_the_failed_run_and_follows_it(workspace, task_logs):
    workspace.fail_next = 1
    result = run_try(run_now(repair_run=True, job_parameters={"day": "d"}), _context())
    (run_id,) = workspace.runs
    assert result == run_id and workspace.runs[run_id].result == "SUCCESS"
    assert workspace.calls("runs/repair") == [
        {
            "run_id": run_id,
            "rerun_all_failed_tasks": True,
            "job_parameters": {"day": "d"},
        }
    ]
    assert len(workspace.started("run-now")) == 1
    assert any("repairing its failed tasks" in m for m in task_logs.at("warning"))


def test_run_now_repair_on_the_deferrable_path_defers_again_to_the_same_run(workspace):
    workspace.fail_next = 1
    context = _context()
    op = run_now(repair_run=True, deferrable=True)
    with pytest.raises(BaseException) as deferred_again:
        run_try(op, context)  # defers, the trigger reports FAILED, execute_complete repairs
    assert type(deferred_again.value).__name__ == "TaskDeferred"
    (run_id,) = workspace.runs
    trigger = deferred_again.value.trigger
    assert trigger.run_id == run_id and trigger.repair_run is False  # no second repair
    assert workspace.calls("runs/repair") == [{"run_id": run_id, "rerun_all_failed_tasks": True}]

    result = op.execute_complete(context, run_trigger_until_event(trigger))
    assert result == run_id and workspace.runs[run_id].result == "SUCCESS"
    assert len(workspace.started("run-now")) == 1


def test_run_now_repair_reason_that_does_not_match_fails_the_task(workspace):
    workspace.fail_next = 1
    with pytest.raises(ExternalJobFailed):
        run_try(
            run_now(
                repair_run=True,
                databricks_repair_reason_new_settings={"CLUSTER_LOST": {}},
            ),
            _context(),
        )
    assert workspace.calls("runs/repair") == []


def test_operators_use_the_requested_connection(workspace, monkeypatch, api_server):
    monkeypatch.setenv("AIRFLOW_CONN_OTHER_WORKSPACE", api_server.connection_uri_json())
    run_id = submit_run(databricks_conn_id="other_workspace", wait_for_termination=False).execute(_context())
    assert run_id in workspace.runs
