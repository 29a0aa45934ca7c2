"""RedshiftDataOperator's parameters: aliases, defaults, bad input named at construction, import cost."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest

from resumable_jobs.providers.amazon import RedshiftDataOperator

REQUIRED = {"sql": "SELECT 1", "database": "dev", "cluster_identifier": "c1"}


def _op(**kwargs):
    arguments = {**REQUIRED, **kwargs}
    if {"workgroup_name", "session_id"} & set(kwargs) and "cluster_identifier" not in kwargs:
        arguments.pop("cluster_identifier")
    return RedshiftDataOperator(task_id=kwargs.pop("task_id", "load"), **arguments)


@pytest.mark.parametrize(
    ("kwargs", "waits"),
    [
        ({}, True),
        ({"wait_for_completion": False}, False),
        ({"wait_for_termination": False}, False),
        ({"wait_for_completion": True, "wait_for_termination": True}, True),
    ],
)
def test_wait_for_completion_is_an_alias_of_wait_for_termination(kwargs, waits):
    op = _op(**kwargs)
    assert op.wait_for_termination is waits and op.wait_for_completion is waits


def test_contradicting_wait_parameters_are_rejected_naming_both():
    with pytest.raises(ValueError, match="wait_for_termination=True and wait_for_completion=False contradict"):
        _op(wait_for_termination=True, wait_for_completion=False)


def test_deferrable_without_waiting_warns_naming_the_fix():
    with pytest.warns(UserWarning, match="Set wait_for_termination=True"):
        _op(deferrable=True, wait_for_completion=False)


def test_return_sql_result_without_waiting_warns_that_ids_are_returned():
    with pytest.warns(
        UserWarning, match="return_sql_result=True with wait_for_completion=False returns the statement ids"
    ):
        _op(return_sql_result=True, wait_for_completion=False)


def test_deferrable_defaults_to_the_operators_default_deferrable_option(monkeypatch):
    assert _op().deferrable is False
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "True")
    assert _op().deferrable is True


def test_no_warning_for_a_plain_operator():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _op()


@pytest.mark.parametrize(
    ("kwargs", "error", "names"),
    [
        ({"poll_interval": -1}, ValueError, "poll_interval"),
        ({"poll_interval": "10"}, TypeError, "poll_interval"),
        ({"deferrable": "false"}, TypeError, "deferrable"),
        ({"wait_for_completion": "yes"}, TypeError, "wait_for_completion"),
        ({"return_sql_result": 1}, TypeError, "return_sql_result"),
        ({"with_event": "true"}, TypeError, "with_event"),
        ({"cancel_on_kill": None}, None, None),
        ({"sql": []}, TypeError, "sql"),
        ({"sql": 42}, TypeError, "sql"),
        ({"sql": "  "}, ValueError, "sql"),
        ({"session_keep_alive_seconds": 86401}, ValueError, "session_keep_alive_seconds"),
        ({"session_keep_alive_seconds": 1.5}, TypeError, "session_keep_alive_seconds"),
        ({"workgroup_name": "wg1", "cluster_identifier": "c1"}, ValueError, "cluster_identifier, workgroup_name"),
        ({"region": "eu-west-1", "region_name": "us-east-1"}, ValueError, "region"),
    ],
)
def test_bad_input_is_rejected_at_construction_naming_the_parameter(kwargs, error, names):
    if error is None:  # None means "the default" for a flag: accepted
        assert _op(**kwargs).cancel_on_kill is True
        return
    with pytest.raises(error, match=names):
        _op(**kwargs)


def test_no_target_at_all_is_rejected_naming_the_three_choices():
    with pytest.raises(ValueError, match="exactly one of cluster_identifier, workgroup_name or session_id"):
        RedshiftDataOperator(task_id="load", sql="SELECT 1", database="dev")


def test_a_templated_session_id_is_accepted_and_checked_after_rendering():
    op = _op(session_id="{{ ti.xcom_pull(task_ids='open', key='session_id') }}")
    op.session_id = "not-a-uuid"  # what rendering produced
    with pytest.raises(ValueError, match="session_id must be a UUID4"):
        op._check_rendered_session_id()


def test_region_is_used_as_region_name_with_a_warning():
    with pytest.warns(UserWarning, match="region= is the old name of region_name"):
        assert _op(region="eu-west-1").region_name == "eu-west-1"


def test_a_list_of_sql_files_keeps_upstreams_template_extension():
    assert RedshiftDataOperator.template_ext == (".sql",)
    assert _op(sql=("a.sql", "b.sql")).sql == ["a.sql", "b.sql"]


def test_importing_the_module_pulls_in_no_provider_or_aws_sdk():
    probe = (
        "import json, sys; import airflow.sdk; before = set(sys.modules); "
        "import resumable_jobs.providers.amazon.redshift_data; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    added = json.loads(out.strip().splitlines()[-1])
    assert "resumable_jobs.providers.amazon.redshift_data" in added  # the probe did import our module
    heavy = ("boto3", "botocore", "aiobotocore", "aiohttp", "moto")
    assert [m for m in added if m.split(".")[0] in heavy or m.startswith("airflow.providers.")] == []
