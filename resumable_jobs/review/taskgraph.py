"""The tasks a DAG file creates and the dependencies between them, read statically.

Why: RJ005 is about DAG shape: a submit task, a sensor on the same job, and which tasks run
after which. That needs the tasks (operator calls and TaskFlow calls), the names they are bound
to, and the edges from ``>>``/``<<``, ``chain(...)``, ``set_downstream``/``set_upstream`` and
from passing one task's output to another (``submit.output``, ``wait(submit_job())``), which
Airflow also turns into a dependency.

How: each scope that can define a DAG (the module body, and every function that is neither a
task body nor a method, such as a ``@dag`` function or a DAG factory) is read on its own, from
the calls and ``>>``/``<<`` expressions the module index already collected for it, so no
statement is walked twice. A call is a task when it passes ``task_id=`` (every operator does)
or calls a ``@task`` function of the file, including ``.override(...)``, ``.partial(...)`` and
``.expand(...)`` forms, or calls an operator factory (a function of the file, or of a module of
the tree it imports, that returns the operator it builds). Flags assigned after construction
(``run.deferrable = True``) are kept on the task as overrides of its keywords.

What it does not do: follow tasks across scopes or files, expand loops, or understand task
groups as dependency targets; a dependency it cannot read is simply absent, which can only
make RJ005 report less.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from itertools import pairwise

from resumable_jobs.review.index import (
    NODE_FIELDS,
    FunctionNode,
    ModuleIndex,
    call_name,
    imported_function,
    keyword,
    parameter_names,
    returned_last,
    subnodes,
)
from resumable_jobs.review.variables import argument, function_id

__all__ = [
    "TaskGraph",
    "TaskNode",
    "bound_task_id",
    "is_bound_id",
    "operator_factory",
    "task_graphs",
    "tasks_run_before",
]

_WRAPPERS = frozenset({"override", "partial", "expand", "expand_kwargs"})


class TaskNode:
    """One task created in a DAG scope.

    ``operator`` is the resolved operator class (``airflow.providers...BatchOperator``) of an
    operator task, ``function`` the ``@task`` function of a TaskFlow task, ``calls`` every call
    of the chain (``Op.partial(...).expand(...)``), where keywords may be, and ``overrides``
    the ``task.attr = value`` statements after construction (``submit.wait_for_completion =
    False``). Compared by identity: two tasks are never the same task. Rules keep what they
    work out about a task in its ``__dict__``.
    """

    def __init__(
        self,
        call: ast.Call,
        task_id: str | None,
        operator: str | None = None,
        function: FunctionNode | None = None,
        calls: list[ast.Call] | None = None,
        overrides: dict[str, ast.Assign] | None = None,
    ) -> None:
        self.call = call
        self.task_id = task_id
        self.operator = operator
        self.function = function
        self.calls: list[ast.Call] = calls if calls is not None else []
        self.overrides: dict[str, ast.Assign] = overrides if overrides is not None else {}
        #: how to show a task id held in a name (``task_id=run_id``), once it is worked out
        self.shown_id: str | None = None

    def setting(self, name: str) -> ast.AST | None:
        """The value ``name`` ends up with: a later attribute assignment, else the keyword."""
        if name in self.overrides:
            return self.overrides[name].value
        kw = self.keyword(name)
        return kw.value if kw is not None else None

    def setting_node(self, name: str) -> ast.AST | None:
        """Where ``name`` is set: the assignment statement or the keyword."""
        return self.overrides.get(name) or self.keyword(name)

    def keyword(self, name: str) -> ast.keyword | None:
        """The keyword ``name`` of the first call of the chain that passes it."""
        table = self.__dict__.get("_keywords")
        if table is None:  # rules ask a task for many keywords: one pass over its calls
            table = {}
            for call in self.calls:
                for kw in call.keywords:
                    if kw.arg is not None and kw.arg not in table:
                        table[kw.arg] = kw
            self.__dict__["_keywords"] = table
        return table.get(name)

    @property
    def label(self) -> str:
        return self.task_id or self.shown_id or "<task>"


class TaskGraph:
    """Tasks of one scope, with dependency edges and the subset that pass data."""

    def __init__(self) -> None:
        self.nodes: list[TaskNode] = []
        self.downstream: dict[TaskNode, list[TaskNode]] = {}
        self.data_upstream: dict[TaskNode, set[TaskNode]] = {}

    def add_edge(self, upstream: TaskNode, downstream: TaskNode, data: bool = False) -> None:
        if upstream is downstream:
            return
        targets = self.downstream.setdefault(upstream, [])
        if downstream not in targets:
            targets.append(downstream)
        if data:
            self.data_upstream.setdefault(downstream, set()).add(upstream)

    def reachable(self, start: TaskNode) -> set[TaskNode]:
        """Every task that runs after ``start`` (not including ``start``)."""
        seen: set[TaskNode] = set()
        todo = list(self.downstream.get(start, ()))
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(self.downstream.get(node, ()))
        return seen


def task_graphs(index: ModuleIndex, min_tasks: int = 2) -> Iterator[TaskGraph]:
    """The task graph of every DAG scope with at least ``min_tasks`` tasks, read once per file."""
    graphs = index.__dict__.get("_task_graphs")
    if graphs is None:
        scopes: list[ast.AST] = [index.tree]
        scopes += [f for f in index.functions if f not in index.runtime_functions and f not in index.owner_class]
        calls: dict[ast.AST, list[ast.Call]] = {}
        shifts: dict[ast.AST, list[ast.BinOp]] = {}
        for site in index.calls:
            calls.setdefault(site.stack[-1] if site.stack else index.tree, []).append(site.node)
        for node, stack in index.shifts:
            shifts.setdefault(stack[-1] if stack else index.tree, []).append(node)
        graphs = []
        for scope in scopes:
            if scope in calls:
                graph = _ScopeReader(index, calls[scope], shifts.get(scope, [])).read(scope)
                if graph.nodes:
                    graphs.append(graph)
        index.__dict__["_task_graphs"] = graphs
    for graph in graphs:
        if len(graph.nodes) >= min_tasks:
            yield graph


def tasks_run_before(index: ModuleIndex) -> dict[str, frozenset[str]]:
    """Each function that runs as exactly one task of the file's DAGs (a ``@task`` function called
    once, or a ``python_callable``) -> the functions of the tasks that run before it, by the DAG's
    dependencies (``a >> b``, ``chain``, ``set_downstream``, one task's output passed to another),
    as :func:`function_id` names them. A function run by two tasks or more, or by none, is left
    out: its place in the DAG's order is not one place. Worked out once per file."""
    order = index.__dict__.get("_tasks_run_before")
    if order is None:
        placed: dict[str, list[tuple[TaskGraph, TaskNode]]] = {}
        for graph in task_graphs(index, min_tasks=1):
            for node in graph.nodes:
                for func in [node.function] if node.function is not None else task_callables(index, node):
                    placed.setdefault(function_id(index, func), []).append((graph, node))
        run_by = {(id(graph), node): fid for fid, nodes in placed.items() for graph, node in nodes}
        order = {}
        for fid, nodes in placed.items():
            if len(nodes) != 1:
                continue
            graph, node = nodes[0]
            order[fid] = frozenset(
                run_by[(id(graph), other)]
                for other in graph.nodes
                if (id(graph), other) in run_by and node in graph.reachable(other)
            )
        index.__dict__["_tasks_run_before"] = order
    return order


class _ScopeReader:
    def __init__(self, index: ModuleIndex, calls: list[ast.Call], shifts: list[ast.BinOp]) -> None:
        self.index = index
        #: the calls and shift expressions of this scope, in source order (from the index)
        self.calls = calls
        self.shifts = shifts
        self.graph = TaskGraph()
        self.bindings: dict[str, list[TaskNode]] = {}
        self.by_call: dict[ast.Call, TaskNode] = {}

    def read(self, scope: ast.AST) -> TaskGraph:
        statements = _scope_statements(scope)
        # First every task, then the names bound to them, then the dependencies between them.
        self._collect_tasks()
        for statement in statements:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                nodes = self._operand(statement.value)
                for target in targets:
                    if isinstance(target, ast.Name) and nodes:
                        self.bindings[target.id] = nodes
            elif isinstance(statement, ast.With):
                for item in statement.items:
                    if isinstance(item.optional_vars, ast.Name):
                        nodes = self._operand(item.context_expr)
                        if nodes:
                            self.bindings[item.optional_vars.id] = nodes
        if self.index.attribute_sets or self.index.self_attribute_sets:  # ``task.attr = value`` in the file
            for statement in statements:
                self._override(statement)
        for node in self.graph.nodes:
            self._data_edges(node)
        self._dependencies()
        return self.graph

    def _override(self, statement: ast.stmt) -> None:
        if not isinstance(statement, ast.Assign):
            return
        for target in statement.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                for node in self.bindings.get(target.value.id, ()):
                    node.overrides[target.attr] = statement

    # -- tasks ------------------------------------------------------------------------

    def _collect_tasks(self) -> None:
        consumed: set[ast.Call] = set()
        for call in self.calls:  # outer calls come before the calls nested in them
            if call in consumed:
                continue
            task = self._as_task(call)
            if task is not None:
                self.graph.nodes.append(task)
                self.by_call[call] = task
                consumed.update(task.calls)

    def _as_task(self, call: ast.Call) -> TaskNode | None:
        chain = [call]
        base: ast.AST = call.func
        while isinstance(base, ast.Attribute) and base.attr in _WRAPPERS:
            inner = base.value
            if isinstance(inner, ast.Call):
                chain.append(inner)
                base = inner.func
            else:
                base = inner
                break
        if isinstance(base, ast.Name) and base.id in self.index.functions_by_name:
            for func in self.index.functions_by_name[base.id]:
                if self.index.is_task_function(func):
                    return TaskNode(call, _taskflow_id(self.index, func, chain), function=func, calls=chain)
        factory = self._factory(base)
        if factory is not None:
            # a helper that builds and returns an operator (``return EmrAddStepsOperator(...)``)
            operator, literal, param, position, inner = factory[:5]
            if inner is None and len(factory) > 5:
                inner = _construction_at(call, operator, factory[5])
            given: ast.AST | None = None
            if param is not None:
                kw = keyword(call, param)
                given = kw.value if kw is not None else None
                if given is None and position is not None and position < len(call.args):
                    given = call.args[position]
            task_id = self.index.string_value(given) if given is not None else literal
            return TaskNode(call, task_id, operator=operator, calls=chain + ([inner] if inner is not None else []))
        if any(keyword(c, "task_id") for c in chain):
            task_id_kw = next(keyword(c, "task_id") for c in chain if keyword(c, "task_id"))
            return TaskNode(
                call, self.index.string_value(task_id_kw.value), operator=self.index.resolve(base), calls=chain
            )
        return None

    def _factory(self, base: ast.AST) -> tuple | None:
        """What :func:`operator_factory` says of the function ``base`` names, a function of this
        file, or of a module of the tree it imports: then the construction is in another file,
        and a sixth item carries its keywords from the module summary."""
        index = self.index
        if isinstance(base, ast.Name):
            for func in index.functions_by_name.get(base.id, ()):
                if index.owner_class.get(func) is None and not index.is_task_function(func):
                    built = operator_factory(index, func)
                    if built is not None:
                        return built
        elif not isinstance(base, ast.Attribute):
            return None
        imported = imported_function(index, base)  # ``from steps import *`` included
        facts = imported[1] if imported is not None else None
        if facts is None or facts.returns_operator is None:
            return None
        returned = facts.returns_operator
        if returned[1] is None and facts.returns_task_id_constant:  # ``task_id=SUBMIT_ID``, imported there
            task_id = index.project.constant(facts.path, facts.returns_task_id_constant)
            if task_id is not None and "{}" not in task_id:
                returned = (returned[0], task_id, *returned[2:])
        return (*returned, None, facts.returns_settings)

    # -- edges ----------------------------------------------------------------------------

    def _operand(self, expr: ast.AST) -> list[TaskNode]:
        """The tasks an expression stands for in a dependency (``a >> b`` stands for b)."""
        if isinstance(expr, ast.Name):
            return self.bindings.get(expr.id, [])
        if isinstance(expr, ast.Call):
            if expr in self.by_call:
                return [self.by_call[expr]]
            return []
        if isinstance(expr, (ast.List, ast.Tuple)):
            return [n for elt in expr.elts for n in self._operand(elt)]
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.RShift, ast.LShift)):
            return self._operand(expr.right)
        if isinstance(expr, ast.Attribute) and expr.attr == "output":
            return self._operand(expr.value)
        return []

    def _dependencies(self) -> None:
        for node in self.shifts:
            left, right = self._operand(node.left), self._operand(node.right)
            if isinstance(node.op, ast.LShift):
                left, right = right, left
            for up in left:
                for down in right:
                    self.graph.add_edge(up, down)
        for node in self.calls:
            name = call_name(node)
            if name == "chain" and isinstance(node.func, (ast.Name, ast.Attribute)):
                self._chain(node.args)
            elif name in ("set_downstream", "set_upstream") and isinstance(node.func, ast.Attribute):
                this = self._operand(node.func.value)
                others = [n for a in node.args for n in self._operand(a)]
                for a in this:
                    for b in others:
                        if name == "set_downstream":
                            self.graph.add_edge(a, b)
                        else:
                            self.graph.add_edge(b, a)

    def _chain(self, args: list[ast.expr]) -> None:
        for left, right in pairwise(args):
            ups, downs = self._operand(left), self._operand(right)
            if isinstance(left, ast.List) and isinstance(right, ast.List) and len(ups) == len(downs):
                pairs = list(zip(ups, downs, strict=True))
            else:
                pairs = [(a, b) for a in ups for b in downs]
            for a, b in pairs:
                self.graph.add_edge(a, b)

    def _data_edges(self, task: TaskNode) -> None:
        """Using another task's output makes it upstream, as Airflow does for XComArgs."""
        for call in task.calls:
            for arg in [*call.args, *(kw.value for kw in call.keywords)]:
                kind = arg.__class__
                if kind is ast.Constant:  # most arguments: nothing inside
                    continue
                if kind is ast.Name:  # a name alone: a task it is bound to, if any
                    for upstream in self.bindings.get(arg.id, ()):
                        self.graph.add_edge(upstream, task, data=True)
                    continue
                for sub in _walk_outside_tasks(arg, self.by_call, task.call):
                    if isinstance(sub, ast.Call) and sub in self.by_call:
                        self.graph.add_edge(self.by_call[sub], task, data=True)
                    elif isinstance(sub, ast.Name) and sub.id in self.bindings:
                        for upstream in self.bindings[sub.id]:
                            self.graph.add_edge(upstream, task, data=True)


