"""RJ005: a submit task that does not wait, plus a sensor or poll task on the same job.

Why: the submit task turns green when the external system accepts the job, not when the job
succeeds; only the sensor's result says how the job went (spec sections 2 and 6). Whether to
fold the two into one task is a trade-off (is a Triggerer deployed, how long does the job run,
how scarce are worker slots), so this is advice, not an error. What is a defect is a task that
depends on the submit but not on the sensor: it can start before the job has finished. That
case is reported with severity "warning".

How: in each DAG scope (see :mod:`resumable_jobs.review.taskgraph`), a submit task is an
operator from :mod:`resumable_jobs.review.operators` (or an in-house subclass of one, in this
file or another module of the tree) told not to wait, by keyword or by an attribute set after
construction, or one that does not wait by default; or a ``@task`` named
submit/start/launch/trigger with no polling loop; or a task whose code (a ``@task``, a
``python_callable`` of this file or another module of the tree, or the ``execute()`` of an
in-house operator class defined there) starts a job through a client or hook method and does not
wait for it (:mod:`resumable_jobs.review.jobstart`). A sensor or poll
task is a ``*Sensor`` or ``*SensorAsync`` operator (or a subclass), a ``@task.sensor``, or a
``@task`` or ``python_callable`` that loops with ``sleep``. The two are on the same job when the
sensor takes the submit's output (``submit.output``, a TaskFlow argument, or through a TaskFlow
step that picks the id out), pulls the submit's XCom by task id in a template or in its callable
(the id Airflow gives it, ``group.task`` for a task written in a task group, or its own; or, when
neither id is known as text, the name bound once that the submit's ``task_id=`` is and the
template inserts, ``f"{{{{ ti.xcom_pull(task_ids='{run_id}') }}}}"``),
or names the same job (``job_name=``, ``batch_id=``, ``ingestion_id=``, ``connector_id=``; a
SageMaker job is named in its request, ``config={"TrainingJobName": ...}``).
Sensors are indexed by these links, so a scope with many tasks costs linear time. The finding is on the submit call.

What it does not do: report an operator that already waits followed by a sensor (a redundant
sensor is harmless for crash safety), ``TriggerDagRunOperator(wait_for_completion=False)``,
provisioning with a state sensor (a cluster or application being created is not a job whose
outcome the sensor reports), or a submit with no sensor on its job.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import lru_cache

from resumable_jobs.review.findings import ADVICE, WARNING, Finding
from resumable_jobs.review.index import (
    ModuleIndex,
    imported_function,
)
from resumable_jobs.review.job_requests import names_something, request_job_name
from resumable_jobs.review.jobstart import JOB_START_METHODS, polls_in_a_sleeping_loop, started_job
from resumable_jobs.review.keys import words
from resumable_jobs.review.operators import WaitModel, flagged_wait_model, is_sensor_name, submit_operator
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.taskgraph import (
    TaskGraph,
    TaskNode,
    bound_task_id,
    group_qualified_id,
    is_bound_id,
    pulled_task_ids,
    task_callables,
    task_graphs,
)

__all__ = ["RULE", "operator_wait_model"]

_SUBMIT_WORDS = frozenset({"submit", "start", "launch", "trigger", "kick"})
#: words that make a ``start_...`` task provision something rather than submit a job
#: (``start_cluster``, ``launch_warehouse``): a sensor on it reports the resource's state. Not
#: "application": a Spark application is a job
_PROVISIONED = frozenset(
    {"cluster", "clusters", "instance", "instances", "environment", "env", "endpoint", "server", "warehouse"}
    | {"pool", "vm", "node", "nodes", "nodegroup", "stack", "database", "db"}
)


def check(index: ModuleIndex) -> Iterator[Finding]:
    if not _may_have_sensor(index):
        return
    for graph in task_graphs(index):
        sensors = [node for node in graph.nodes if _is_sensor(index, node)]
        if not sensors:
            continue
        links = _SensorLinks(index, graph, sensors)
        for node in graph.nodes:
            model = _submits_without_waiting(index, node)
            if model is None:
                continue
            linked = links.of(node)
            on_the_job = [sensor for sensor in linked if _service_of_other(node, sensor) is None]
            if on_the_job:
                yield _finding(index, graph, node, model, on_the_job)
            elif linked:
                other = _service_of_other(node, linked[0])
                yield _finding(index, graph, node, model, linked).as_uncertain(
                    f"'{linked[0].label}' watches {other}, not the job '{node.label}' submits: "
                    "it may wait on something else"
                )


# -- classification ---------------------------------------------------------------------------


def _submits_without_waiting(index: ModuleIndex, node: TaskNode) -> WaitModel | None:
    """The operator's wait model when ``node`` submits a job and does not wait for it."""
    if node.function is not None:
        named = set(words(node.function.name))
        if named & _SUBMIT_WORDS and not named & _PROVISIONED and not polls_in_a_sleeping_loop(index, node.function):
            return _HAND_WRITTEN
        return _sdk_started(index, node)
    model = operator_wait_model(index, node.operator)
    if model is None:
        return _flagged_off(index, node) or _sdk_started(index, node)
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


