"""A one-pass index of a parsed DAG file that every rule reads from.

Why: the rules ask the same questions (what does this name refer to after imports and aliases,
which functions run inside a task rather than at parse time, what string does this key
expression hold) and answering them once per file keeps each rule short and the reviewer fast.

How: a single recursive walk records imports, module constants, classes, functions and every
call together with the functions that enclose it. Functions that run when a task runs (task
bodies) are worked out after the walk, because a ``python_callable=`` may name a function
defined further down the file.

What it does not do: it never imports or executes the file, does not follow imports into other
files, and does not track values through arbitrary code; an expression it cannot resolve
statically resolves to ``None`` and the rules stay silent on it.
"""

from __future__ import annotations

import ast
import builtins
import json
import os

from resumable_jobs.review.facts import EMPTY_PROJECT, ClassFacts, FunctionFacts, ProjectView, plugin_class_name

__all__ = [
    "NODE_FIELDS",
    "CallSite",
    "ModuleIndex",
    "call_name",
    "dotted_name",
    "format_template",
    "imported_function",
    "keyword",
    "module_star_imports",
    "parameter_names",
    "star_imported_function",
    "subnodes",
]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

#: Decorators that turn a function into an Airflow task (``@task``, ``@task.sensor``, ...).
TASK_DECORATORS = (
    "airflow.sdk.task",
    "airflow.decorators.task",
    "airflow.operators.python.task",
    "airflow.sdk.definitions.decorators.task",
)

#: Nodes that never contain anything a rule looks at; the walk does not enter them.
_LEAVES = (ast.Name, ast.Constant, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.alias)

#: Fields that never hold a node the walk enters (names, flags, operators, contexts).
_SKIPPED_FIELDS = frozenset(
    {"ctx", "id", "attr", "arg", "name", "names", "kind", "type_comment", "level", "module", "conversion"}
    | {"is_async", "op", "kwd_attrs", "rest", "type_ignores"}
)


def _concrete(*bases: type) -> frozenset[type]:
    found: set[type] = set()
    todo = list(bases)
    while todo:
        kind = todo.pop()
        found.add(kind)
        todo.extend(kind.__subclasses__())
    return frozenset(found)


#: Exact types skipped by the walk (it compares ``node.__class__``, which is faster than isinstance).
_LEAF_TYPES = _concrete(*_LEAVES) | {str, int, float, bool, type(None), bytes, complex}

#: node class -> the fields of it that may hold nodes to enter; every other field is skipped
#: without being read. Built once, when the module is imported.
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {
    kind: tuple(f for f in kind._fields if f not in _SKIPPED_FIELDS)
    for kind in _concrete(ast.AST)
    if kind not in _LEAF_TYPES
}
#: the same, last field first: the index walk pushes children in reverse to pop them in order
_REVERSED_CHILD_FIELDS = {kind: fields[::-1] for kind, fields in _CHILD_FIELDS.items()}


