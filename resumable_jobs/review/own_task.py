"""Which task a piece of code runs in, and whether an XCom pull reads that task's own XCom.

Why: a retry repeats one task, so RJ002 (a job id pushed and pulled back by the same task) and
RJ003 (a pull of the task's own XCom used as the lookup before a submit) both need the unit a
retry repeats and the id it runs under. One answer keeps the two rules agreeing on what "the
same task" is.

How: the unit is the operator class for code in its methods, else the outer function that runs
as a task; its id is the ``@task(task_id=...)``, the ``task_id`` of the one operator that takes
the function as ``python_callable=``, else the function's name. Read from the file's index
only; nothing is imported or run.
"""

from __future__ import annotations

import ast

from resumable_jobs.review.index import CallSite, FunctionNode, ModuleIndex, keyword
from resumable_jobs.review.variables import argument

__all__ = ["own_task_id", "reads_own_task", "task_scope", "xcom_argument"]


def task_scope(index: ModuleIndex, stack: tuple[FunctionNode, ...]) -> object:
    """The unit a retry repeats: the operator class for methods, else the outer task function."""
    for func in stack:
        if func in index.owner_class:
            return index.owner_class[func]
    for func in stack:
        if func in index.runtime_functions:
            return func
    return stack[0]


#: positions of the arguments of ``ti.xcom_pull``/``ti.xcom_push``; an operator's own
#: ``self.xcom_pull(context, ...)``/``self.xcom_push(context, ...)`` take the context first
_XCOM_POSITIONS = {"task_ids": 0, "dag_id": 1, "key": 2}
_XCOM_PUSH_POSITIONS = {"key": 0, "value": 1}


def xcom_argument(call: ast.Call, name: str) -> ast.AST | None:
    """An argument of an ``xcom_pull`` or ``xcom_push`` call, by name, on either receiver: a task
    instance (``ti.xcom_pull(task_ids, dag_id, key)``) or the operator itself
    (``self.xcom_pull(context, task_ids, dag_id, key)``, the context first)."""
    pushing = isinstance(call.func, ast.Attribute) and call.func.attr == "xcom_push"
    position = (_XCOM_PUSH_POSITIONS if pushing else _XCOM_POSITIONS)[name]
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and receiver.id == "self" and call.args:
        position += 1
    return argument(call, position, name)


def reads_own_task(index: ModuleIndex, site: CallSite, scope: object) -> bool:
    """Whether the ``xcom_pull`` at ``site`` reads the XCom of ``scope``'s own task: no
    ``task_ids``, ``task_ids=self.task_id``, or the task's own id (written out, or a constant)."""
    task_ids = xcom_argument(site.node, "task_ids")
    if task_ids is None or (isinstance(task_ids, ast.Constant) and task_ids.value is None):
        return True
    if isinstance(task_ids, ast.Attribute) and task_ids.attr == "task_id":
        return True
    own_id = own_task_id(index, scope)
    return own_id is not None and index.string_value(task_ids, site.stack) == own_id


def own_task_id(index: ModuleIndex, scope: object) -> str | None:
    """The task id a function runs under: its ``@task(task_id=...)``, the ``task_id`` of the one
    operator that takes it as ``python_callable=``, else its name (a ``@task`` function's id)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for decorator in scope.decorator_list:
        if isinstance(decorator, ast.Call):
            kw = keyword(decorator, "task_id")
            if kw is not None:
                return index.string_value(kw.value)
    operators = [
        site.node
        for site in index.calls
        if (kw := keyword(site.node, "python_callable")) is not None
        and isinstance(kw.value, ast.Name)
        and kw.value.id == scope.name
    ]
    if len(operators) == 1 and (task_id := keyword(operators[0], "task_id")) is not None:
        return index.string_value(task_id.value)
    return scope.name
