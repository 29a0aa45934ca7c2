"""RedshiftDataOperator's own parameters: bad input named at construction (shared: test_shared_construction)."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import RedshiftDataOperator

REQUIRED = {"sql": "SELECT 1", "database": "dev", "cluster_identifier": "c1"}


def _op(**kwargs):
    arguments = {**REQUIRED, **kwargs}
    if {"workgroup_name", "session_id"} & set(kwargs) and "cluster_identifier" not in kwargs:
        arguments.pop("cluster_identifier")
    return RedshiftDataOperator(task_id=kwargs.pop("task_id", "load"), **arguments)


def test_return_sql_result_without_waiting_warns_that_ids_are_returned():
    with pytest.warns(
        UserWarning, match="return_sql_result=True with wait_for_completion=False returns the statement ids"
    ):
        _op(return_sql_result=True, wait_for_completion=False)


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


def test_a_list_of_sql_files_keeps_upstreams_template_extension():
    assert RedshiftDataOperator.template_ext == (".sql",)
    assert _op(sql=("a.sql", "b.sql")).sql == ["a.sql", "b.sql"]
