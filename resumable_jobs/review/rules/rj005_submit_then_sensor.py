"""RJ005: a submit task that does not wait, plus a sensor or poll task on the same job.

Why: the submit task turns green when the external system accepts the job, not when the job
succeeds; only the sensor's result says how the job went (spec sections 2 and 6). Whether to
fold the two into one task is a trade-off (is a Triggerer deployed, how long does the job run,
how scarce are worker slots), so this is advice, not an error. What is a defect is a task that
depends on the submit but not on the sensor: it can start before the job has finished. That
case is reported with severity "warning".

How: in each DAG scope (see :mod:`resumable_jobs.review.taskgraph`), a submit task is an
operator from :mod:`resumable_jobs.review.operators` told not to wait (or one that does not
wait by default), or a ``@task`` named submit/start/launch/trigger with no polling loop. A
sensor or poll task is a ``*Sensor`` operator, a ``@task.sensor``, or a ``@task`` that loops
with ``sleep``. The two are on the same job when the sensor takes the submit's output
(``submit.output``, a TaskFlow argument), or pulls the submit's XCom by task id in a template
or in its callable. The finding is on the submit call.

What it does not do: report an operator that already waits followed by a sensor (a redundant
sensor is harmless for crash safety), ``TriggerDagRunOperator(wait_for_completion=False)``, or
a submit with no sensor on its job.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.findings import ADVICE, WARNING, Finding
from resumable_jobs.review.index import FunctionNode, ModuleIndex, call_name
from resumable_jobs.review.keys import words
from resumable_jobs.review.operators import WaitModel, is_sensor_name, submit_operator
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.taskgraph import TaskGraph, TaskNode, task_graphs
from resumable_jobs.review.variables import argument

__all__ = ["RULE", "operator_wait_model"]

_SUBMIT_WORDS = frozenset({"submit", "start", "launch", "trigger", "kick"})


def check(index: ModuleIndex) -> Iterator[Finding]:
    if not _may_have_sensor(index):
        return
    for graph in task_graphs(index):
        sensors = [node for node in graph.nodes if _is_sensor(index, node)]
        if not sensors:
            continue
        for node in graph.nodes:
            model = _submits_without_waiting(index, node)
            if model is None:
                continue
            linked = [s for s in sensors if s is not node and _same_job(index, graph, node, s)]
            if linked:
                yield _finding(index, graph, node, model, linked)


# -- classification ---------------------------------------------------------------------------


def _submits_without_waiting(index: ModuleIndex, node: TaskNode) -> WaitModel | None:
    """The operator's wait model when ``node`` submits a job and does not wait for it."""
    if node.function is not None:
        if set(words(node.function.name)) & _SUBMIT_WORDS and not _has_poll_loop(index, node.function):
            return _HAND_WRITTEN
        return None
    model = operator_wait_model(index, node.operator)
    if model is None:
        return None
    if model.keyword is not None:
        wait = node.setting(model.keyword)
        if wait is not None:
            if not isinstance(wait, ast.Constant):
                return None  # decided at run time: cannot tell
            return None if wait.value == model.wait_value else model
    deferrable = node.setting("deferrable")
    if isinstance(deferrable, ast.Constant) and deferrable.value is True:
        return None  # deferring implies waiting when the wait argument is left out
    return None if model.default else model


def operator_wait_model(index: ModuleIndex, name: str | None, depth: int = 0) -> WaitModel | None:
    """The wait model of an operator class, following in-house subclasses to a known base."""
    model = submit_operator(name)
    if model is not None or not name or depth > 5:
        return model
    for base in _bases(index, name):
        model = operator_wait_model(index, base, depth + 1)
        if model is not None:
            return model
    return None


def _bases(index: ModuleIndex, name: str) -> list[str]:
    cls = index.classes_by_name.get(name)
    if cls is not None:
        return [index.resolve(b) or "" for b in cls.bases]
    facts = index.project.class_facts(index.path, name)
    return list(facts.bases) if facts is not None else []


def _is_sensor_class(index: ModuleIndex, name: str | None, depth: int = 0) -> bool:
    if is_sensor_name(name):
        return True
    if not name or depth > 5:
        return False
    return any(_is_sensor_class(index, base, depth + 1) for base in _bases(index, name))


