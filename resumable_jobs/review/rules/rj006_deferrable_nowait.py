"""RJ006: ``deferrable=True`` together with ``wait_for_termination=False``.

Why: an operator only defers while it waits for the job. With the wait switched off it returns
as soon as the job is accepted, so ``deferrable=True`` does nothing and the task is the
fire-and-forget submit it was probably meant to replace (spec section 6). The fix is to make it
wait, which then frees the worker while the Triggerer polls.

How: any call that passes ``deferrable=True`` and ``wait_for_termination=False`` or
``wait_for_completion=False`` as literals; a task whose flags are set after construction
(``run.deferrable = True``, or ``run.wait_for_completion = False`` on a task that defers by
keyword, ``default_args`` or class); and a task that switches waiting off in a file whose
``default_args`` turn ``deferrable`` on, or whose class always defers (astronomer-providers'
``*Async`` operators). The finding is on the wait setting, the one to change.

What it does not do: follow values through variables; a flag that is not a literal is left
alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.facts import plugin_class_name
from resumable_jobs.review.findings import ERROR, Finding
from resumable_jobs.review.index import ModuleIndex, keyword, module_dict
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.taskgraph import task_graphs

__all__ = ["RULE", "WAIT_KEYWORDS"]

WAIT_KEYWORDS = ("wait_for_termination", "wait_for_completion")


def _literal(kw: ast.keyword | None, value: bool) -> bool:
    return kw is not None and isinstance(kw.value, ast.Constant) and kw.value.value is value


def check(index: ModuleIndex) -> Iterator[Finding]:
    text = index.source_text
    # with neither word, only an in-house subclass of an ``*Async`` operator of another module can defer
    waits_off = "wait_for_termination" in text or "wait_for_completion" in text
    if "deferrable" not in text and "Async" not in text and not (waits_off and index.imports_local_code):
        return
    defers_by_default = _default_args_defer(index)
    reset = _reset_after_construction(index)
    for site in index.calls:
        call = site.node
        waits = [(name, wait) for name in WAIT_KEYWORDS if _literal(wait := keyword(call, name), False)]
        if not waits:
            continue
        deferrable = keyword(call, "deferrable")
        if not (
            _literal(deferrable, True)
            or (defers_by_default and deferrable is None and _is_task(call))
            or _deferrable_by_construction(index, call)
        ):
            continue
        for name, wait in waits:
            if (id(call), name) not in reset:
                yield _finding(index, wait, name)
    if any(
        isinstance(value, ast.Constant) and (attr == "deferrable" or (attr in WAIT_KEYWORDS and value.value is False))
        for _, attr, value, _, _ in index.attribute_sets
    ):
        yield from _after_construction(index, defers_by_default)


def _reset_after_construction(index: ModuleIndex) -> set[tuple[int, str]]:
    """(call id, wait keyword) of tasks whose wait keyword a later ``task.attr = ...`` replaces
    (``start.wait_for_completion = True``): the attribute decides, not the keyword."""
    if not any(attr in WAIT_KEYWORDS for _, attr, _, _, _ in index.attribute_sets):
        return set()
    return {
        (id(call), name)
        for graph in task_graphs(index, min_tasks=1)
        for node in graph.nodes
        for name in WAIT_KEYWORDS
        if name in node.overrides
        for call in node.calls
    }


def _after_construction(index: ModuleIndex, defers_by_default: bool) -> Iterator[Finding]:
    """Flags set on the task after it is built (``run.wait_for_completion = False``): the
    task defers by a keyword or attribute, by the file's ``default_args``, or by its class."""
    for graph in task_graphs(index, min_tasks=1):
        for node in graph.nodes:
            if not node.overrides:
                continue
            deferrable = node.setting("deferrable")
            if deferrable is None and (
                (defers_by_default and _is_task(node.call)) or _deferrable_by_construction(index, node.call)
            ):
                deferrable = ast.Constant(value=True)
            if not (isinstance(deferrable, ast.Constant) and deferrable.value is True):
                continue
            for name in WAIT_KEYWORDS:
                wait = node.setting(name)
                if (
                    isinstance(wait, ast.Constant)
                    and wait.value is False
                    and (name in node.overrides or "deferrable" in node.overrides)
                ):
                    yield _finding(index, node.setting_node(name), name)


def _deferrable_by_construction(index: ModuleIndex, call: ast.Call) -> bool:
    """astronomer-providers' ``*Async`` operators always defer, and so do in-house subclasses of
    them (in this file, or a class of another module of the tree)."""
    name = index.resolve(call.func) or ""
    if _is_async_operator(name):
        return True
    if name not in index.classes_by_name and not index.imports_local_code and plugin_class_name(name) is None:
        return False
    return index.along_bases(name, lambda cls: True if _is_async_operator(cls or "") else None) is not None


def _is_async_operator(name: str) -> bool:
    return name.startswith("astronomer.providers.") and name.endswith("Async")


def _is_task(call: ast.Call) -> bool:
    """An operator call that default_args reach; DAG-run triggers are not external jobs."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    return keyword(call, "task_id") is not None and not name.endswith("TriggerDagRunOperator")


def _default_args_defer(index: ModuleIndex) -> bool:
    """A ``default_args`` of the file turns ``deferrable`` on for its tasks."""
    if "default_args" not in index.source_text or "deferrable" not in index.source_text:
        return False
    for site in index.calls:
        kw = keyword(site.node, "default_args")
        if kw is None:
            continue
        value = kw.value
        if isinstance(value, ast.Name):
            value = module_dict(index.tree, value.id)
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values, strict=True):
                if _is_constant(key, "deferrable") and _is_constant(item, True):
                    return True
    return False


def _is_constant(node: ast.AST | None, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value == value and type(node.value) is type(value)


def _finding(index: ModuleIndex, node: ast.AST, name: str) -> Finding:
    return make_finding(
        index,
        node,
        RULE.code,
        RULE.severity,
        f"deferrable=True has no effect with {name}=False: the task returns as soon "
        "as the job is accepted, so nothing is deferred and the task's outcome says "
        "nothing about the job's",
        _suggestion(name),
    )


def _suggestion(name: str) -> str:
    return (
        "Let the task wait; with deferrable=True the Triggerer does the waiting and the worker\n"
        "slot is freed.\n"
        "Before:\n"
        f"    deferrable=True, {name}=False,\n"
        "After:\n"
        f"    deferrable=True, {name}=True,  # deferrable alone does not imply waiting"
    )


RULE = Rule(
    code="RJ006",
    name="deferrable-without-wait",
    severity=ERROR,
    summary="deferrable=True with wait_for_termination=False (or wait_for_completion=False): nothing is deferred.",
    check=check,
)