#: what :func:`operator_factory` finds: operator class, literal task id, the parameter the task id
#: comes from (name, position), the construction
Factory = tuple[str, "str | None", "str | None", "int | None", "ast.Call | None"]


def operator_factory(index: ModuleIndex, func: FunctionNode) -> Factory | None:
    """When ``func`` ends by returning an operator or sensor it builds
    (``return EmrStepSensor(task_id=task_id, ...)``, or a name the function binds once to it,
    ``task = PythonOperator(...)`` then ``return task``): the class (resolved in ``func``'s module),
    the literal task id or else the parameter the task id comes from (name and position), and
    the construction. None for anything else."""
    cache = index.__dict__.setdefault("_operator_factories", {})
    if func in cache:
        return cache[func]
    found = None
    built = returned_last(func)
    if isinstance(built, ast.Name) and built.id not in parameter_names(func):
        values = index.assigned_values(func, built.id)
        built = values[0] if len(values) == 1 else None
    if isinstance(built, ast.Call):
        name = index.resolve(built.func)
        if name and (
            name.rpartition(".")[2].endswith(("Operator", "Sensor", "SensorAsync"))
            or name.rpartition(".")[2] in index.classes_by_name
        ):
            task_id_kw = keyword(built, "task_id")
            value = task_id_kw.value if task_id_kw is not None else None
            literal = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
            param = position = None
            if isinstance(value, ast.Name):
                positional = [a.arg for a in func.args.posonlyargs + func.args.args]
                if value.id in positional or value.id in [a.arg for a in func.args.kwonlyargs]:
                    param = value.id
                    position = positional.index(value.id) if value.id in positional else None
            if literal is None and param is None and isinstance(value, (ast.Name, ast.Attribute)):
                # a string constant of the module or one it imports (``task_id=SUBMIT_ID``)
                text = index.string_value(value, (func,))
                literal = text if text is not None and "{}" not in text else None
            found = (name, literal, param, position, built)
    cache[func] = found
    return found