#: node class -> the fields of it that may hold nodes, for every node class (leaves included)
NODE_FIELDS: dict[type, tuple[str, ...]] = {
    kind: () if kind in _LEAF_TYPES else _CHILD_FIELDS[kind]
    for kind in _concrete(ast.AST)
    if kind not in _concrete(ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
}
NODE_FIELDS.update({ast.Import: ("names",), ast.ImportFrom: ("names",)})


def _fill_fields(node: ast.AST) -> bool:
    """Give a hand-made node (not from ast.parse) and the nodes under it the fields they lack,
    as None, so that the index walk can read fields from ``__dict__``; False if none lacked one."""
    filled = False
    for sub in ast.walk(node):
        for name in NODE_FIELDS.get(sub.__class__, ()):
            if name not in sub.__dict__:
                setattr(sub, name, None)
                filled = True
    return filled


def subnodes(node: ast.AST) -> list[ast.AST]:
    """``node`` and every node under it, in :func:`ast.walk`'s order (breadth first).

    Why not ``ast.walk``: rules walk argument values and function bodies often, and this
    reads only the fields that can hold nodes, as one loop instead of nested generators. It
    leaves out expression contexts and operator nodes (``Load``, ``Add``), which no rule
    looks for in a walk; the operator of a ``BinOp`` is still its ``op``.
    """
    found = [node]
    add = found.append
    fields_of = NODE_FIELDS
    for current in found:  # the list grows while it is read: breadth first
        for name in fields_of[current.__class__]:
            value = getattr(current, name)
            if value.__class__ is list:
                for item in value:
                    if item.__class__ in fields_of:
                        add(item)
            elif value.__class__ in fields_of:
                add(value)
    return found


def calls_in(node: ast.AST) -> list[ast.Call]:
    """Every call in ``node`` (``node`` included), in :func:`subnodes`'s order."""
    return [n for n in subnodes(node) if n.__class__ is ast.Call]


def names_in(node: ast.AST) -> list[ast.Name]:
    """Every bare name in ``node`` (``node`` included), in :func:`subnodes`'s order."""
    return [n for n in subnodes(node) if n.__class__ is ast.Name]


def plain_assignments(func: ast.AST) -> list[tuple[list[str], ast.AST]]:
    """Each ``a = b = value`` statement in ``func`` (and the functions inside it): the bare names
    it binds and the value."""
    return [
        ([t.id for t in n.targets if isinstance(t, ast.Name)], n.value)
        for n in subnodes(func)
        if n.__class__ is ast.Assign
    ]


def sleeping_while_loops(func: ast.AST) -> bool:
    """Whether ``func`` holds a ``while`` loop that calls ``sleep``."""
    return any(
        isinstance(node, ast.While) and any(call_name(c) == "sleep" for c in calls_in(node)) for node in subnodes(func)
    )


def method_of(cls: ast.ClassDef, name: str) -> FunctionNode | None:
    """The method ``name`` written in the class body, or None."""
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    return None


def class_attribute_assignments(cls: ast.ClassDef, name: str) -> list[ast.Assign | ast.AnnAssign]:
    """The statements of the class body that assign the class attribute ``name``."""
    return [
        node
        for node in cls.body
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets))
        or (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name)
    ]


def returned_last(func: FunctionNode) -> ast.AST | None:
    """The value of ``func``'s last statement when that is a ``return``, else None."""
    if not func.body or not isinstance(func.body[-1], ast.Return):
        return None
    return func.body[-1].value


def module_dict(tree: ast.Module, name: str) -> ast.Dict | None:
    """The dict the first module-level ``name = {...}`` assigns, or None."""
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Dict)
            and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
        ):
            return statement.value
    return None


def _takes_task_context(func: FunctionNode) -> bool:
    """Whether a function's parameters are the task context: ``def harvest(ds, **kwargs)``,
    ``def load(ti)``, ``def step(**context)``.

    Airflow calls a ``python_callable`` with the context's keys as arguments, so such a function
    is a task body even when the operator that calls it is in another file (a DAG folder's
    ``tasks/`` module, a ``PythonOperator`` built elsewhere). A bare ``**kwargs`` says nothing.
    """
    args = func.args
    if args.kwarg is not None and args.kwarg.arg in ("context", "ctx"):
        return True
    return any(arg.arg in _CONTEXT_KEYS for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs))


#: task context keys that only a task callable takes as parameters
_CONTEXT_KEYS = frozenset(
    {"ds", "ds_nodash", "ti", "task_instance", "execution_date", "logical_date", "dag_run"}
    | {"data_interval_start", "data_interval_end", "prev_ds", "next_ds", "templates_dict"}
)

#: Operator and sensor methods that run on a worker when the task runs.
RUNTIME_METHODS = frozenset({"execute", "poke"})


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of names and attributes, otherwise ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def call_name(call: ast.Call) -> str | None:
    """The last name of what a call calls: ``submit_run`` for ``self.hook.submit_run(...)``."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def format_template(node: ast.AST) -> str | None:
    """The literal of a ``"...".format(...)`` call, its ``{}`` holes left in; else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return node.func.value.value
    return None


#: an operator's arguments whose function runs in its task, on every try: the callable it
#: runs, and the hooks BaseOperator runs just before and after ``execute``
TASK_CALLABLE_KEYWORDS = frozenset({"python_callable", "pre_execute", "post_execute"})


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw
    return None


class CallSite:
    """A call and the functions around it, innermost last (empty at module level).

    A plain class with slots, not a dataclass: the walk makes one per call of the file.
    """

    __slots__ = ("node", "stack")

    def __init__(self, node: ast.Call, stack: tuple[FunctionNode, ...]) -> None:
        self.node = node
        self.stack = stack

    @property
    def function(self) -> FunctionNode | None:
        return self.stack[-1] if self.stack else None


