"""The common-parameter check on operators users write themselves (every Airflow version)."""

from __future__ import annotations

import pytest

from resumable_jobs.testing.fake_system import FakeJobOperator


class PollingOperator(FakeJobOperator):
    poll_interval_parameters = ("check_every",)

    def __init__(self, *, check_every=10, wait_for_termination=None, **kwargs):
        super().__init__(**kwargs)
        self.check_every = check_every
        self.wait_for_termination = wait_for_termination


def test_a_users_operator_gets_the_mode_flag_check(system):
    with pytest.raises(TypeError, match=r"FakeJobOperator\(task_id='t'\): deferrable must be True or False"):
        FakeJobOperator(task_id="t", system=system, deferrable="false")


def test_a_users_operator_declares_its_poll_interval_and_gets_it_checked(system):
    with pytest.raises(ValueError, match=r"PollingOperator\(task_id='t'\): check_every must be a finite number"):
        PollingOperator(task_id="t", system=system, check_every=-5)
    assert PollingOperator(task_id="t", system=system, check_every=0).check_every == 0


def test_none_becomes_the_default_after_the_operators_own_init(system):
    assert PollingOperator(task_id="t", system=system).wait_for_termination is True


def test_default_args_reach_the_check(system):
    from airflow.sdk import DAG

    with DAG("d", schedule=None, default_args={"durable": "no"}), pytest.raises(TypeError, match="durable must be"):
        FakeJobOperator(task_id="t", system=system)