def _construction_at(call: ast.Call, operator: str, settings: tuple) -> ast.Call | None:
    """An operator construction of another module rebuilt from its summary (its keywords, with
    literal values kept and any other expression left unknown), placed at ``call``, the factory
    call that makes the task: rules read its wait flags and XCom templates as if written there."""
    if not settings:
        return None
    keywords = []
    for name, literal, value in settings:
        node = ast.Constant(value) if literal else ast.Name(id="_unknown_", ctx=ast.Load())
        keywords.append(ast.keyword(arg=name, value=ast.copy_location(node, call)))
        ast.copy_location(keywords[-1], call)
    rebuilt = ast.Call(func=ast.Name(id=operator.rpartition(".")[2], ctx=ast.Load()), args=[], keywords=keywords)
    return ast.copy_location(rebuilt, call)


def _taskflow_id(index: ModuleIndex, func: FunctionNode, chain: list[ast.Call]) -> str:
    for call in chain:
        if isinstance(call.func, ast.Attribute) and call.func.attr == "override":
            kw = keyword(call, "task_id")
            if kw is not None:
                return index.string_value(kw.value) or func.name
    for decorator in func.decorator_list:
        if isinstance(decorator, ast.Call):
            kw = keyword(decorator, "task_id")
            if kw is not None:
                return index.string_value(kw.value) or func.name
    return func.name