class ModuleIndex:
    """What the rules need to know about one module, gathered in one walk."""

    def __init__(self, tree: ast.Module, source: str, path: str, project: ProjectView | None = None) -> None:
        self.tree = tree
        self.path = path
        #: the absolute path, as records and the project index name files
        self.abspath = os.path.abspath(path)
        #: facts about the other modules of the reviewed tree (see :mod:`.project`)
        self.project = project if project is not None else EMPTY_PROJECT
        self.source_text = source
        self._lines = source.splitlines()
        self._record_tree(tree)
        #: the last name of every call in the file; rules use it to skip files cheaply
        self.called_names = frozenset(self._call_names)
        self.functions_by_name: dict[str, list[FunctionNode]] = {}
        for func in self.functions:
            self.functions_by_name.setdefault(func.name, []).append(func)
        self.classes_by_name = {cls.name: cls for cls in self.classes}
        #: calls made directly in each function (not in functions nested in it)
        self.calls_by_function: dict[FunctionNode, list[CallSite]] = {}
        for site in self.calls:
            if site.stack:
                self.calls_by_function.setdefault(site.stack[-1], []).append(site)
        self.runtime_functions = self._find_runtime_functions()

    # -- the walk -------------------------------------------------------------------------

    def _record_tree(self, tree: ast.Module) -> None:
        """Walk the tree once and keep what the walk records (see :meth:`_walk`).

        A hand-made tree (not from ast.parse) may lack fields the walk reads from ``__dict__``:
        its fields are filled in (:func:`_fill_fields`) and the walk starts again from empty
        records. Catching that here, once per file, and not per node keeps the walk's loop short.
        """
        try:
            self._start_records()
            self._walk(tree, (), None)
        except KeyError:
            if not _fill_fields(tree):
                raise
            self._start_records()
            self._walk(tree, (), None)

    def _start_records(self) -> None:
        """Empty records for the walk to fill."""
        #: local name -> fully qualified name, from every import in the file
        self.aliases: dict[str, str] = {}
        #: module-level ``NAME = "text"`` constants
        self.constants: dict[str, str] = {}
        self.classes: list[ast.ClassDef] = []
        self.functions: list[FunctionNode] = []
        #: a method -> the class it is defined in
        self.owner_class: dict[FunctionNode, ast.ClassDef] = {}
        self.calls: list[CallSite] = []
        self.ifs: list[tuple[ast.If, tuple[FunctionNode, ...]]] = []
        #: every comparison with the functions it sits in (a switch read is compared with a yes/no literal)
        self.compares: list[tuple[ast.Compare, tuple[FunctionNode, ...]]] = []
        #: ``a >> b`` and ``a << b`` expressions (task dependencies, usually)
        self.shifts: list[tuple[ast.BinOp, tuple[FunctionNode, ...]]] = []
        #: ``name.attr = value`` statements (not ``self.``): flags set after construction
        self.attribute_sets: list[tuple[str, str, ast.AST, ast.stmt, tuple[FunctionNode, ...]]] = []
        #: ``self.attr = value`` statements inside methods (``external_id_key`` and friends)
        self.self_attribute_sets: list[tuple[str, ast.Assign, FunctionNode]] = []
        #: functions with a ``while`` loop directly in them (poll loops)
        self.functions_with_loops: set[FunctionNode] = set()
        self._local_constants: dict[FunctionNode, dict[str, str]] = {}
        #: function -> local name -> values it is bound to (see :meth:`assigned_values`)
        self.bindings: dict[FunctionNode, dict[str, list[ast.AST]]] = {}
        self._task_decorators: dict[FunctionNode, str | None] = {}
        self._call_names: set[str] = set()

    def _walk(self, root: ast.AST, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> None:
        """Record the nodes of one scope (the module, a function, a class body), in source order.

        An explicit work list instead of recursion over ast.iter_child_nodes: this loop is most
        of the reviewer's run time. Nodes are visited in pre-order (a node before the nodes
        inside it, siblings in source order); only the fields of a node that can hold nodes are
        read (:data:`_REVERSED_CHILD_FIELDS`), leaf nodes (names, constants, contexts) are never
        pushed, nodes with one child and nothing to record are stepped through
        (:data:`_WALK_STEPS`), the node types a rule needs are recorded by a handler looked up
        by exact type (:data:`_HANDLERS`), and a nested function or class is walked by its
        handler, right where it is met, with its own scope.
        """
        fields_of = _REVERSED_CHILD_FIELDS
        steps = _WALK_STEPS
        handlers = _HANDLERS
        work: list[ast.AST] = []
        push = work.append
        pop = work.pop
        node = root
        while True:
            # Push the children last to first, so that they are popped first to last. Fields are
            # read from the node's __dict__ (a third faster than getattr); ast.parse sets every
            # field, and a hand-made node that lacks one raises KeyError (see _record_tree).
            attributes = node.__dict__
            for name in fields_of[node.__class__]:
                value = attributes[name]
                if value.__class__ is list:
                    for item in reversed(value):
                        step = steps.get(item.__class__)
                        while step.__class__ is str:  # through ``keyword``, ``Attribute``, ``Expr``...
                            item = item.__dict__[step]
                            step = steps.get(item.__class__)
                        if step:
                            push(item)
                else:
                    step = steps.get(value.__class__)
                    while step.__class__ is str:
                        value = value.__dict__[step]
                        step = steps.get(value.__class__)
                    if step:
                        push(value)
            while work:
                node = pop()
                handler = handlers.get(node.__class__)
                if handler is None or handler(self, node, stack, cls):
                    break
            else:
                return

    # -- what the walk records, one handler per node type; False: the scope was walked already

    def _on_call(self, node: ast.Call, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        self.calls.append(CallSite(node, stack))
        func = node.func
        kind = func.__class__
        if kind is ast.Attribute:
            self._call_names.add(func.attr)
        elif kind is ast.Name:
            self._call_names.add(func.id)
        return True

    def _on_function(self, node: FunctionNode, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        self.functions.append(node)
        if cls is not None:
            self.owner_class[node] = cls
        self._walk(node, (*stack, node), None)
        return False

    def _on_class(self, node: ast.ClassDef, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        self.classes.append(node)
        self._walk(node, stack, node)
        return False

    def _on_if(self, node: ast.If, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        self.ifs.append((node, stack))
        return True

    def _on_compare(self, node: ast.Compare, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        self.compares.append((node, stack))
        return True

    def _on_while(self, node: ast.While, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        if stack:
            self.functions_with_loops.add(stack[-1])
        return True

    def _on_import(self, node: ast.Import, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        for alias in node.names:
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                self.aliases[head] = head
        return True

    def _on_import_from(self, node: ast.ImportFrom, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        # relative imports keep their dots (".helpers.save"): the project index resolves them
        module = "." * node.level + (node.module or "")
        if module:
            prefix = module if module.endswith(".") else module + "."
            for alias in node.names:
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = f"{prefix}{alias.name}"
        return True

    def _on_assign(self, node: ast.Assign, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        self._record_constant(node, stack)
        for target in node.targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                if target.value.id == "self" and stack:
                    self.self_attribute_sets.append((target.attr, node, stack[-1]))
                else:
                    self.attribute_sets.append((target.value.id, target.attr, node.value, node, stack))
        if stack:
            for target in node.targets:
                _bind(self.bindings.setdefault(stack[-1], {}), target, node.value)
        return True

    def _on_valued_binding(self, node, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        """``x: T = value`` and ``(x := value)``."""
        if stack and node.value is not None:
            _bind(self.bindings.setdefault(stack[-1], {}), node.target, node.value)
        return True

    def _on_unknown_binding(self, node, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        """``x += ...``, ``for x in ...``, comprehensions: bound to values not known statically."""
        if stack:
            _bind(self.bindings.setdefault(stack[-1], {}), node.target, None)
        return True

    def _on_withitem(self, node: ast.withitem, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        if stack and node.optional_vars is not None:
            _bind(self.bindings.setdefault(stack[-1], {}), node.optional_vars, None)
        return True

    def _on_binop(self, node: ast.BinOp, stack: tuple[FunctionNode, ...], cls: ast.ClassDef | None) -> bool:
        if node.op.__class__ in _SHIFTS:
            self.shifts.append((node, stack))
        return True

    def assigned_values(self, func: FunctionNode, name: str) -> list[ast.AST]:
        """Every value ``name`` is bound to directly in ``func`` (not in nested functions).

        A name bound by a loop, unpacking or ``+=`` has several entries, so "assigned exactly
        once" (one entry) is the reliable test for a known value.
        """
        return self.bindings.get(func, {}).get(name, [])

    def bound_value(self, name: str, stack: tuple[FunctionNode, ...] = ()) -> ast.AST | None:
        """The one value ``name`` holds where code inside ``stack`` runs, or None.

        The innermost function that takes ``name`` as a parameter (then the caller provides it:
        unknown) or binds it decides; else the module's own statements, through ``with``, ``if``
        and ``try`` blocks. A name bound several times, by a loop or by unpacking, or nowhere,
        holds no one known value.
        """
        found = self.binding(name, stack)
        return found[0] if found is not None else None

    def binding(self, name: str, stack: tuple[FunctionNode, ...] = ()) -> tuple[ast.AST, ast.AST] | None:
        """:meth:`bound_value` with the scope that binds it: (value, function or module tree)."""
        for func in reversed(stack):
            if name in parameter_names(func):
                return None
            values = self.assigned_values(func, name)
            if values:
                return (values[0], func) if len(values) == 1 else None
        values = self._module_bindings().get(name, ())
        return (values[0], self.tree) if len(values) == 1 else None

    def _module_bindings(self) -> dict[str, list[ast.AST]]:
        """Values bound to each name by the module's own statements (not in functions or
        classes), worked out on first use: few files ask."""
        table = self.__dict__.get("_module_binding_table")
        if table is None:
            table = {}
            todo = list(self.tree.body)
            while todo:
                stmt = todo.pop()
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                if isinstance(stmt, ast.Assign):
                    for target in stmt.targets:
                        _bind(table, target, stmt.value)
                elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                    _bind(table, stmt.target, stmt.value)
                elif isinstance(stmt, (ast.AugAssign, ast.For, ast.AsyncFor)):
                    _bind(table, stmt.target, None)
                for field in ("body", "orelse", "finalbody", "handlers"):
                    todo.extend(getattr(stmt, field, ()))
            self.__dict__["_module_binding_table"] = table
        return table

    def stack_of(self, call: ast.Call) -> tuple[FunctionNode, ...]:
        """The functions around a call of the file, innermost last (empty at module level)."""
        stacks = self.__dict__.get("_call_stacks")
        if stacks is None:
            stacks = self.__dict__["_call_stacks"] = {site.node: site.stack for site in self.calls}
        return stacks.get(call, ())

    def _record_constant(self, node: ast.Assign, stack: tuple[FunctionNode, ...]) -> None:
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            return
        for target in node.targets:
            if isinstance(target, ast.Name):
                table = self._local_constants.setdefault(stack[-1], {}) if stack else self.constants
                table[target.id] = node.value.value

    # -- runtime (task body) functions ----------------------------------------------------

    def _find_runtime_functions(self) -> frozenset[FunctionNode]:
        runtime: set[FunctionNode] = set()
        imports_airflow = any(name.startswith("airflow") for name in self.aliases.values())
        for func in self.functions:
            method = func in self.owner_class
            if (
                self.is_task_function(func)
                or (method and func.name in RUNTIME_METHODS)
                or (imports_airflow and not method and _takes_task_context(func))
            ):
                runtime.add(func)
        text = self.source_text
        if "python_callable" in text or "_execute" in text:  # a text search costs less than a look at every call
            for site in self.calls:
                for kw in site.node.keywords:
                    if kw.arg in TASK_CALLABLE_KEYWORDS and isinstance(kw.value, ast.Name):
                        runtime.update(self.functions_by_name.get(kw.value.id, ()))
        return frozenset(self._follow_helpers(runtime))

    def _follow_helpers(self, runtime: set[FunctionNode]) -> set[FunctionNode]:
        """Add the file's own functions that runtime code calls, transitively.

        A task body that calls ``remember_job(job_id)`` runs ``remember_job`` on the worker, so
        its Variable calls are the task's. Plain names call module functions; ``self.name()``
        inside a method calls a method of the same class.
        """
        todo = list(runtime)
        while todo:
            func = todo.pop()
            for callee in self._callees(func):
                if callee not in runtime:
                    runtime.add(callee)
                    todo.append(callee)
        return runtime

    def methods_named(self, cls: ast.ClassDef, name: str) -> list[FunctionNode]:
        """The methods called ``name`` defined directly in ``cls``."""
        return [f for f in self.functions_by_name.get(name, ()) if self.owner_class.get(f) is cls]

    def reached_from(self, func: FunctionNode) -> set[FunctionNode]:
        """``func`` and every function of this module it calls, transitively."""
        return self._follow_helpers({func})

    @property
    def imports_local_code(self) -> bool:
        """Whether the file imports a module of the reviewed tree (helpers, constants, operators).

        When it does not, no name of the file can lead to another module of the tree, so every
        question to the project index has the answer "unknown" without being asked.
        """
        found = self.__dict__.get("_imports_local_code")
        if found is None:
            found = self.project.imports_local_code(self.abspath, set(self.aliases.values()))
            self.__dict__["_imports_local_code"] = found
        return found

    def class_facts(self, qualified: str) -> ClassFacts | None:
        """What the project index knows of a class this file names (a base, an operator):
        a class of another module of the tree, or of ``plugins/`` imported through Airflow 1's
        plugin namespace (``airflow.operators.<plugin>.<Class>``)."""
        if self.imports_local_code:
            found = self.project.class_facts(self.abspath, qualified)
            if found is not None:
                return found
        plugin = plugin_class_name(qualified)
        if plugin is not None:
            return self.project.plugin_class(self.abspath, plugin)
        return None

    def along_bases(self, name: str | None, look, depth: int = 0):
        """``look(class name)`` for the class, then for its bases (classes of this file, or of the
        tree the project index knows), depth first: the first answer that is not None. In-house
        operators subclass a known operator a few levels down; more than five levels is a loop.
        Shared by the rules that ask what an in-house class is (RJ005, RJ006, RJ009)."""
        found = look(name)
        if found is not None or not name or depth > 5:
            return found
        for base in self._base_names(name):
            found = self.along_bases(base, look, depth + 1)
            if found is not None:
                return found
        return None

    def _base_names(self, name: str) -> list[str]:
        cls = self.classes_by_name.get(name)
        if cls is not None:
            return [self.resolve(b) or "" for b in cls.bases]
        facts = self.class_facts(name)
        return list(facts.bases) if facts is not None else []

    def line_text(self, line: int) -> str:
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""

    def _callees(self, func: FunctionNode) -> list[FunctionNode]:
        found = []
        for site in self.calls_by_function.get(func, ()):
            found.extend(self.called_functions(site.node, func))
        return found

    def called_functions(self, call: ast.Call, caller: FunctionNode | None) -> list[FunctionNode]:
        """The functions of this file a call made in ``caller`` runs: module-level functions of
        its name (``load(...)``), or, in a method, the class's methods it calls on ``self``, and
        the methods of a helper class of the file it calls on an attribute of ``self`` that
        ``__init__`` binds once to an instance of it (``self.state = Keeper(context)``, then
        ``self.state.save(page)``)."""
        target = call.func
        if isinstance(target, ast.Name):
            return [f for f in self.functions_by_name.get(target.id, ()) if f not in self.owner_class]
        if isinstance(target, ast.Attribute) and caller is not None:
            receiver = target.value
            if isinstance(receiver, ast.Name) and receiver.id == "self":
                cls = self.owner_class.get(caller)
                if cls is not None:
                    return [f for f in self.functions_by_name.get(target.attr, ()) if self.owner_class.get(f) is cls]
            elif (
                isinstance(receiver, ast.Attribute)
                and isinstance(receiver.value, ast.Name)
                and receiver.value.id == "self"
                and self.self_attribute_sets
            ):
                helper = self._helper_held_in(self.owner_class.get(caller), receiver.attr)
                if helper is not None:
                    return self.methods_named(helper, target.attr)
        return []

    def self_attribute_value(self, cls: ast.ClassDef | None, attr: str) -> tuple[ast.AST, FunctionNode] | None:
        """The one value ``self.<attr>`` is given in ``cls``, with the ``__init__`` that gives it:
        an attribute assigned once in the class's methods, and in ``__init__``; else None."""
        table = self.__dict__.get("_self_attribute_values")
        if table is None:
            table = {}
            for name, node, func in self.self_attribute_sets:
                table.setdefault((self.owner_class.get(func), name), []).append((node, func))
            self.__dict__["_self_attribute_values"] = table
        bound = table.get((cls, attr), ()) if cls is not None else ()
        if len(bound) != 1 or bound[0][1].name != "__init__" or len(bound[0][0].targets) != 1:
            return None
        return bound[0][0].value, bound[0][1]

    def _helper_held_in(self, cls: ast.ClassDef | None, attr: str) -> ast.ClassDef | None:
        """The class of this file whose instance ``__init__`` of ``cls`` keeps in ``self.<attr>``."""
        bound = self.self_attribute_value(cls, attr)
        value = bound[0] if bound is not None else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            helper = self.classes_by_name.get(value.func.id)
            return helper if helper is not cls else None
        return None

    def task_decorator(self, func: FunctionNode) -> str | None:
        """The resolved task decorator of ``func`` (``airflow.sdk.task.sensor``...), or None.

        Asked about every function by several rules, so it is worked out once per function.
        """
        cache = self._task_decorators
        if func in cache:
            return cache[func]
        found = None
        for decorator in func.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = self.resolve(target)
            if name and any(name == d or name.startswith(d + ".") for d in TASK_DECORATORS):
                found = name
                break
        cache[func] = found
        return found

    def is_task_function(self, func: FunctionNode) -> bool:
        return self.task_decorator(func) is not None

    def in_runtime(self, stack: tuple[FunctionNode, ...]) -> bool:
        """True when code at this position runs inside a task, not when the DAG file is parsed."""
        return any(func in self.runtime_functions for func in stack)

    # -- names and values -----------------------------------------------------------------

    def resolve(self, node: ast.AST) -> str | None:
        """The qualified name an expression refers to through the file's imports.

        ``V.get`` with ``from airflow.models import Variable as V`` resolves to
        ``airflow.models.Variable.get``. A name that is not imported comes back unchanged.
        """
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.aliases.get(head)
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target

    def string_value(self, node: ast.AST | None, stack: tuple[FunctionNode, ...] = ()) -> str | None:
        """The text a key expression holds, with ``{}`` where an f-string inserts a value.

        Handles literals, module constants, constants assigned in an enclosing function,
        f-strings, ``"a" + b`` and ``"...".format(...)``. Anything else is unknown (``None``).
        """
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            for func in reversed(stack):
                local = self._local_constants.get(func, {})
                if node.id in local:
                    return local[node.id]
            if node.id in self.constants:
                return self.constants[node.id]
            return self._imported_constant(node)
        if isinstance(node, ast.Attribute):
            return self._imported_constant(node)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                if isinstance(value, ast.Constant):
                    parts.append(str(value.value))
                else:
                    parts.append("{}")
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.string_value(node.left, stack)
            right = self.string_value(node.right, stack)
            if left is None and right is None:
                return None
            return (left if left is not None else "{}") + (right if right is not None else "{}")
        return format_template(node)

    def inserted_text(self, node: ast.JoinedStr, stack: tuple[FunctionNode, ...] = ()) -> str:
        """An f-string's text with the string constants it inserts written in (a constant of the
        file, of a function around it, or of another module of the tree: ``f"{PREFIX}_offset"``),
        and ``{}`` for any other value, or one inserted with a conversion or a format spec."""
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
                continue
            text = None
            if (
                isinstance(value, ast.FormattedValue)
                and value.conversion == -1
                and value.format_spec is None
                and isinstance(value.value, (ast.Constant, ast.Name, ast.Attribute))
            ):
                text = self.string_value(value.value, stack)
            parts.append(text if text is not None and "{}" not in text else "{}")
        return "".join(parts)

    def _imported_constant(self, node: ast.AST) -> str | None:
        """A string constant of another module of the tree (``from keys import JOB_ID_KEY``)."""
        name = dotted_name(node)
        if name is None or name.split(".")[0] not in self.aliases or not self.imports_local_code:
            return None
        return self.project.constant(self.abspath, self.resolve(node) or name)

    def display_key(self, node: ast.AST | None, stack: tuple[FunctionNode, ...] = ()) -> str:
        """A key as source in a message: ``"etl_cursor"`` when known, else ``f"{t}_cursor"``."""
        if node is None:
            return "?"
        if isinstance(node, (ast.JoinedStr, ast.BinOp, ast.Call)):
            return ast.unparse(node)
        value = self.string_value(node, stack)
        return json.dumps(value) if value is not None else ast.unparse(node)

    def position(self, node: ast.AST) -> tuple[int, int]:
        """1-based (line, column) of a node, the column counted in characters."""
        line = node.lineno  # type: ignore[attr-defined]
        offset = node.col_offset  # type: ignore[attr-defined]
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        if not text.isascii():
            offset = len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))
        return line, offset + 1

    def calls_in_runtime(self) -> list[CallSite]:
        """The calls that run inside a task, in source order (computed once)."""
        found = self.__dict__.get("_runtime_calls")
        if found is None:
            runtime = self.runtime_functions
            found = [site for site in self.calls if site.stack and not runtime.isdisjoint(site.stack)]
            self.__dict__["_runtime_calls"] = found
        return found


def _bind(table: dict[str, list[ast.AST]], target: ast.AST, value: ast.AST | None) -> None:
    """Record that ``target`` is bound to ``value`` (None: to values not known statically)."""
    if isinstance(target, ast.Name) and value is not None:
        table.setdefault(target.id, []).append(value)
        return
    for name in subnodes(target):  # unpacking, loops, augmented: many values, none known
        if isinstance(name, ast.Name):
            table.setdefault(name.id, []).extend((target, target))


def parameter_names(func: ast.AST) -> set[str]:
    """The names a function (or lambda) takes as parameters, ``*args`` and ``**kwargs`` included."""
    args = getattr(func, "args", None)
    if not isinstance(args, ast.arguments):
        return set()
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    return names


_SHIFTS = frozenset({ast.RShift, ast.LShift})

#: node type -> what the walk records for it (see ``ModuleIndex._walk``)
_HANDLERS = {
    ast.Call: ModuleIndex._on_call,
    ast.FunctionDef: ModuleIndex._on_function,
    ast.AsyncFunctionDef: ModuleIndex._on_function,
    ast.ClassDef: ModuleIndex._on_class,
    ast.If: ModuleIndex._on_if,
    ast.Compare: ModuleIndex._on_compare,
    ast.While: ModuleIndex._on_while,
    ast.Import: ModuleIndex._on_import,
    ast.ImportFrom: ModuleIndex._on_import_from,
    ast.Assign: ModuleIndex._on_assign,
    ast.AnnAssign: ModuleIndex._on_valued_binding,
    ast.NamedExpr: ModuleIndex._on_valued_binding,
    ast.AugAssign: ModuleIndex._on_unknown_binding,
    ast.For: ModuleIndex._on_unknown_binding,
    ast.AsyncFor: ModuleIndex._on_unknown_binding,
    ast.comprehension: ModuleIndex._on_unknown_binding,
    ast.withitem: ModuleIndex._on_withitem,
    ast.BinOp: ModuleIndex._on_binop,
}


def _walk_step(kind: type) -> bool | str:
    """What the index walk does with a child of this type (see :data:`_WALK_STEPS`)."""
    fields = _CHILD_FIELDS[kind]
    if kind in _HANDLERS:
        return True
    if len(fields) == 1 and fields[0] in _ONE_NODE_FIELDS.get(kind, ()):
        return fields[0]
    return bool(fields)


#: fields that hold one node (not a list), for the types the walk may step through
_ONE_NODE_FIELDS = {
    ast.Attribute: ("value",),
    ast.Await: ("value",),
    ast.Expr: ("value",),
    ast.Return: ("value",),
    ast.Starred: ("value",),
    ast.UnaryOp: ("operand",),
    ast.Yield: ("value",),
    ast.YieldFrom: ("value",),
    ast.arg: ("annotation",),
    ast.keyword: ("value",),
}

#: node type -> True: push it (it has a handler, or children); a field name: step through to
#: that field's node (one child, nothing to record: ``keyword``, ``Attribute``, ``Expr``);
#: False or absent: skip it (a leaf, or a node with nothing inside, like ``Pass``).
_WALK_STEPS: dict[type, bool | str] = {kind: _walk_step(kind) for kind in _CHILD_FIELDS}


# -- names another module of the tree defines (asked of the project view) ---------------------


def module_star_imports(tree: ast.Module) -> tuple[str, ...]:
    """The modules a module imports everything from at module level, as written (``.tasks``)."""
    return tuple(
        "." * node.level + (node.module or "")
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
    )


def star_imported_function(index, node: ast.AST) -> tuple[str, FunctionFacts] | None:
    """A bare name a file neither defines nor imports by name, found in a module of the tree the
    file star-imports (``from user_function import *``, then ``python_callable=set_dates``),
    with the name it has there: Python binds it from that module.

    Costs nothing for files without ``import *`` in their text.
    """
    if not isinstance(node, ast.Name) or node.id in index.aliases or node.id in index.functions_by_name:
        return None
    stars = index.__dict__.get("_local_star_imports")
    if stars is None:  # once per file
        stars = module_star_imports(index.tree) if "import *" in index.source_text else ()
        if stars and not index.project.imports_local_code(index.abspath, stars):
            stars = ()
        index.__dict__["_local_star_imports"] = stars
    if not stars or hasattr(builtins, node.id):
        return None
    for star in stars:
        qualified = f"{star}{node.id}" if star.endswith(".") else f"{star}.{node.id}"
        facts = index.project.function(index.abspath, qualified)
        if facts is not None:
            return qualified, facts
    return None


def imported_function(index, node: ast.AST) -> tuple[str, FunctionFacts] | None:
    """The function of another module of the tree that ``node`` names, through the file's imports
    (``helpers.load``, ``load`` from ``from helpers import load``) or a star import: its qualified
    name and what the project index knows of it."""
    local = dotted_name(node)
    if not local or local.split(".")[0] not in index.aliases:
        return star_imported_function(index, node)
    if not index.imports_local_code:
        return None
    qualified = index.resolve(node)
    facts = index.project.function(index.abspath, qualified) if qualified else None
    return (qualified, facts) if facts is not None else None
