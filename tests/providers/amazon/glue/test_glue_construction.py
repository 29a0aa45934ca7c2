"""GlueJobOperator's own parameters and drop-in details (no AWS calls; shared checks: test_shared_construction)."""

from __future__ import annotations

import warnings

import pytest

from resumable_jobs.providers.amazon import GlueJobOperator
from resumable_jobs.providers.amazon.glue_links import GlueJobRunDetailsLink
from tests.providers.amazon.builders import glue as _op


def test_a_plain_operator_warns_nothing_and_has_upstreams_defaults():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        op = GlueJobOperator(task_id="glue")
    assert (op.job_name, op.concurrent_run_limit, op.job_poll_interval) == ("aws_glue_default_job", 1, 6)
    assert op.stop_job_run_on_kill is None and op.cancel_on_worker_shutdown is False


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"stop_job_run_on_kill": "yes"}, TypeError, "stop_job_run_on_kill must be True, False or None"),
        (
            {"stop_job_run_on_kill": True, "cancel_on_worker_shutdown": False},
            ValueError,
            "stop_job_run_on_kill=True .* and cancel_on_worker_shutdown=False contradict",
        ),
        (
            {"script_args": {"--resumable-jobs-token": "x"}},
            ValueError,
            "script_args must not set '--resumable-jobs-token'",
        ),
        ({"script_args": ["--day", "1"]}, TypeError, "script_args must be a dict"),
        ({"run_job_kwargs": {"Arguments": {}}}, ValueError, "run_job_kwargs must not hold 'Arguments'"),
        ({"iam_role_name": "r", "iam_role_arn": "arn:aws:iam::1:role/r"}, ValueError, "iam_role_name and iam_role_arn"),
        ({"script_location": "/dags/etl.py"}, ValueError, "set s3_bucket"),
        ({"waiter_max_attempts": 0}, ValueError, "waiter_max_attempts must be an integer >= 1"),
        ({"job_poll_interval": -1}, ValueError, "job_poll_interval must be a finite number of seconds >= 0"),
        ({"waiter_delay": "60"}, TypeError, "waiter_delay must be a number of seconds"),
        ({"deferrable": "false"}, TypeError, "deferrable must be True or False"),
    ],
)
def test_bad_input_fails_at_construction_naming_the_parameter(kwargs, error, match):
    with pytest.raises(error, match=match):
        _op(**kwargs)


def test_templated_fields_are_checked_after_rendering_not_before():
    op = _op(script_args="{{ params.args }}", script_location="{{ params.script }}")
    assert op.script_args == "{{ params.args }}"


def test_stop_job_run_on_kill_true_means_stop_on_every_kill_as_upstream():
    assert _op(stop_job_run_on_kill=True).cancel_on_worker_shutdown is True
    assert _op(stop_job_run_on_kill=False)._cancellation_disabled_reason() == "stop_job_run_on_kill=False"
    assert _op()._cancellation_disabled_reason() is None


def test_resume_glue_job_on_retry_is_read_as_durable_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="resume_glue_job_on_retry is deprecated"):
        op = _op(resume_glue_job_on_retry=False)
    assert op.durable is False


def test_upstream_template_fields_link_and_store_key():
    from airflow.providers.amazon.aws.operators.glue import GlueJobOperator as Upstream

    assert tuple(GlueJobOperator.template_fields) == tuple(Upstream.template_fields)
    assert [type(link) for link in GlueJobOperator.operator_extra_links] == [GlueJobRunDetailsLink]
    assert GlueJobRunDetailsLink.name == Upstream.operator_extra_links[0].name
    assert GlueJobOperator.external_id_key == Upstream.external_id_key == "glue_job_run_id"