def _scope_statements(scope: ast.AST) -> list[ast.stmt]:
    """Statements of a scope in source order, entering blocks (with, if, for, try) but not
    nested functions or classes; one loop over a work list instead of recursive generators."""
    found: list[ast.stmt] = []
    work: list[ast.stmt] = list(reversed(getattr(scope, "body", [])))
    while work:
        statement = work.pop()
        found.append(statement)
        if statement.__class__ not in _BLOCKS:  # most statements hold no statements
            continue
        inner: list[ast.stmt] = []
        for field_name in ("body", "orelse", "finalbody"):
            block = getattr(statement, field_name, None)
            if block.__class__ is list:
                inner.extend(block)
        for handler in getattr(statement, "handlers", ()):  # except clauses: their bodies
            inner.extend(handler.body)
        work.extend(reversed(inner))
    return found


#: statements that hold statements the scope runs (not functions or classes: their own scopes)
_BLOCKS = frozenset(
    {ast.With, ast.AsyncWith, ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try}
    | ({ast.TryStar} if hasattr(ast, "TryStar") else set())
)


def _walk_outside_tasks(node: ast.AST, tasks: dict[ast.Call, TaskNode], own: ast.Call) -> list[ast.AST]:
    """An argument and the nodes inside it, depth first, not entering nested task calls (they
    are their own tasks) nor lambdas and functions; one loop over the node field table instead
    of nested generators (this runs for every argument of every task)."""
    found: list[ast.AST] = []
    work = [node]
    fields_of = NODE_FIELDS
    while work:
        current = work.pop()
        found.append(current)
        kind = current.__class__
        if (kind is ast.Call and current in tasks and current is not own) or kind in _OPAQUE:
            continue
        children = []
        for name in fields_of.get(kind, ()):
            value = getattr(current, name, None)
            if value.__class__ is list:
                children.extend(item for item in value if item.__class__ in fields_of)
            elif value.__class__ in fields_of:
                children.append(value)
        work.extend(reversed(children))
    return found


