"""What all five AWS operators share at construction: upstream's aliases, defaults, fingerprint, import cost.

Each test runs on Batch, Glue, Redshift Data, EMR Serverless and EMR on EKS (no AWS calls): the
wait flag under both names, the old ``region`` name (warned, and used by the hook), the mode
defaults, the request fingerprint, and that importing an operator module pulls in no AWS SDK and
no provider package. What only one operator has is tested in its own construction module.
"""

from __future__ import annotations

import warnings

import pytest

from tests.providers.amazon.builders import (
    OPERATORS,
    batch,
    emr_containers,
    emr_serverless,
    glue,
    heavy_modules,
    modules_added_by_import,
    redshift_data,
)


@pytest.mark.parametrize("build", OPERATORS)
@pytest.mark.parametrize(
    ("kwargs", "waits"),
    [
        ({}, True),
        ({"wait_for_completion": False}, False),
        ({"wait_for_termination": False}, False),
        ({"wait_for_completion": True, "wait_for_termination": True}, True),
    ],
)
def test_wait_for_completion_is_an_alias_of_wait_for_termination(build, kwargs, waits):
    op = build(**kwargs)
    assert op.wait_for_termination is waits and op.wait_for_completion is waits


@pytest.mark.parametrize("build", OPERATORS)
def test_contradicting_wait_parameters_are_rejected_naming_both(build):
    with pytest.raises(ValueError, match="wait_for_termination=True and wait_for_completion=False contradict"):
        build(wait_for_termination=True, wait_for_completion=False)


@pytest.mark.parametrize("build", OPERATORS)
def test_wait_for_completion_must_be_a_bool(build):
    with pytest.raises(TypeError, match="wait_for_completion must be True or False"):
        build(wait_for_completion="no")


@pytest.mark.parametrize("build", OPERATORS)
def test_deferrable_without_waiting_warns_naming_the_fix(build):
    with pytest.warns(UserWarning, match="Set wait_for_termination=True"):
        build(deferrable=True, wait_for_completion=False)


@pytest.mark.parametrize("build", OPERATORS)
def test_deferrable_defaults_to_the_operators_default_deferrable_option(build, monkeypatch):
    assert build().deferrable is False
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "True")
    assert build().deferrable is True


@pytest.mark.parametrize("build", OPERATORS)
def test_no_warning_for_a_plain_operator(build):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build()


@pytest.mark.parametrize("build", OPERATORS)
def test_region_is_the_old_name_of_region_name(build):
    with pytest.warns(UserWarning, match="region= is the old name of region_name"):
        op = build(region="eu-west-1")
    assert op.region_name == "eu-west-1"
    assert op.hook.region_name == "eu-west-1"  # the client goes to the region the DAG asked for


@pytest.mark.parametrize("build", OPERATORS)
def test_region_and_a_different_region_name_are_rejected(build):
    with pytest.raises(ValueError, match="region='eu-west-1' and region_name='us-east-1' contradict"):
        build(region="eu-west-1", region_name="us-east-1")


@pytest.mark.parametrize(
    ("build", "field", "one", "other"),
    [
        pytest.param(batch, "parameters", {"day": "1"}, {"day": "2"}, id="Batch"),
        pytest.param(glue, "script_args", {"--day": "1"}, {"--day": "2"}, id="Glue"),
        pytest.param(redshift_data, "statement_name", "day-1", "day-2", id="RedshiftData"),
        pytest.param(emr_serverless, "config", {"name": "x"}, {"name": "y"}, id="EmrServerless"),
        pytest.param(emr_containers, "tags", {"day": "1"}, {"day": "2"}, id="EmrContainer"),
    ],
)
def test_fingerprint_follows_the_request_and_ignores_the_token(build, field, one, other):
    a, b = build(**{field: one}), build(**{field: one})
    b.submission_token = "another-token"
    assert a.request_fingerprint({}) == b.request_fingerprint({})
    assert a.request_fingerprint({}) != build(**{field: other}).request_fingerprint({})


@pytest.mark.parametrize(
    "module",
    [
        "resumable_jobs.providers.amazon",
        "resumable_jobs.providers.amazon.batch",
        "resumable_jobs.providers.amazon.glue",
        "resumable_jobs.providers.amazon.redshift_data",
        "resumable_jobs.providers.amazon.emr_serverless",
        "resumable_jobs.providers.amazon.emr_containers",
    ],
)
def test_importing_an_operator_module_pulls_in_no_provider_or_aws_sdk(module):
    added = modules_added_by_import(module)
    assert module in added  # the probe did import our module
    assert heavy_modules(added) == []
