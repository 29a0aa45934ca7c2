"""Mode flags that are template fields take a template, checked once Airflow renders it (issue 25).

Upstream lists ``wait_for_completion`` among BatchOperator's template fields, so a DAG may pass
``wait_for_completion="{{ params.wait }}"``. Such a value has no type until the try renders it:
the operator accepts it at construction and checks it at the start of the try, with the message a
wrong value gets at construction. A rendered ``"True"``/``"False"`` (what Jinja makes of a bool,
unless the DAG renders native objects) is that bool - not a truthy string that always waits.
"""

from __future__ import annotations

import pytest

from resumable_jobs.providers.amazon import BatchOperator
from resumable_jobs.testing import FakeTaskInstance, InMemoryTaskStateStore, make_context, run_try
from tests.providers.amazon.conftest import DEFINITION, JOB_NAME, QUEUE, REGION


def _render(op, **params):
    from airflow.sdk.definitions.context import Context

    op.render_template_fields(Context(params=params))
    return op


def _batch(**kwargs):
    return BatchOperator(
        task_id="batch",
        job_name=JOB_NAME,
        job_queue=QUEUE,
        job_definition=DEFINITION,
        aws_conn_id=None,
        region_name=REGION,
        poll_interval=0,
        **kwargs,
    )


@pytest.mark.parametrize(
    ("rendered", "waits"),
    [(True, True), ("True", True), (False, False), ("False", False)],
    ids=["native-True", "text-True", "native-False", "text-False"],
)
def test_batch_wait_for_completion_from_a_template(moto_batch_long_jobs, rendered, waits):
    op = _render(_batch(wait_for_completion="{{ params.wait }}"), wait=rendered)
    job_id = run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    # waiting follows the job to its end; not waiting returns while it still runs
    assert moto_batch_long_jobs.describe(job_id)["status"] == ("SUCCEEDED" if waits else "RUNNING")
    assert op.wait_for_completion is waits and op.wait_for_termination is waits


def test_batch_wait_for_completion_rendering_to_something_else_fails_before_submitting(moto_batch):
    op = _render(_batch(wait_for_completion="{{ params.wait }}"), wait="maybe")
    with pytest.raises(TypeError, match=r"BatchOperator\(task_id='batch'\): wait_for_completion must be True or False"):
        run_try(op, make_context(InMemoryTaskStateStore(), FakeTaskInstance()))
    assert moto_batch.jobs() == []