_OPAQUE = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)


# -- which task ids a task pulls, and task groups ---------------------------------------------


def pulled_task_ids(index: ModuleIndex, sensor: TaskNode) -> frozenset[str]:
    """Task ids whose XCom the sensor pulls, in its templates or its callable (computed once)."""
    cache = index.__dict__.setdefault("_rj005_pulls", {})
    found = cache.get(sensor.call)
    if found is None:
        ids: set[str] = set()
        follow = "xcom_pull" in index.source_text
        for call in sensor.calls:
            stack = index.stack_of(call)  # an operator factory's construction: the factory's names
            # keywords, and positional arguments (an operator factory's ``watch(cluster, "{{ ... }}")``)
            for value in [*call.args, *(kw.value for kw in call.keywords)]:
                if value.__class__ is ast.Constant:  # most arguments: a template or nothing
                    text = value.value
                    if text.__class__ is str and "xcom_pull" in text:
                        ids.update(_QUOTED.findall(text))
                    continue
                if follow and value.__class__ is ast.Name and value.id not in index.functions_by_name:
                    # a template held in a name bound once (``step_id = f"{{{{ ti.xcom_pull(...) }}}}"``);
                    # a function's name (``python_callable=is_done``) holds none
                    bound = bound_once(index, value.id, stack)
                    if isinstance(bound, (ast.Constant, ast.JoinedStr)):
                        value = bound
                for node in subnodes(value):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and "xcom_pull" in node.value:
                        ids.update(_QUOTED.findall(node.value))
                    elif isinstance(node, ast.JoinedStr):
                        # f"{{{{ ti.xcom_pull(task_ids='{SUBMIT_ID}') }}}}": the constants it inserts
                        text = index.inserted_text(node)
                        if "xcom_pull" in text:
                            ids.update(_QUOTED.findall(text))
                            if "{}" in text:
                                ids.update(_named_pulls(index, node, stack))
        for func in task_callables(index, sensor):
            ids |= _callable_pulls(index, func)
        found = cache[sensor.call] = frozenset(ids)
    return found