_HAND_WRITTEN = WaitModel(None, True, False)


def _is_sensor(index: ModuleIndex, node: TaskNode) -> bool:
    if node.function is not None:
        decorator = index.task_decorator(node.function) or ""
        return decorator.endswith(".sensor") or _has_poll_loop(index, node.function)
    return _is_sensor_class(index, node.operator)


def _may_have_sensor(index: ModuleIndex) -> bool:
    """A cheap first look, so files without any sensor or poll task skip the graph."""
    if any(is_sensor_name(name) for name in index.called_names):
        return True
    if any(_is_sensor_class(index, cls.name) for cls in index.classes):
        return True  # an in-house sensor class of this file
    if index.project.has_classes and index.aliases:
        return True  # perhaps one imported from another module of the tree
    return any(index.is_task_function(f) for f in index.functions_with_loops) or any(
        (index.task_decorator(f) or "").endswith(".sensor") for f in index.functions
    )


def _has_poll_loop(index: ModuleIndex, func: FunctionNode) -> bool:
    if not any(f is func or _encloses(func, f) for f in index.functions_with_loops):
        return False
    for node in ast.walk(func):
        if isinstance(node, ast.While):
            if any(isinstance(c, ast.Call) and call_name(c) == "sleep" for c in ast.walk(node)):
                return True
    return False


def _encloses(outer: FunctionNode, inner: FunctionNode) -> bool:
    return outer.lineno < inner.lineno <= (outer.end_lineno or outer.lineno)


# -- "on the same job" --------------------------------------------------------------------------


def _same_job(index: ModuleIndex, graph: TaskGraph, submit: TaskNode, sensor: TaskNode) -> bool:
    upstream = graph.data_upstream.get(sensor, set())
    if submit in upstream:
        return True
    # through a TaskFlow step that picks the id out (``step_id=first(add_steps.output)``)
    if any(u.function is not None and submit in graph.data_upstream.get(u, ()) for u in upstream):
        return True
    if _same_job_name(submit, sensor):
        return True
    if submit.task_id is None:
        return False
    if _templates_pull(sensor, submit.task_id):
        return True
    return any(_callable_pulls(index, func, submit.task_id) for func in _callables(index, sensor))


#: arguments that name one job on both sides, submit and sensor (SageMaker, Glue, Dataproc)
_JOB_NAMES = ("job_name", "batch_id")


def _same_job_name(submit: TaskNode, sensor: TaskNode) -> bool:
    """Both name the job the same way: ``job_name=``/``batch_id=`` with the same expression."""
    for name in _JOB_NAMES:
        mine, theirs = submit.setting(name), sensor.setting(name)
        if mine is None or theirs is None:
            continue
        if isinstance(mine, ast.Constant) and not isinstance(mine.value, str):
            continue
        if ast.dump(mine) == ast.dump(theirs):
            return True
    return False


def _templates_pull(sensor: TaskNode, task_id: str) -> bool:
    quoted = (f"'{task_id}'", f'"{task_id}"')
    for call in sensor.calls:
        for kw in call.keywords:
            for node in ast.walk(kw.value):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if "xcom_pull" in node.value and any(q in node.value for q in quoted):
                        return True
    return False


def _callables(index: ModuleIndex, sensor: TaskNode) -> list[FunctionNode]:
    if sensor.function is not None:
        return [sensor.function]
    kw = sensor.keyword("python_callable")
    if kw is not None and isinstance(kw.value, ast.Name):
        return list(index.functions_by_name.get(kw.value.id, ()))
    return []


def _callable_pulls(index: ModuleIndex, func: FunctionNode, task_id: str) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and call_name(node) == "xcom_pull":
            task_ids = argument(node, 0, "task_ids")
            if task_ids is None:
                continue
            candidates = task_ids.elts if isinstance(task_ids, (ast.List, ast.Tuple)) else [task_ids]
            if any(index.string_value(c) == task_id for c in candidates):
                return True
    return False


# -- the finding ---------------------------------------------------------------------------------


