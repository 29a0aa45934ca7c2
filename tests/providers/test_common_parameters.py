"""Issue 13 item 3 on all five operators: wrong common parameters fail at construction, by name.

``durable``, ``deferrable`` and ``wait_for_termination`` are True, False or None (None: the
default, the same on every operator); each operator's poll interval is a number >= 0. Checked on
every Airflow version: the shim shares the contract.
"""

from __future__ import annotations

import math
import warnings

import pytest

from resumable_jobs.providers.amazon import (
    BatchOperator,
    EmrContainerOperator,
    EmrServerlessStartJobOperator,
    GlueJobOperator,
    RedshiftDataOperator,
)
from resumable_jobs.providers.databricks import DatabricksRunNowOperator, DatabricksSubmitRunOperator
from resumable_jobs.providers.dbt import DbtCloudRunJobOperator
from resumable_jobs.providers.google import BigQueryInsertJobOperator
from resumable_jobs.providers.kubernetes import KubernetesPodOperator
from resumable_jobs.providers.snowflake import SnowflakeSqlApiOperator
from resumable_jobs.providers.spark import SparkSubmitOperator

#: (builder, name of its poll interval)
OPERATORS = [
    pytest.param(
        lambda **kw: DatabricksSubmitRunOperator(task_id="t", tasks=[{"task_key": "a"}], **kw),
        "polling_period_seconds",
        id="DatabricksSubmitRun",
    ),
    pytest.param(
        lambda **kw: DatabricksRunNowOperator(task_id="t", job_id=7, **kw),
        "polling_period_seconds",
        id="DatabricksRunNow",
    ),
    pytest.param(
        lambda **kw: BatchOperator(task_id="t", job_name="n", job_definition="d", job_queue="q", **kw),
        "poll_interval",
        id="Batch",
    ),
    pytest.param(
        lambda **kw: EmrServerlessStartJobOperator(
            task_id="t", application_id="a", execution_role_arn="r", job_driver={}, **kw
        ),
        "waiter_delay",
        id="EmrServerless",
    ),
    pytest.param(
        lambda **kw: EmrContainerOperator(
            task_id="t",
            name="n",
            virtual_cluster_id="v",
            execution_role_arn="r",
            release_label="emr-7.0.0-latest",
            job_driver={},
            **kw,
        ),
        "poll_interval",
        id="EmrContainer",
    ),
    pytest.param(
        lambda **kw: BigQueryInsertJobOperator(task_id="t", configuration={"query": {"query": "SELECT 1"}}, **kw),
        "poll_interval",
        id="BigQuery",
    ),
    pytest.param(
        lambda **kw: SparkSubmitOperator(task_id="t", application="job.py", **kw),
        "status_poll_interval",
        id="Spark",
    ),
    pytest.param(
        lambda **kw: SnowflakeSqlApiOperator(task_id="t", sql="SELECT 1", **kw),
        "poll_interval",
        id="SnowflakeSqlApi",
    ),
    pytest.param(
        lambda **kw: DbtCloudRunJobOperator(task_id="t", job_id=101, **kw),
        "check_interval",
        id="DbtCloudRunJob",
    ),
    pytest.param(
        lambda **kw: GlueJobOperator(task_id="t", script_location="s3://b/etl.py", **kw),
        "job_poll_interval",
        id="Glue",
    ),
    pytest.param(
        lambda **kw: KubernetesPodOperator(task_id="t", image="busybox", **kw),
        "poll_interval",
        id="KubernetesPod",
    ),
    pytest.param(
        lambda **kw: RedshiftDataOperator(task_id="t", sql="SELECT 1", cluster_identifier="c", database="d", **kw),
        "poll_interval",
        id="RedshiftData",
    ),
]


def _build(make, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the shim's "durable= has no effect" warning
        return make(**kwargs)


@pytest.mark.parametrize(("make", "poll"), OPERATORS)
@pytest.mark.parametrize("name", ["durable", "deferrable", "wait_for_termination"])
@pytest.mark.parametrize("value", ["false", 0, 1, "True", []], ids=repr)
def test_a_mode_flag_that_is_not_a_bool_is_a_type_error_naming_it(make, poll, name, value):
    with pytest.raises(TypeError, match=rf"{name} must be True or False \(or None for the default"):
        _build(make, **{name: value})


@pytest.mark.parametrize(("make", "poll"), OPERATORS)
def test_none_means_the_same_default_on_every_operator(make, poll, monkeypatch):
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "True")
    operator = _build(make, wait_for_termination=None, deferrable=None, durable=None)
    assert operator.wait_for_termination is True
    assert operator.deferrable is True  # [operators] default_deferrable
    assert operator.resumable_waits and operator.resumable_deferrable


@pytest.mark.parametrize(("make", "poll"), OPERATORS)
@pytest.mark.parametrize("value", [False, True])
def test_bools_are_taken_as_given(make, poll, value):
    operator = _build(make, wait_for_termination=True, deferrable=value)
    assert operator.deferrable is value


@pytest.mark.parametrize(("make", "poll"), OPERATORS)
@pytest.mark.parametrize("value", [-1, -0.5, math.inf, math.nan])
def test_a_poll_interval_below_zero_or_not_finite_is_a_value_error_naming_it(make, poll, value):
    with pytest.raises(ValueError, match=rf"{poll} must be a finite number of seconds >= 0, got {value!r}"):
        _build(make, **{poll: value})


@pytest.mark.parametrize(("make", "poll"), OPERATORS)
@pytest.mark.parametrize("value", ["30", None, True])
def test_a_poll_interval_that_is_not_a_number_is_a_type_error_naming_it(make, poll, value):
    with pytest.raises(TypeError, match=rf"{poll} must be a number of seconds >= 0, got {value!r}"):
        _build(make, **{poll: value})


@pytest.mark.parametrize(("make", "poll"), OPERATORS)
@pytest.mark.parametrize("value", [0, 2, 0.25])
def test_a_poll_interval_of_zero_or_more_is_accepted(make, poll, value):
    assert getattr(_build(make, **{poll: value}), poll) == value


def test_batch_checks_its_upstream_alias_of_wait_for_termination_too():
    with pytest.raises(TypeError, match="wait_for_completion must be True or False"):
        BatchOperator(task_id="t", job_name="n", job_definition="d", job_queue="q", wait_for_completion="no")
    op = BatchOperator(task_id="t", job_name="n", job_definition="d", job_queue="q", wait_for_completion=False)
    assert op.wait_for_termination is False and op.wait_for_completion is False