_QUOTED = re.compile(r"""['"]([^'"]+)['"]""")

#: the ``task_ids`` of an ``xcom_pull`` in a template: its keyword, or its first positional argument
_TASK_IDS = re.compile(r"""(?:xcom_pull\(\s*|task_ids\s*=\s*)(\[[^\]]*\]|\([^)]*\)|'[^']*'|"[^"]*")""")
#: what :func:`bound_task_id` and :func:`pulled_task_ids` give for a task id held in a name: the
#: name and where its one value is, so that two names compare equal only when they are one binding
_BOUND = "\x00"


def _named_pulls(index: ModuleIndex, node: ast.JoinedStr, stack: tuple[FunctionNode, ...]) -> list[str]:
    """Task ids an f-string template pulls by inserting a name as the whole id
    (``f"{{{{ ti.xcom_pull(task_ids='{run_id}') }}}}"``), as :func:`bound_task_id` writes them,
    when the name is bound once in its scope, outside loops (see :func:`bound_once`)."""
    parts, inserted = [], []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif (
            isinstance(value, ast.FormattedValue)
            and value.conversion == -1
            and value.format_spec is None
            and isinstance(value.value, ast.Name)
            and index.string_value(value.value) is None
        ):
            parts.append(f"\x01{len(inserted)}\x01")
            inserted.append(value.value.id)
        else:
            parts.append("{}")
    if not inserted:
        return []
    found = []
    for argument_text in _TASK_IDS.findall("".join(parts)):
        for pulled in _QUOTED.findall(argument_text):
            if pulled.startswith("\x01") and pulled.endswith("\x01") and pulled.count("\x01") == 2:
                name = inserted[int(pulled[1:-1])]
                value = bound_once(index, name, stack)
                if value is not None:
                    found.append(_bound_id(name, value))
    return found


def _bound_id(name: str, value: ast.AST) -> str:
    return f"{_BOUND}{name}@{value.lineno}:{value.col_offset}"


def is_bound_id(task_id: str) -> bool:
    """Whether a pulled task id is a name's binding (see :func:`bound_task_id`), not a text."""
    return task_id.startswith(_BOUND)


def bound_task_id(index: ModuleIndex, node: TaskNode) -> str | None:
    """A task id given as a name bound once in its scope, outside loops (``run_id =
    f"step-{name}-run"``, then ``task_id=run_id``), as :func:`pulled_task_ids` writes a template's
    pull of the same name: neither id is known, but one binding is one value. None for any
    other task id. Also sets the task's ``shown_id`` (the text of that value, ``step-{}-run``)."""
    if node.task_id is not None:
        return None
    call = next((c for c in node.calls if keyword(c, "task_id") is not None), None)
    kw = keyword(call, "task_id") if call is not None else None
    if kw is None or not isinstance(kw.value, ast.Name):
        return None
    value = bound_once(index, kw.value.id, index.stack_of(call))  # the names where it is written
    if value is None:
        return None
    node.shown_id = index.string_value(value) or kw.value.id
    return _bound_id(kw.value.id, value)


