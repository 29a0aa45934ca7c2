"""What a job request names and what it renders: the reading behind RJ005's job names and RJ009's
per-try values.

Why: rules ask questions of what the reading layer found, rather than walking trees themselves
(issue 24). A request is where a job is named (SageMaker's ``config={"TrainingJobName": ...}``)
and where a durable operator's fingerprint comes from.

How: :func:`request_job_name` reads an operator's ``config`` request (written in the call, bound
once to a name, or returned by a helper of the file); :func:`per_try_value` walks an argument's
value, and names bound once in the file two levels deep, for a Jinja expression or a call whose
value differs on every try or every parse.

What it does not do: follow requests built at run time, or names bound more than once.
"""

from __future__ import annotations

import ast
import re

from resumable_jobs.review.index import ModuleIndex, keyword, parameter_names, subnodes
from resumable_jobs.review.taskgraph import TaskNode

__all__ = ["PER_PARSE_CALLS", "PER_TRY", "names_something", "per_try_value", "request_job_name"]

JINJA = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
PER_TRY = re.compile(r"try_number|\b(?:ti|task_instance)\.start_date|\bnow\(\)|utcnow\(\)|\buuid|\brandom\b")
PER_PARSE_CALLS = frozenset(
    {
        "uuid.uuid4",
        "uuid.uuid1",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "time.time",
        "time.time_ns",
        "pendulum.now",
        "random.random",
        "random.randint",
    }
)


def per_try_value(index: ModuleIndex, value: ast.AST, call: ast.Call, depth: int = 0) -> str | None:
    for node in subnodes(value):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "{{" in node.value:
            for expression in JINJA.findall(node.value):
                match = PER_TRY.search(expression)
                if match is not None:
                    return f"{{{{{expression.strip()}}}}}".replace("{{", "{{ ", 1).replace("}}", " }}")
        elif isinstance(node, ast.Call) and index.resolve(node.func) in PER_PARSE_CALLS:
            return f"{ast.unparse(node)} (evaluated each time the DAG file is parsed)"
        elif isinstance(node, ast.Name) and depth < _NAME_DEPTH:
            bound = index.bound_value(node.id, index.stack_of(call))
            if bound is not None:
                what = per_try_value(index, bound, call, depth + 1)
                if what is not None:
                    return what if " (through " in what else f"{what} (through {node.id})"
    return None


#: how many names deep a request is followed (``json=payload``, ``payload = {"task": TASK}``)
_NAME_DEPTH = 2


def names_something(value: ast.AST | None) -> bool:
    return value is not None and not (isinstance(value, ast.Constant) and not isinstance(value.value, str))


def request_job_name(index: ModuleIndex, node: TaskNode) -> ast.AST | None:
    """The job name inside an operator's request, the way SageMaker operators take it: a
    ``config`` dict (written in the call, or a name bound once to one) whose ``...JobName`` key
    (``TrainingJobName``, ``ProcessingJobName``, ``HyperParameterTuningJobName``; a transform
    job's ``Transform.TransformJobName``, one level down) names the job the sensor's
    ``job_name=`` names. A request built at run time, or a key bound twice, names nothing."""
    config = node.setting("config")
    if isinstance(config, ast.Name):
        config = index.bound_value(config.id, index.stack_of(node.call))
    if isinstance(config, ast.Call):
        return _built_request_job_name(index, config)
    return _job_name_in(config)


def _built_request_job_name(index: ModuleIndex, call: ast.Call) -> ast.AST | None:
    """``config=training_config(JOB)`` with ``def training_config(name): return {"TrainingJobName":
    name, ...}`` (a function of this file): the argument the call hands to that parameter, or the
    value written in the dict when it takes none of the parameters."""
    if not isinstance(call.func, ast.Name):
        return None
    funcs = index.called_functions(call, None)
    if len(funcs) != 1 or not funcs[0].body or not isinstance(funcs[0].body[-1], ast.Return):
        return None
    func = funcs[0]
    named = _job_name_in(func.body[-1].value)
    if named is None:
        return None
    params = parameter_names(func)
    if isinstance(named, ast.Name) and named.id in params:
        kw = keyword(call, named.id)
        if kw is not None:
            return kw.value
        positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
        position = positional.index(named.id) if named.id in positional else None
        if (
            position is not None
            and position < len(call.args)
            and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
        ):
            return call.args[position]
        return None
    return None if any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(named)) else named


def _job_name_in(config: ast.AST | None) -> ast.AST | None:
    if not isinstance(config, ast.Dict):
        return None
    inner: list[ast.Dict] = []
    for key, value in zip(config.keys, config.values):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            if key.value.endswith("JobName") and names_something(value):
                return value
            if isinstance(value, ast.Dict):
                inner.append(value)
    for nested in inner:
        for key, value in zip(nested.keys, nested.values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.endswith("JobName"):
                return value if names_something(value) else None
    return None
