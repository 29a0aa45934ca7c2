"""Parameters, drop-in compatibility and module import cost (no AWS calls)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest

from resumable_jobs.providers.amazon import BatchOperator
from resumable_jobs.providers.amazon.links import (
    BatchCloudWatchLogsLink,
    BatchJobDefinitionLink,
    BatchJobDetailsLink,
    BatchJobQueueLink,
)

REQUIRED = {"job_name": "n", "job_queue": "q", "job_definition": "d"}


def _op(**kwargs):
    return BatchOperator(task_id=kwargs.pop("task_id", "batch"), **REQUIRED, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "waits"),
    [({}, True), ({"wait_for_completion": False}, False), ({"wait_for_termination": False}, False),
     ({"wait_for_completion": True, "wait_for_termination": True}, True)],
)
def test_wait_for_completion_is_an_alias_of_wait_for_termination(kwargs, waits):
    op = _op(**kwargs)
    assert op.wait_for_termination is waits and op.wait_for_completion is waits


def test_contradicting_wait_parameters_are_rejected():
    with pytest.raises(ValueError, match="wait_for_termination=True and wait_for_completion=False contradict"):
        _op(wait_for_termination=True, wait_for_completion=False)


def test_deferrable_without_waiting_warns_naming_the_fix():
    with pytest.warns(UserWarning, match="Set wait_for_termination=True"):
        _op(deferrable=True, wait_for_completion=False)


def test_deferrable_defaults_to_the_operators_default_deferrable_option(monkeypatch):
    assert _op().deferrable is False
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "True")
    assert _op().deferrable is True


def test_job_id_argument_warns_that_it_does_not_attach():
    with pytest.warns(UserWarning, match="job_id= does not attach"):
        _op(job_id="abc")


def test_no_warning_for_a_plain_operator():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _op()


def test_upstream_template_fields_and_extra_links():
    for name in ("job_name", "job_queue", "job_definition", "container_overrides", "parameters", "tags", "array_properties"):
        assert name in BatchOperator.template_fields
    assert [type(link) for link in BatchOperator.operator_extra_links] == [
        BatchJobDetailsLink, BatchJobDefinitionLink, BatchJobQueueLink, BatchCloudWatchLogsLink,
    ]
    assert BatchOperator.external_id_key == "batch_job_id"


def test_region_is_accepted_as_the_old_name_of_region_name():
    with pytest.warns(UserWarning, match="region= is the old name of region_name"):
        op = _op(region="eu-west-1")
    assert op.region_name == "eu-west-1"
    assert op.hook.region_name == "eu-west-1"  # the client goes to the region the DAG asked for


def test_region_and_a_different_region_name_are_rejected():
    with pytest.raises(ValueError, match="region='eu-west-1' and region_name='us-east-1' contradict"):
        _op(region="eu-west-1", region_name="us-east-1")


def test_job_id_and_waiters_render_as_upstream_templates():
    from airflow.sdk.definitions.context import Context

    op = _op(job_id="{{ params.job }}", waiters="{{ params.waiters }}", wait_for_completion=False)
    op.render_template_fields(Context(params={"job": "j-1", "waiters": "w"}))
    assert (op.job_id, op.waiters) == ("j-1", "w")
    assert (op.wait_for_completion, op.wait_for_termination) == (False, False)  # a bool renders to itself


def test_wait_for_completion_takes_a_template_and_a_wrong_plain_value_still_fails_at_construction():
    op = _op(wait_for_completion="{{ params.wait }}")  # checked once rendered (test_templated_wait.py)
    assert op.wait_for_completion == "{{ params.wait }}"
    with pytest.raises(TypeError, match="wait_for_completion must be True or False"):
        _op(wait_for_completion="yes")
    with pytest.raises(TypeError, match="wait_for_termination must be True or False"):
        _op(wait_for_termination="{{ params.wait }}")  # not a template field: Airflow would never render it


def test_a_templated_wait_for_completion_cannot_be_combined_with_wait_for_termination():
    with pytest.raises(ValueError, match="pass only one"):
        _op(wait_for_termination=False, wait_for_completion="{{ params.wait }}")


def test_fingerprint_follows_the_request_and_ignores_the_token():
    a, b = _op(parameters={"day": "1"}), _op(parameters={"day": "1"})
    b.submission_token = "another-token"
    assert a.request_fingerprint({}) == b.request_fingerprint({})
    assert a.request_fingerprint({}) != _op(parameters={"day": "2"}).request_fingerprint({})


def test_importing_the_module_pulls_in_no_provider_or_aws_sdk():
    probe = (
        "import json, sys; import airflow.sdk; before = set(sys.modules); "
        "import resumable_jobs.providers.amazon; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    added = json.loads(out.strip().splitlines()[-1])
    assert "resumable_jobs.providers.amazon.batch" in added  # the probe did import our module
    heavy = ("boto3", "botocore", "aiobotocore", "aiohttp", "airflow.providers.amazon.aws")
    assert [m for m in added if m.split(".")[0] in heavy[:4] or m.startswith(heavy[4])] == []
