"""A user's operator whose mode flag and poll interval are template fields: checked once rendered (issue 25).

The check of a templated flag moves from construction to the start of the try, keeping its
message; a template in a flag that is not a template field still fails at construction.
"""

from __future__ import annotations

import pytest

from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try
from resumable_jobs.testing.fake_system import FakeJobOperator


def _render(op, **params):
    from airflow.sdk.definitions.context import Context

    op.render_template_fields(Context(params=params))
    return op


class TemplatedWaitOperator(FakeJobOperator):
    """A user's operator whose own flag and poll interval are template fields."""

    template_fields = ("wait_for_termination", "check_every")
    poll_interval_parameters = ("check_every",)

    def __init__(self, *, wait_for_termination=None, check_every=0, **kwargs):
        super().__init__(**kwargs)
        self.wait_for_termination = wait_for_termination
        self.check_every = check_every


@pytest.mark.parametrize(("rendered", "result_is_id"), [(True, False), (False, True), ("False", True)])
def test_a_users_templated_flag_is_checked_after_rendering(system, rendered, result_is_id):
    op = _render(TemplatedWaitOperator(task_id="t", system=system, wait_for_termination="{{ params.w }}"), w=rendered)
    result = run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    (job_id,) = system.jobs
    assert (result == job_id) is result_is_id  # submit-only returns the id; waiting returns the result


def test_a_users_templated_flag_rendering_wrong_names_it(system):
    op = _render(TemplatedWaitOperator(task_id="t", system=system, wait_for_termination="{{ params.w }}"), w="later")
    with pytest.raises(TypeError, match=r"wait_for_termination must be True or False .* got 'later'"):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert system.submissions == 0


def test_a_templated_poll_interval_is_a_number_once_rendered(system):
    op = _render(TemplatedWaitOperator(task_id="t", system=system, check_every="{{ params.every }}"), every=2)
    run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert op.check_every == 2
    bad = _render(TemplatedWaitOperator(task_id="t", system=system, check_every="{{ params.every }}"), every=-1)
    with pytest.raises(ValueError, match="check_every must be a finite number of seconds >= 0"):
        run_try(bad, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))


def test_a_template_in_a_flag_that_is_not_templated_fails_at_construction(system):
    with pytest.raises(TypeError, match="deferrable must be True or False"):
        FakeJobOperator(task_id="t", system=system, deferrable="{{ params.d }}")
