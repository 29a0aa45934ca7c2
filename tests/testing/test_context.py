"""The kit's context carries what operators that label their jobs with the task instance read."""

from __future__ import annotations

from resumable_jobs.testing import FakeTaskInstance, make_context


def test_a_context_with_a_task_instance_names_its_run_and_dag():
    ti = FakeTaskInstance(dag_id="etl", run_id="scheduled__2026-03-01T00:00:00+00:00")
    context = make_context(None, ti)
    assert context["run_id"] == ti.run_id
    assert context["dag"].dag_id == "etl"
    assert getattr(context["dag"], "parent_dag", None) is None  # what upstream's pod labelling probes


def test_extra_entries_override_the_defaults():
    context = make_context(None, FakeTaskInstance(), run_id="manual__x")
    assert context["run_id"] == "manual__x"
    assert "run_id" not in make_context(None, None)
