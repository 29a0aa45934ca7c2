"""BatchOperator's own parameters and drop-in details (no AWS calls; shared checks: test_shared_construction)."""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import BatchOperator
from resumable_jobs.providers.amazon.links import (
    BatchCloudWatchLogsLink,
    BatchJobDefinitionLink,
    BatchJobDetailsLink,
    BatchJobQueueLink,
)
from tests.providers.amazon.builders import batch as _op


def test_job_id_argument_warns_that_it_does_not_attach():
    with pytest.warns(UserWarning, match="job_id= does not attach"):
        _op(job_id="abc")


def test_upstream_template_fields_and_extra_links():
    for name in ("job_name", "job_queue", "job_definition", "container_overrides", "parameters", "tags", "array_properties"):
        assert name in BatchOperator.template_fields
    assert [type(link) for link in BatchOperator.operator_extra_links] == [
        BatchJobDetailsLink, BatchJobDefinitionLink, BatchJobQueueLink, BatchCloudWatchLogsLink,
    ]
    assert BatchOperator.external_id_key == "batch_job_id"


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
