"""Jobs started through a client or hook method inside a task body, without waiting for them.

Shared by RJ005 (for task bodies of the reviewed file) and the project index (for functions of
other modules handed over as ``python_callable=``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from resumable_jobs.review.index import FunctionNode, ModuleIndex, call_name, calls_in, sleeping_while_loops, subnodes

__all__ = ["JOB_START_METHODS", "started_job"]

#: client and hook methods that start an external job and return its id at once: boto3 (Glue and
#: EMR Serverless ``start_job_run``, Batch and Dataproc ``submit_job``, Athena, EMR steps and
#: notebook executions, Glue workflows, Step Functions, SageMaker training, processing, transform,
#: tuning and AutoML jobs, CodeBuild), Airflow's Databricks hook and the Databricks REST/SDK
#: (``submit_run``, ``run_now``), Azure Data Factory pipeline runs (the SDK's
#: ``pipelines.create_run``, Airflow's ``AzureDataFactoryHook.run_pipeline``). A bare ``submit``
#: is left out: executors have one too.
JOB_START_METHODS = frozenset(
    {
        "start_job_run",
        "submit_job",
        "submit_job_as_operation",
        "start_query_execution",
        "add_job_flow_steps",
        "start_execution",
        "start_pipeline_execution",
        "create_training_job",
        "create_processing_job",
        "create_transform_job",
        "start_build",
        "start_notebook_execution",
        "start_workflow_run",
        "create_hyper_parameter_tuning_job",
        "create_auto_ml_job",
        "submit_run",
        "run_now",
        "create_run",
        "run_pipeline",
    }
)

#: calls that mean the task waits for the job itself: boto3 waiters, hooks' ``wait_for_*`` and
#: ``poll_*``, the Databricks SDK's ``.result()``
_WAIT_PREFIXES = ("wait", "poll", "get_waiter", "result")


def started_job(index: ModuleIndex, bodies: Iterable[FunctionNode]) -> str | None:
    """The job-start method a task body calls (itself or through the file's helpers it calls),
    when the body does not also wait for the job: no waiter, no ``wait_*``/``poll_*`` call, no
    loop that sleeps. None otherwise."""
    if not index.called_names & JOB_START_METHODS:
        return None
    reached: set[FunctionNode] = set()
    for body in bodies:
        reached |= index.reached_from(body)
    started = None
    for func in reached:
        for site in index.calls_by_function.get(func, ()):
            name = call_name(site.node)
            if not name or not isinstance(site.node.func, ast.Attribute):
                continue
            if name in JOB_START_METHODS:
                if _told_to_wait(site.node):
                    return None  # EmrHook.add_job_flow_steps(..., wait_for_completion=True)
                started = started or name
            elif name.startswith(_WAIT_PREFIXES):
                return None
    if started is None:
        return None
    if "sleep" in index.called_names and any(_sleeps_in_loop(f) for f in reached):
        return None
    return started


def _told_to_wait(call: ast.Call) -> bool:
    """A hook method that waits when asked to: a wait flag that is not a literal False."""
    for kw in call.keywords:
        if kw.arg in ("wait_for_completion", "wait_for_termination", "wait"):
            return not (isinstance(kw.value, ast.Constant) and kw.value.value is False)
    return False


def _sleeps_in_loop(func: FunctionNode) -> bool:
    return any(
        isinstance(loop, (ast.While, ast.For, ast.AsyncFor))
        and any(isinstance(c, ast.Call) and call_name(c) == "sleep" for c in subnodes(loop))
        for loop in subnodes(func)
    )


def returned_by_a_job_start(index: ModuleIndex, value: ast.AST | None, func: FunctionNode) -> bool:
    """A value a job start returned, whatever it is called:
    ``step = emr.add_job_flow_steps(...)["StepIds"][0]`` then ``xcom_push(key=HANDLE, value=step)``.
    The start call is in the value or in what its name is bound to in ``func``."""
    if value is None or index.called_names.isdisjoint(JOB_START_METHODS):
        return False
    sources = index.assigned_values(func, value.id) if isinstance(value, ast.Name) else [value]
    return any(call_name(node) in JOB_START_METHODS for source in sources for node in calls_in(source))


def polls_in_a_sleeping_loop(index: ModuleIndex, func: FunctionNode) -> bool:
    """Whether ``func`` (or a function inside it) polls: a ``while`` loop that sleeps."""
    if not any(f is func or _encloses(func, f) for f in index.functions_with_loops):
        return False
    return sleeping_while_loops(func)


def _encloses(outer: FunctionNode, inner: FunctionNode) -> bool:
    return outer.lineno < inner.lineno <= (outer.end_lineno or outer.lineno)
