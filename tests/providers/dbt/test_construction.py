"""What a DAG file gets when it builds the operator: defaults, XComs, the link, and bad input named."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.dbt import DbtCloudRunJobOperator, DbtCloudRunJobOperatorLink
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try
from tests.providers.dbt.builders import run_job


@pytest.mark.parametrize(
    ("kwargs", "error", "names"),
    [
        ({}, ValueError, "job_id"),
        ({"project_name": "analytics", "job_name": "nightly"}, ValueError, "environment_name"),
        ({"job_id": 1, "check_interval": -1}, ValueError, "check_interval"),
        ({"job_id": 1, "check_interval": "often"}, TypeError, "check_interval"),
        ({"job_id": 1, "timeout": -5}, ValueError, "timeout"),
        ({"job_id": 1, "deferrable": "false"}, TypeError, "deferrable"),
        ({"job_id": 1, "wait_for_termination": "no"}, TypeError, "wait_for_termination"),
        ({"job_id": 1, "reuse_existing_run": "yes"}, TypeError, "reuse_existing_run"),
        ({"job_id": 1, "retry_from_failure": 1}, TypeError, "retry_from_failure"),
        ({"job_id": 1, "hook_params": ["retry_limit", 3]}, TypeError, "hook_params"),
        ({"job_id": 1, "durable": "yes"}, TypeError, "durable"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_input_fails_at_construction_naming_the_parameter(kwargs, error, names):
    with pytest.raises(error, match=names):
        DbtCloudRunJobOperator(task_id="t", **kwargs)


def test_template_strings_in_templated_fields_are_left_for_rendering():
    op = DbtCloudRunJobOperator(
        task_id="t", job_id="{{ var.value.dbt_job }}", account_id="{{ var.value.account }}", trigger_reason="{{ ds }}"
    )
    assert op.job_id == "{{ var.value.dbt_job }}"


def test_deferrable_without_waiting_warns_and_names_the_fix():
    with pytest.warns(UserWarning, match="wait_for_termination=True"):
        DbtCloudRunJobOperator(task_id="t", job_id=1, deferrable=True, wait_for_termination=False)


def test_link_label_and_xcom_keys_are_upstreams():
    assert DbtCloudRunJobOperator.operator_extra_links[0].name == "Monitor Job Run"
    assert DbtCloudRunJobOperatorLink.xcom_key == "job_run_url"
    assert DbtCloudRunJobOperator.external_id_xcom_key == "job_run_id"
    assert DbtCloudRunJobOperator.external_id_key == "dbt_cloud_run_id"


@pytest.mark.parametrize("do_xcom_push", [True, False])
def test_run_id_and_url_reach_xcom_whatever_do_xcom_push_says_as_upstream(dbt_cloud, do_xcom_push):
    ti = FakeTaskInstance()
    result = run_try(
        run_job(wait_for_termination=False, do_xcom_push=do_xcom_push), make_context(InMemoryTaskStateStore(), ti)
    )
    (run_id,) = dbt_cloud.runs
    assert result == run_id
    assert ti.xcom["job_run_id"] == run_id
    assert ti.xcom["job_run_url"].endswith(f"/runs/{run_id}/")


def test_a_wrong_token_is_refused_by_the_stand_in_as_dbt_cloud_does(dbt_cloud, monkeypatch):
    import json
    import os

    connection = json.loads(os.environ["AIRFLOW_CONN_DBT_CLOUD_DEFAULT"])
    monkeypatch.setenv("AIRFLOW_CONN_DBT_CLOUD_DEFAULT", json.dumps({**connection, "password": "wrong"}))
    with pytest.raises(Exception, match="401"):
        run_try(run_job(durable=False), make_context(None, FakeTaskInstance()))
    assert dbt_cloud.runs == {}


def test_the_link_shows_the_url_the_try_pushed(monkeypatch):
    from airflow.sdk.execution_time.xcom import XCom

    asked = []

    def get_value(*, ti_key, key):
        asked.append(key)
        return "https://cloud.getdbt.com/deploy/4242/projects/1/runs/70001/"

    monkeypatch.setattr(XCom, "get_value", staticmethod(get_value))
    url = DbtCloudRunJobOperatorLink().get_link(DbtCloudRunJobOperator(task_id="t", job_id=1), ti_key=object())
    assert url.endswith("/runs/70001/") and asked == ["job_run_url"]