def _flagged_off(index: ModuleIndex, node: TaskNode) -> WaitModel | None:
    """An operator of a known package outside the table, told not to wait by a literal flag."""
    for flag in ("wait_for_completion", "wait_for_termination"):
        wait = node.setting(flag)
        if isinstance(wait, ast.Constant) and wait.value is False:
            return _flagged_model(index, node.operator, flag)
    return None


def _flagged_model(index: ModuleIndex, name: str | None, flag: str) -> WaitModel | None:
    """:func:`flagged_wait_model`, following in-house subclasses to a known base."""
    return index.along_bases(name, lambda cls: flagged_wait_model(cls, flag))


def operator_wait_model(index: ModuleIndex, name: str | None) -> WaitModel | None:
    """The wait model of an operator class, following in-house subclasses to a known base."""
    return index.along_bases(name, submit_operator)


def _is_sensor_class(index: ModuleIndex, name: str | None) -> bool:
    return index.along_bases(name, lambda cls: True if is_sensor_name(cls) else None) is not None


_HAND_WRITTEN = WaitModel(None, True, False)


def _is_sensor(index: ModuleIndex, node: TaskNode) -> bool:
    if node.function is not None:
        decorator = index.task_decorator(node.function) or ""
        return decorator.endswith(".sensor") or polls_in_a_sleeping_loop(index, node.function)
    if _is_sensor_class(index, node.operator):
        return True
    # a PythonOperator whose callable (a function of this file) loops with sleep: a poll task
    if not index.functions_with_loops or node.keyword("python_callable") is None:
        return False
    return any(polls_in_a_sleeping_loop(index, func) for func in task_callables(index, node))


# -- jobs started through an SDK or a hook inside a task ---------------------------------------

_SDK_STARTED = WaitModel(None, True, False)


def _sdk_started(index: ModuleIndex, node: TaskNode) -> WaitModel | None:
    """A task whose body starts a job through a client or hook method and returns without
    waiting for it (see :mod:`resumable_jobs.review.jobstart`): a ``@task`` function or a
    ``python_callable`` of this file, or one imported from another module of the tree."""
    if node.function is None and node.keyword("python_callable") is None:
        started = _class_job_start(index, node.operator)  # an in-house operator's execute()
    elif index.called_names.isdisjoint(JOB_START_METHODS):
        # the body is not in this file, or it starts no job; only an imported callable is left
        started = None if node.function is not None else _imported_callable_start(index, node)
    else:
        bodies = task_callables(index, node)
        started = started_job(index, bodies) if bodies else _imported_callable_start(index, node)
    if started is None:
        return None
    node.__dict__["_rj005_started"] = started
    return _SDK_STARTED


def _class_job_start(index: ModuleIndex, name: str | None) -> str | None:
    """The job-start method an in-house operator's ``execute()`` calls without waiting for the
    job: a class of this file or of another module of the tree, or its nearest in-file base that
    defines ``execute()``. The nearest ``execute()`` decides, even when it starts nothing (an
    override that calls ``super().execute()`` and then waits)."""

    def look(cls_name: str | None) -> str | None:
        cls = index.classes_by_name.get(cls_name or "")
        if cls is None:
            facts = index.class_facts(cls_name) if cls_name else None
            return (facts.job_start or "") if facts is not None else None  # its summary decides
        execute = index.methods_named(cls, "execute")
        return (started_job(index, execute) or "") if execute else None

    return index.along_bases(name, look) or None


def _imported_callable_start(index: ModuleIndex, node: TaskNode) -> str | None:
    kw = node.keyword("python_callable")
    imported = imported_function(index, kw.value) if kw is not None else None  # star imports too
    return imported[1].job_start if imported is not None else None