def _finding(
    index: ModuleIndex, graph: TaskGraph, submit: TaskNode, model: WaitModel, sensors: list[TaskNode]
) -> Finding:
    after_sensors = set().union(*(graph.reachable(s) for s in sensors))
    skipping = [
        down
        for down in graph.downstream.get(submit, ())
        if down not in sensors and down not in after_sensors and not any(s in graph.reachable(down) for s in sensors)
    ]
    sensor_names = ", ".join(f"'{s.label}'" for s in sensors)
    how = "is a hand-written submit task" if model is _HAND_WRITTEN else f"does not wait ({model.describe_no_wait()})"
    message = (
        f"'{submit.label}' {how} and {sensor_names} {'wait' if len(sensors) > 1 else 'waits'} for "
        "the same job: the submit turns "
        "green when the job is accepted, not when it succeeds, so only the sensor reflects the "
        "job's outcome; whether to keep two tasks is a trade-off (Triggerer, job duration, "
        "worker slots)"
    )
    severity = ADVICE
    if skipping:
        severity = WARNING
        names = ", ".join(f"'{d.label}'" for d in skipping)
        message += (
            f"; {names} {'depend' if len(skipping) > 1 else 'depends'} on '{submit.label}' but not on "
            f"{sensor_names}, so {'they' if len(skipping) > 1 else 'it'} can start before the job has finished"
        )
    return make_finding(index, submit.call, RULE.code, severity, message, _suggestion(model, submit, sensors, skipping))


def _suggestion(model: WaitModel, submit: TaskNode, sensors: list[TaskNode], skipping: list[TaskNode]) -> str:
    wait = model.describe_wait() if model is not _HAND_WRITTEN else "wait_for_termination=True"
    sensor = sensors[0]
    submit_class = _class_name(submit, "SubmitOperator")
    lines = []
    if skipping:
        lines += [
            f"First, make downstream tasks and alerts depend on '{sensor.label}', not on '{submit.label}':",
            f"    {submit.label} >> {sensor.label} >> [{', '.join(d.label for d in skipping)}]",
            "Then choose by spec section 6 (a trade-off, not a fixed answer):",
        ]
    else:
        lines.append("Choose by spec section 6 (a trade-off, not a fixed answer):")
    lines += [
        f"- Triggerer deployed: one task with deferrable=True and {wait} (deferrable alone does not wait).",
        f"- No Triggerer, job short or worker slots free: one task with {wait}, and durable=True where",
        "  the operator has it (ResumableJobMixin): submit and polling are then protected end to end.",
        '- Long job and scarce worker slots: keep the split with a mode="reschedule" sensor, and keep',
        "  the submit crash-safe (durable=True): splitting does not protect the submit.",
    ]
    if model is _HAND_WRITTEN:
        lines += [
            "Before:",
            f"    job = {submit_class}()",
            f"    {_class_name(sensor, 'wait')}(job)",
            "After (one task; an operator built on ResumableJobMixin, yours or this project's):",
            f'    run = MyJobOperator(task_id="{submit.label}", {wait}, deferrable=True)',
        ]
        return "\n".join(lines)
    before = f"{model.keyword}={not model.wait_value}, " if model.keyword else ""
    lines += [
        "Before:",
        f'    {submit.label} = {submit_class}(task_id="{submit.label}", {before}...)',
        f'    {sensor.label} = {_class_name(sensor, "Sensor")}(task_id="{sensor.label}", ...)',
        "After (one task, with a Triggerer):",
        f'    {submit.label} = {submit_class}(task_id="{submit.label}", {wait}, deferrable=True, ...)',
    ]
    return "\n".join(lines)


def _class_name(node: TaskNode, fallback: str) -> str:
    if node.function is not None:
        return node.function.name
    return (node.operator or fallback).rsplit(".", 1)[-1]


RULE = Rule(
    code="RJ005",
    name="submit-then-sensor",
    severity=ADVICE,
    summary=(
        "Submit task that does not wait plus a sensor on the same job: weigh the section 6 trade-off; "
        "downstream tasks must depend on the sensor."
    ),
    check=check,
)