def bound_once(index: ModuleIndex, name: str, stack: tuple[FunctionNode, ...]) -> ast.AST | None:
    """The value ``name`` is bound to where code inside ``stack`` runs, when its scope (a
    function, else the module) binds it once and not inside a loop of that scope, which would
    bind it again on every pass; None otherwise (see :meth:`ModuleIndex.binding`)."""
    found = index.binding(name, stack)
    if found is None:
        return None
    value, scope = found
    loops = index.__dict__.setdefault("_loops_of_scope", {})
    spans = loops.get(scope)
    if spans is None:
        spans = loops[scope] = [
            (s.lineno, s.end_lineno or s.lineno) for s in _scope_statements(scope) if isinstance(s, _LOOPS)
        ]
    line = getattr(value, "lineno", None)
    if line is None or any(start <= line <= end for start, end in spans):
        return None
    return value


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def group_qualified_id(index: ModuleIndex, node: TaskNode) -> str | None:
    """The task id Airflow gives a task written inside task groups: ``outer.inner.task_id`` for
    a task in ``with TaskGroup("outer")`` (or a ``@task_group`` function) blocks, None outside
    any group or when a group's id is not a literal. Groups with ``prefix_group_id=False`` add
    no prefix. Only reached when a sensor pulls a dotted task id, so the groups are read then."""
    groups = _task_groups(index)
    line = node.call.lineno
    prefix = []
    for start, end, group_id in groups:
        if start <= line <= end:
            if group_id is None:
                return None
            if group_id:
                prefix.append(group_id)
    return ".".join([*prefix, node.task_id or ""]) if prefix else None


def _task_groups(index: ModuleIndex) -> list[tuple[int, int, str | None]]:
    """(first line, last line, group id) of each task group block of the file, outer first; the id
    is "" for a group that adds no prefix and None when it is not a literal."""
    groups = index.__dict__.get("_rj005_task_groups")
    if groups is not None:
        return groups
    groups = []
    for node in ast.walk(index.tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                expr = item.context_expr
                if isinstance(expr, ast.Call) and call_name(expr) == "TaskGroup":
                    groups.append((node.lineno, node.end_lineno or node.lineno, _group_id(index, expr, None)))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name == "task_group":
                    call = decorator if isinstance(decorator, ast.Call) else None
                    groups.append((node.lineno, node.end_lineno or node.lineno, _group_id(index, call, node.name)))
    groups.sort(key=lambda group: (group[0], -group[1]))
    index.__dict__["_rj005_task_groups"] = groups
    return groups


def _group_id(index: ModuleIndex, call: ast.Call | None, default: str | None) -> str | None:
    if call is None:
        return default
    prefix = next((kw.value for kw in call.keywords if kw.arg == "prefix_group_id"), None)
    if isinstance(prefix, ast.Constant) and prefix.value is False:
        return ""
    given = argument(call, 0, "group_id")
    if given is None:
        return default
    return index.string_value(given)


def task_callables(index: ModuleIndex, sensor: TaskNode) -> list[FunctionNode]:
    if sensor.function is not None:
        return [sensor.function]
    kw = sensor.keyword("python_callable")
    if kw is not None and isinstance(kw.value, ast.Name):
        return list(index.functions_by_name.get(kw.value.id, ()))
    return []


def _callable_pulls(index: ModuleIndex, func: FunctionNode) -> frozenset[str]:
    """Task ids a function pulls XCom from (computed once per function)."""
    cache = index.__dict__.setdefault("_rj005_callable_pulls", {})
    found = cache.get(func)
    if found is None:
        ids = set()
        for node in subnodes(func):
            if isinstance(node, ast.Call) and call_name(node) == "xcom_pull":
                task_ids = argument(node, 0, "task_ids")
                if task_ids is None:
                    continue
                candidates = task_ids.elts if isinstance(task_ids, (ast.List, ast.Tuple)) else [task_ids]
                ids.update(filter(None, (index.string_value(c) for c in candidates)))
        found = cache[func] = frozenset(ids)
    return found