def _may_have_sensor(index: ModuleIndex) -> bool:
    """A cheap first look, so files without any sensor or poll task skip the graph.

    The source text first: a sensor class, ``@task.sensor`` and a poll loop all leave a word
    in it (``Sensor``, ``sensor``, ``sleep``), unless the sensor comes from another module of
    the tree.
    """
    text = index.source_text
    if "ensor" not in text and "sleep" not in text:
        return index.imports_local_code
    if any(is_sensor_name(name) for name in index.called_names):
        return True
    if "partial" in index.called_names and any(is_sensor_name(name) for name in index.aliases):
        return True  # a mapped sensor (``Sensor.partial(...).expand(...)``) calls only ``partial``
    if any(_is_sensor_class(index, cls.name) for cls in index.classes):
        return True  # an in-house sensor class of this file
    if index.imports_local_code:
        return True  # perhaps one imported from another module of the tree
    # a poll loop in a @task or a python_callable (runtime functions include both)
    return any(f in index.runtime_functions for f in index.functions_with_loops) or any(
        (index.task_decorator(f) or "").endswith(".sensor") for f in index.functions
    )


# -- "on the same job" --------------------------------------------------------------------------


class _SensorLinks:
    """Which sensors are on a submit's job, looked up by what links them (linear in tasks).

    A sensor is on the submit's job when it takes the submit's output (directly, or through a
    TaskFlow step that picks the id out: ``step_id=first(add_steps.output)``), pulls the
    submit's XCom by task id, or names the same job (``job_name=``, ``batch_id=``).
    """

    def __init__(self, index: ModuleIndex, graph: TaskGraph, sensors: list[TaskNode]) -> None:
        self.by_upstream: dict[TaskNode, list[TaskNode]] = {}
        self.by_task_id: dict[str, list[TaskNode]] = {}
        self.by_job_name: dict[tuple[str, str], list[TaskNode]] = {}
        self.index = index
        self.graph = graph
        for sensor in sensors:
            upstream = set(graph.data_upstream.get(sensor, ()))
            for step in list(upstream):
                if step.function is not None:
                    upstream |= graph.data_upstream.get(step, set())
            for node in upstream:
                self.by_upstream.setdefault(node, []).append(sensor)
            for task_id in pulled_task_ids(index, sensor):
                self.by_task_id.setdefault(task_id, []).append(sensor)
            for item in _job_names(index, sensor).items():
                self.by_job_name.setdefault(item, []).append(sensor)
        #: some sensor pulls a task id of a task group (``group.task``): the submit's id is prefixed
        self.grouped = any("." in task_id for task_id in self.by_task_id)
        #: some sensor pulls a task id held in a name (``task_ids='{run_id}'`` in an f-string)
        self.named = any(is_bound_id(task_id) for task_id in self.by_task_id)

    def of(self, submit: TaskNode) -> list[TaskNode]:
        found = list(self.by_upstream.get(submit, ()))
        if submit.task_id is not None:
            found += self.by_task_id.get(submit.task_id, ())
            if self.grouped:
                qualified = group_qualified_id(self.index, submit)
                if qualified is not None:
                    found += self.by_task_id.get(qualified, ())
        elif self.named:
            bound = bound_task_id(self.index, submit)  # ``task_id=run_id``, pulled as ``'{run_id}'``
            if bound is not None:
                found += self.by_task_id.get(bound, ())
        for item in _job_names(self.index, submit).items():
            found += self.by_job_name.get(item, ())
        found += self._same_kind_next(submit)
        unique: dict[int, TaskNode] = {}
        for sensor in found:
            if sensor is not submit:
                unique.setdefault(id(sensor), sensor)
        return sorted(unique.values(), key=lambda n: (n.call.lineno, n.call.col_offset))

    def _same_kind_next(self, submit: TaskNode) -> list[TaskNode]:
        """Sensors of the submit's own kind (``SageMakerTrainingSensor`` after a
        ``SageMakerTrainingOperator``, ``BatchSensor`` after a ``BatchOperator``) that run right
        after it and name their job from nothing another task of the scope submits: the job
        name computed at run time (``job_name=setup["training_job_name"]``) is the only link the
        code shows, and the dependency plus the kind are the evidence."""
        kind = _job_kind(submit.operator)
        if kind is None:
            return []
        found = []
        for sensor in self.graph.downstream.get(submit, ()):
            if sensor.function is not None or _job_kind(sensor.operator) != kind:
                continue
            others = self.graph.data_upstream.get(sensor, set())
            if any(node is not submit and node.function is None for node in others):
                continue  # takes another operator's output: that one's job
            if any(task_id != submit.task_id for task_id in pulled_task_ids(self.index, sensor)):
                continue
            named = [v for v in (sensor.setting(n) for n in _JOB_NAMES) if v is not None]
            if any(isinstance(v, ast.Constant) or self.index.string_value(v) is not None for v in named):
                continue  # a name the code spells out, which the submit does not share (a shared one links above)
            found.append(sensor)
        return found


@lru_cache(maxsize=4096)  # a class name's answer never changes; the same classes come back file after file
def _service(qualified: str | None) -> str | None:
    """The service module of a provider's operator or sensor (``batch`` for
    ``airflow.providers.amazon.aws.sensors.batch.BatchSensor``), None for other classes."""
    if not qualified or not qualified.startswith(("airflow.providers.", "astronomer.providers.")):
        return None
    parts = qualified.split(".")
    for i, part in enumerate(parts[:-2]):
        if part in ("operators", "sensors"):
            return parts[i + 1]
    return None


#: words in a sensor's name that say it watches a resource or a file, not a job's run
_WATCHED_RESOURCES = (
    "JobFlow",
    "Cluster",
    "Application",
    "Instance",
    "Environment",
    "Endpoint",
    "Nodegroup",
    "Database",
    "Snapshot",
    "Stack",
    "Bucket",
    "Table",
    "Key",
    "Prefix",
    "File",
    "Partition",
    "Object",
)


def _service_of_other(submit: TaskNode, sensor: TaskNode) -> str | None:
    """What the sensor watches when that is not the submit's job: another service's resource
    (an ``S3KeySensor`` after a ``BatchOperator``: ``s3``), or a resource of the same service
    (``EmrJobFlowSensor`` after ``EmrAddStepsOperator``: the cluster). None when it may be the
    job, or when either class is not a provider's (in-house classes and TaskFlow poll tasks)."""
    submit_service, sensor_service = _service(submit.operator), _service(sensor.operator)
    if submit_service is None or sensor_service is None or sensor_service in _GENERIC_SENSORS:
        return None
    name = sensor.operator.rsplit(".", 1)[-1]
    resource = next((word for word in _WATCHED_RESOURCES if word in name), None)
    if resource is not None:
        return f"a {resource.lower()}"
    if _service_word(submit_service) != _service_word(sensor_service):
        return f"another service ({sensor_service})"
    return None


def _service_word(module: str) -> str:
    """The service a provider module is about: its first word, so that older providers' modules
    named per operator still match (``emr_add_steps`` and ``emr_step`` are both ``emr``)."""
    return module.split("_", 1)[0]


#: sensor modules whose sensors wait on whatever their callable, command or query checks
_GENERIC_SENSORS = frozenset({"python", "bash", "sql", "http", "base", "filesystem_python"})

_KIND_VERBS = ("Start", "Create", "Submit", "Run", "Trigger", "Execute")


@lru_cache(maxsize=4096)
def _job_kind(qualified: str | None) -> tuple[str, str] | None:
    """(service, job noun) of a provider's operator or sensor: ``SageMakerTrainingOperator``
    and ``SageMakerTrainingSensor`` are both ("sagemaker", "SageMakerTraining");
    ``EmrServerlessStartJobOperator`` and ``EmrServerlessJobSensor`` both ("emr", "EmrServerlessJob")."""
    service = _service(qualified)
    if service is None:
        return None
    name = qualified.rsplit(".", 1)[-1].removesuffix("Async")
    for suffix in ("Operator", "Sensor"):
        name = name.removesuffix(suffix)
    for verb in _KIND_VERBS:
        name = name.replace(verb, "")
    return (service.removesuffix("_async"), name) if name else None


#: arguments that name one job on both sides, submit and sensor (SageMaker, Glue, Dataproc
#: batches, QuickSight ingestions, a Fivetran connector's sync)
_JOB_NAMES = ("job_name", "batch_id", "ingestion_id", "connector_id")


def _job_names(index: ModuleIndex, node: TaskNode) -> dict[str, str]:
    """The task's job-naming arguments, as comparable text (computed once per task)."""
    names = node.__dict__.get("_job_names")
    if names is None:
        names = {}
        for name in _JOB_NAMES:
            value = node.setting(name)
            if names_something(value):
                names[name] = ast.dump(value)
        if "job_name" not in names and node.function is None:
            named = request_job_name(index, node)
            if named is not None:
                names["job_name"] = ast.dump(named)
        node.__dict__["_job_names"] = names
    return names


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
    if model is _HAND_WRITTEN:
        how = "is a hand-written submit task"
    elif model is _SDK_STARTED:
        how = f"starts a job ({submit.__dict__.get('_rj005_started')}()) and returns without waiting for it"
    elif model.keyword is not None and submit.setting(model.keyword) is None:
        # the DAG left the argument out: say it is the operator's default, not the DAG's setting
        how = f"does not wait (by default: {model.describe_no_wait()})"
    else:
        how = f"does not wait ({model.describe_no_wait()})"
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
    hand_written = model is _HAND_WRITTEN or model is _SDK_STARTED
    wait = "wait_for_termination=True" if hand_written else model.describe_wait()
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
    if hand_written:
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
