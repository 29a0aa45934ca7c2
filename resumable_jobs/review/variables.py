"""Every ``Variable.get``/``Variable.set`` that runs inside a task, with its key resolved.

Why: three rules (RJ001 per-run state, RJ003 hand-written reconnect, RJ004 watermarks) look at
the same Variable calls and need the same facts: which key, read or write, in which function,
and whether any task in the file writes that key. Collecting them here keeps those rules about
their own decision only.

How: a call counts when its receiver resolves, through the file's imports and aliases, to one
of Airflow's ``Variable`` classes (``airflow.models``, ``airflow.models.variable``,
``airflow.sdk``). The key comes from the first positional argument or ``key=``.

Besides the calls themselves, :func:`runtime_variable_records` gives plain records (path,
position, key, read or write, the function it runs in) for every Variable use a task makes:
calls in the task, in the file's helpers it calls, in helpers of other modules it imports
(through the project index), and Jinja reads (``{{ var.value.key }}``, ``{{ var.json.key }}``)
in operator arguments. Records travel between processes, so RJ001 and RJ004 decide over the
whole reviewed tree: a key one task writes and another reads is seen even across files.

What it does not do: Variable calls at module level run when the DAG file is parsed, not per
run; they are a different problem (parse-time cost) and are not collected.
"""

from __future__ import annotations

import ast
import json
import os
import re
import zlib
from collections import namedtuple

from resumable_jobs.review.facts import FunctionFacts, plugin_class_name
from resumable_jobs.review.index import (
    RUNTIME_METHODS,
    CallSite,
    FunctionNode,
    ModuleIndex,
    call_name,
    dotted_name,
    format_template,
    keyword,
    parameter_names,
    returned_last,
    star_imported_function,
    subnodes,
)
from resumable_jobs.review.keys import (
    classify,
    names_a_date,
    names_a_place,
    names_an_offset,
    names_progress,
    names_which_run_only,
)
from resumable_jobs.review.noqa import noqa_codes

__all__ = [
    "VARIABLE_CLASSES",
    "VariableAccess",
    "VariableRecord",
    "argument",
    "function_id",
    "identity_key",
    "is_variable_call",
    "runtime_variable_accesses",
    "runtime_variable_records",
    "variable_records_of",
]

VARIABLE_CLASSES = frozenset(
    {
        "airflow.models.Variable",
        "airflow.models.variable.Variable",
        "airflow.sdk.Variable",
        "airflow.sdk.definitions.variable.Variable",
    }
)

_OPERATIONS = {"get": "get", "set": "set", "setdefault": "get", "update": "set"}


class VariableAccess(namedtuple("VariableAccess", "site op key kind value shown_key")):
    """One Variable call of a module: its call site, ``op`` ("get" or "set"), the key's text
    and kind when known, the value written (for "set"), and ``shown_key``, the key as shown in
    messages: its text, or its source when it is built at run time."""

    __slots__ = ()

    @property
    def node(self) -> ast.Call:
        return self.site.node

    @property
    def function(self) -> FunctionNode:
        return self.site.stack[-1]


def argument(call: ast.Call, position: int, name: str) -> ast.AST | None:
    """The argument passed at ``position`` or as ``name=``, whichever the call uses."""
    args = call.args
    if len(args) > position:
        for arg in args[: position + 1]:  # a loop, not any(): this runs for most calls a rule reads
            if arg.__class__ is ast.Starred:
                break
        else:
            return args[position]
    kw = keyword(call, name)
    return kw.value if kw is not None else None


def key_text(index: ModuleIndex, node: ast.AST | None, stack: tuple[FunctionNode, ...] = ()) -> str | None:
    """A Variable key's text: :meth:`ModuleIndex.string_value`, and, for a key it leaves with
    ``{}`` holes, the key in full when every part inserted is a string constant of the file or of
    another module (``f"{PREFIX}_partition"``, ``"{}_offset".format(TABLE)``, a local name bound
    once to one of those). A part computed at run time (``ds``, a parameter) leaves the holes, for
    the f-string written at the call and for a name bound once to it alike (``key =
    f"watermark_{symbol}"``, then ``Variable.set(key, ...)``)."""
    key = index.string_value(node, stack)
    if key is not None and "{}" not in key:
        return key
    if key is None and isinstance(node, ast.Attribute):
        return _class_constant(index, node, stack)
    if key is None and isinstance(node, ast.Call):
        return _returned_key(index, node)
    if key is None and not isinstance(node, ast.Name):
        return None
    full = _built_key(index, node, stack, 0)
    if full is None and key is None:
        bound = index.bound_value(node.id, stack)
        if isinstance(bound, ast.JoinedStr):  # ``key = f"watermark_{symbol}"``: read as the f-string
            text = key_text(index, bound, stack)
            return text if text and text.strip("{}_") else None
        return _returned_key(index, bound)
    return full if full is not None else key


def _returned_key(index: ModuleIndex, call: ast.AST | None) -> str | None:
    """The key a helper function of the file builds and returns, called for the key or for a
    name bound once to the key (``var = _key_name(task, "id")`` with ``return
    f"watermark_{task}_{source}_{kind}"``): its text, with ``{}`` for what the caller passes."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return None
    helpers = [f for f in index.functions_by_name.get(call.func.id, ()) if f not in index.owner_class]
    if len(helpers) != 1:
        return None
    returned = returned_last(helpers[0])
    if not isinstance(returned, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call)):
        return None
    text = index.string_value(returned, (helpers[0],))
    return text if text and text.strip("{}_") else None


def _class_constant(index: ModuleIndex, node: ast.Attribute, stack) -> str | None:
    """``self.KEY`` in a method, with ``KEY = "s3_checkpoint"`` in its class's body (assigned once
    there, and never on an instance)."""
    if not (isinstance(node.value, ast.Name) and node.value.id == "self" and stack):
        return None
    cls = index.owner_class.get(stack[-1])
    if cls is None or any(attr == node.attr for attr, _, _ in index.self_attribute_sets):
        return None
    values = [
        statement.value
        for statement in cls.body
        if isinstance(statement, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == node.attr for t in statement.targets)
    ]
    if len(values) == 1 and isinstance(values[0], ast.Constant) and isinstance(values[0].value, str):
        return values[0].value
    return None


def _built_key(index: ModuleIndex, node: ast.AST | None, stack, depth: int) -> str | None:
    if isinstance(node, ast.JoinedStr):
        text = index.inserted_text(node, stack)
        return None if "{}" in text else text
    template = format_template(node)
    if template is not None and not node.keywords and template.count("{}") == template.count("{") == len(node.args):
        texts = [_constant_part(index, arg, stack) for arg in node.args]
        return None if None in texts else template.format(*texts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = (
            _constant_part(index, n, stack) or _built_key(index, n, stack, depth) for n in (node.left, node.right)
        )
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Name) and depth == 0:
        value = index.bound_value(node.id, stack)
        return _built_key(index, value, stack, 1) if value is not None else None
    return None


def _constant_part(index: ModuleIndex, node: ast.AST, stack) -> str | None:
    """A string constant inserted in a key: a literal, or a constant of the file or another module."""
    if not isinstance(node, (ast.Constant, ast.Name, ast.Attribute)):
        return None
    text = index.string_value(node, stack)
    return text if text is not None and "{}" not in text else None


def is_variable_call(index: ModuleIndex, call: ast.Call) -> str | None:
    """``"get"`` or ``"set"`` when ``call`` is a Variable read or write, else ``None``."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _OPERATIONS:
        return None
    if index.resolve(func.value) not in VARIABLE_CLASSES:
        return None
    return _OPERATIONS[func.attr]


def runtime_variable_accesses(index: ModuleIndex) -> list[VariableAccess]:
    cached = getattr(index, "_variable_accesses", None)
    if cached is not None:
        return cached
    accesses: list[VariableAccess] = []
    if "Variable" not in index.source_text:  # every way to reach the class names it
        index._variable_accesses = accesses  # type: ignore[attr-defined]
        return accesses
    sites = index.calls_in_runtime()
    extra = _helper_methods(index)
    if extra:
        sites = sites + [site for method in extra for site in index.calls_by_function.get(method, ())]
    for site in sites:
        op = is_variable_call(index, site.node)
        if op is None:
            continue
        call = site.node
        key_node = argument(call, 0, "key")
        value = argument(call, 1, "value")
        key = key_text(index, key_node, site.stack)
        shown = index.display_key(key_node, site.stack)
        accesses.append(VariableAccess(site, op, key, classify(key), value if op == "set" else None, shown))
    index._variable_accesses = accesses  # type: ignore[attr-defined]
    return accesses


def _helper_methods(index: ModuleIndex) -> dict[FunctionNode, set[FunctionNode]]:
    """Methods of a helper class of this file that task code calls through an instance
    (``store = CursorStore(); store.save(...)``, a module-level ``STORE = CursorStore()``,
    ``CursorStore().load()``), with the methods they call on ``self``: method -> the task
    functions whose code calls it. Operator classes are left out (their ``execute()`` already
    runs in a task); a name bound more than once is not followed. Once per file."""
    cached = index.__dict__.get("_helper_methods")
    if cached is not None:
        return cached
    found: dict[FunctionNode, set[FunctionNode]] = {}
    index.__dict__["_helper_methods"] = found
    runtime = index.runtime_functions
    classes = {
        statement.name: statement
        for statement in index.tree.body
        if isinstance(statement, ast.ClassDef)
        and not any(f in runtime for f in statement.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)))
    }
    if not classes:
        return found
    roots = _plain_task_roots(index)
    for site in index.calls_in_runtime():
        target = site.node.func
        if isinstance(target, ast.Name) and target.id in classes:  # ``Pager(context)`` runs its ``__init__``
            cls, name = classes[target.id], "__init__"
        elif not isinstance(target, ast.Attribute) or target.attr.startswith("__"):
            continue
        elif isinstance(target.value, ast.Name) and target.value.id in classes:  # ``CursorStore.load()``
            cls, name = classes[target.value.id], target.attr
        else:
            cls, name = _class_built(_receiver_value(index, site), classes), target.attr
        if cls is None:
            continue
        callers = set()
        for func in site.stack:
            callers |= roots.get(func, set())
        for method in index.methods_named(cls, name):
            for reached in index.reached_from(method):
                if reached not in runtime:
                    found.setdefault(reached, set()).update(callers)
    return found


def _receiver_value(index: ModuleIndex, site: CallSite) -> ast.AST | None:
    """What the receiver of a method call in task code stands for: the expression written there
    (``CursorStore("events").read()``), or for a name the one value it holds there
    (``STORE = CursorStore("events")``, :meth:`ModuleIndex.bound_value`)."""
    receiver = site.node.func.value  # type: ignore[attr-defined]
    return index.bound_value(receiver.id, site.stack) if isinstance(receiver, ast.Name) else receiver


def _class_built(node: ast.AST, classes: dict[str, ast.ClassDef]) -> ast.ClassDef | None:
    """The helper class ``node`` builds an instance of (``CursorStore(...)``), if any."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return classes.get(node.func.id)
    return None


def _advances(index: ModuleIndex, access: VariableAccess, accesses: list[VariableAccess]) -> bool:
    """A write whose value comes from a read of the same key in the same function, or from what a
    function of the file that reads the key returns to it (``n = _next_page()``, then
    ``Variable.set(KEY, n)``): the task that writes the key reads it there too."""
    if access.op != "set" or access.value is None or not access.key:
        return False
    reads = {a.node for a in accesses if a.op == "get" and a.key == access.key and a.function is access.function}
    readers = {
        a.function.name
        for a in accesses
        if a.op == "get" and a.key == access.key and a.function not in index.owner_class  # not a method
    } - {access.function.name}
    if readers:  # a call of a helper of the file that reads the key stands for that read
        for site in index.calls_by_function.get(access.function, ()):
            if isinstance(site.node.func, ast.Name) and site.node.func.id in readers:
                reads.add(site.node)
    if not reads:
        return False
    flow = _name_flow(index, access.function)
    derived = {name for name, (_, calls) in flow.items() if calls & reads}
    changed = bool(derived)
    while changed:  # offset = Variable.get(...); n = int(offset); Variable.set(..., n + 1)
        changed = False
        for name, (used, _) in flow.items():
            if name not in derived and used & derived:
                derived.add(name)
                changed = True
    return _uses(access.value, reads, derived)


def _name_flow(index: ModuleIndex, func: FunctionNode) -> dict[str, tuple[set[str], set[ast.AST]]]:
    """For each local name of ``func``: the names and the calls its assigned values use (once)."""
    cache = index.__dict__.setdefault("_name_flow", {})
    flow = cache.get(func)
    if flow is None:
        flow = {}
        for name, values in index.bindings.get(func, {}).items():
            used: set[str] = set()
            calls: set[ast.AST] = set()
            for value in values:
                for sub in subnodes(value):
                    if isinstance(sub, ast.Name):
                        used.add(sub.id)
                    elif isinstance(sub, ast.Call):
                        calls.add(sub)
            flow[name] = (used, calls)
        cache[func] = flow
    return flow


def _uses(node: ast.AST, reads: set[ast.Call], names: set[str]) -> bool:
    return any(sub in reads or (isinstance(sub, ast.Name) and sub.id in names) for sub in subnodes(node))


#: ``{{ var.value.key }}``, ``{{ var.json.key.field }}``, ``var.value.get('key')``
_JINJA_VAR = re.compile(r"\bvar\.(?:value|json)(?:\.get\(\s*['\"]([\w.-]+)['\"]|\.([A-Za-z_]\w*))")


class VariableRecord(
    namedtuple(
        "VariableRecord",
        "path line column op key kind shown_key function"
        " origin noqa via key_from_caller advances task_file dag tasks template switch identity upstream",
        defaults=("code", None, None, False, False, None, None, (), None, False, None, None),
    )
):
    """One Variable read or write that runs in a task, as plain data (it crosses processes).

    - ``function``: the function it runs in (see :func:`function_id`);
    - ``origin``: "code" for a call, "jinja" for a template read, "parse" for a read when the
      file is parsed (evidence for the tree-wide rules, never reported itself);
    - ``noqa``: codes silenced by a noqa comment on its line: None for none, "*" for all;
    - ``via``: when reported at a call of a helper outside the reviewed tree: "helper (file:line)";
    - ``key_from_caller``: the key is a name the caller provides (a parameter, or taken from
      one): see :func:`keys_from_callers`; for a key built around one parameter, that parameter
      as ``(name, position)`` (its position among the positional parameters, or None);
    - ``advances``: a write whose value is computed from a read of the same key in the same
      function: the value is moved on from run to run (a counter, an offset, a last-seen marker);
    - ``task_file``: for a helper of another module that a task runs (its ``python_callable``,
      or called from its body): the file of that task, so a key the helper writes and that file
      reads (another task, or the DAG definition when it is parsed) is seen as passed between
      tasks of one DAG;
    - ``dag``: in a file that defines several DAGs, the DAG whose task runs the function
      (``with DAG(...)`` block, ``dag=`` name or enclosing factory), so a key one DAG writes and
      another DAG of the same file reads is seen as published between DAGs, not passed between
      one DAG's tasks;
    - ``tasks``: for a key naming an offset, and for a key one function of the file writes and
      another reads, the functions of the DAG file whose task runs the call (the task body, and
      the body of each task that reaches a helper), so that a task reading the offset through one
      helper and writing it through another is seen moving it on from run to run (RJ004), as when
      both calls are in the task body, and a read in a helper only the writing task runs is not
      taken for another task's;
    - ``template``: for a template read, the read as written (``{{ var.json.sync_state }}``),
      which messages show instead of a call;
    - ``switch``: a read whose value is only compared with a yes/no literal
      (``Variable.get("enable_x") == "true"``, ``.lower() in ("1", "true")``): a feature switch,
      configuration whatever its key says;
    - ``identity``: for a key built only from the task instance's identity and literal text
      (``f"{ti.task_id}_{ds}"``, see :func:`identity_key`), that key with each part named
      (``"{task_id}_{ds}"``): the records of one task under the same such key are that task
      instance's own state;
    - ``upstream``: for a key naming a date or a time, when each task running the call has one
      place in its DAG: the functions of the tasks the DAG runs before them (see
      :func:`resumable_jobs.review.taskgraph.tasks_run_before`), so a time one task writes and
      only tasks after it read is seen handed on within the run; None when that is not known.
    """

    __slots__ = ()

    def silenced(self, code: str) -> bool:
        return self.noqa is not None and (self.noqa == "*" or code in self.noqa.split(","))


def function_id(index: ModuleIndex, func: FunctionNode) -> str:
    """How records name the function they run in: ``path:line:name``."""
    return f"{index.abspath}:{func.lineno}:{func.name}"


def _record(index: ModuleIndex, call: ast.Call, op: str, stack, func: FunctionNode, **extra) -> VariableRecord:
    key_node = argument(call, 0, "key")
    key = key_text(index, key_node, stack)
    line, column = index.position(call)
    from_caller = _key_from_caller(key, _key_expression(index, key_node, stack), func)
    if from_caller:
        extra.setdefault("key_from_caller", from_caller)
    if op == "get" and _is_switch(index, call, func):
        extra.setdefault("switch", True)
    if key is None or "{}" in key:
        extra.setdefault("identity", identity_key(index, key_node, stack))
    return VariableRecord(
        index.path,
        line,
        column,
        op,
        key,
        classify(key),
        index.display_key(key_node, stack),
        function_id(index, func),
        noqa=_noqa_at(index, line),
        **extra,
    )


def _record_of_access(index: ModuleIndex, access: VariableAccess, advances: bool) -> VariableRecord:
    """:func:`_record` for a call :func:`runtime_variable_accesses` already read (its key,
    kind and shown key are not worked out again)."""
    line, column = index.position(access.node)
    key_node = _key_expression(index, argument(access.node, 0, "key"), access.site.stack)
    from_caller = _key_from_caller(access.key, key_node, access.function)
    return VariableRecord(
        index.path,
        line,
        column,
        access.op,
        access.key,
        None if _points_at_a_place(access) else access.kind,
        access.shown_key,
        function_id(index, access.function),
        noqa=_noqa_at(index, line),
        key_from_caller=from_caller,
        advances=advances,
        switch=access.op == "get" and _is_switch(index, access.node, access.function),
        identity=identity_key(index, key_node, access.site.stack) if access.key is None or "{}" in access.key else None,
    )


def _points_at_a_place(access: VariableAccess) -> bool:
    """A write under a key that says only "the last successful run" whose value is named for a
    place (``Variable.set(LAST_SUCCESSFUL_RUN, run_dir)``): where that run's output is, published
    for whoever reads it next, not a time or a position. Configuration another DAG reads."""
    if access.op != "set" or not names_which_run_only(access.key):
        return False
    value = access.value
    name = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else None
    return names_a_place(name)


def _key_expression(index: ModuleIndex, node: ast.AST | None, stack: tuple[FunctionNode, ...]) -> ast.AST | None:
    """The f-string a key name is bound to once where the call runs (``watermark_key =
    f"watermark_{source}"``), so that the name is read as that f-string; else ``node``."""
    if isinstance(node, ast.Name):
        bound = index.bound_value(node.id, stack)
        if isinstance(bound, ast.JoinedStr):
            return bound
    return node


def _key_from_caller(key: str | None, node: ast.AST | None, func: FunctionNode) -> bool | tuple[str, int | None]:
    """The key is the caller's: a bare name (a parameter, or taken from one), or a key built
    around a parameter of the function and nothing else computed (``f"pipeline_state__{name}"``
    in a ``get_state(name)`` wrapper; then that parameter, see :func:`_parameter_of`):
    :func:`keys_from_callers` fills the holes."""
    if key is None:
        return isinstance(node, ast.Name)
    if "{}" not in key or not isinstance(node, ast.JoinedStr):
        return False
    inserted = [part.value for part in node.values if isinstance(part, ast.FormattedValue)]
    if len(inserted) == 1 and isinstance(inserted[0], ast.Name) and inserted[0].id in parameter_names(func):
        return _parameter_of(func, inserted[0].id)
    return False


def _parameter_of(func: FunctionNode, name: str) -> tuple[str, int | None]:
    """``name`` and its position among the positional parameters a caller passes (``self`` or
    ``cls`` first is not passed), or None when it is keyword-only."""
    positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    return name, positional.index(name) if name in positional else None


#: the parts that name a task instance: its task and DAG, its mapped index, and its run (the run's
#: id or its logical date, as the task context gives them); a try number is not one (a key with it
#: changes from try to try)
_TASK_PARTS = frozenset({"task_id", "dag_id", "map_index"})
_RUN_PARTS = frozenset({"run_id", "ds", "ds_nodash", "ts", "ts_nodash", "logical_date", "execution_date"})
_IDENTITY_PARTS = _TASK_PARTS | _RUN_PARTS
#: what the task context calls the task instance and its DAG run
_INSTANCE_NAMES = frozenset({"ti", "task_instance", "dag_run"})
#: a date written out another way is still the run's date (``logical_date.strftime("%Y%m%d")``)
_DATE_FORMATTING = frozenset({"strftime", "isoformat", "date", "replace", "to_date_string"})


def identity_key(index: ModuleIndex, node: ast.AST | None, stack: tuple[FunctionNode, ...]) -> str | None:
    """A key built only from literal text and the task instance's identity, with each part
    named: ``f"{ti.task_id}_{ds}"`` (written at the call, or held in a name bound once to it)
    gives ``"{task_id}_{ds}"``. The parts are what the task context names a task instance by:
    ``ti.task_id``, ``task_instance.map_index``, ``dag_run.run_id``, ``context["ds"]``, a task
    context parameter (``ds``, ``logical_date``), a local name or a ``self.`` attribute (bound
    once in ``__init__``) taken from one of those. Any other part (a try number, a parameter, a
    value computed at run time) gives None, and so does a key with no such part."""
    if isinstance(node, ast.Name):
        node = index.bound_value(node.id, stack)
    parts = _identity_parts(index, node, stack)
    if not parts or all(word is None for word, _ in parts):
        return None
    return "".join(text if word is None else f"{{{word}}}" for word, text in parts)


def _identity_parts(index: ModuleIndex, node: ast.AST | None, stack) -> list[tuple[str | None, str]] | None:
    """(part, literal text) pieces of a key expression: an f-string, ``a + b`` or
    ``"{}_{}".format(a, b)``; None when a piece is neither literal text nor an identity part."""
    if isinstance(node, ast.Constant):
        return [(None, node.value)] if isinstance(node.value, str) else None
    pieces: list[tuple[str | None, str]] = []
    if isinstance(node, ast.JoinedStr):
        for value in node.values:
            if isinstance(value, ast.Constant):
                pieces.append((None, str(value.value)))
                continue
            word = _identity_part(index, value.value, stack, 0) if isinstance(value, ast.FormattedValue) else None
            if word is None:
                return None
            pieces.append((word, ""))
        return pieces
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        for side in (node.left, node.right):
            found = _identity_parts(index, side, stack)
            if found is None:
                word = _identity_part(index, side, stack, 0)
                if word is None:
                    return None
                found = [(word, "")]
            pieces.extend(found)
        return pieces
    template = format_template(node)
    if template is not None and not node.keywords and template.count("{}") == template.count("{") == len(node.args):
        texts = template.split("{}")
        for text, arg in zip(texts, node.args):
            word = _identity_part(index, arg, stack, 0)
            if word is None:
                return None
            pieces.extend(((None, text), (word, "")))
        pieces.append((None, texts[-1]))
        return pieces
    return None


def _identity_part(index: ModuleIndex, node: ast.AST, stack, depth: int) -> str | None:
    """The part of a task instance's identity ``node`` holds (``"task_id"``, ``"ds"``...), or None."""
    if depth > 3:
        return None
    if isinstance(node, ast.Attribute):
        receiver = node.value
        if node.attr in _IDENTITY_PARTS and _is_task_instance(index, receiver, stack, node.attr):
            return node.attr  # ``ti.task_id``, ``dag_run.run_id``, ``self.task_id`` in an operator
        if isinstance(receiver, ast.Name) and receiver.id == "self" and stack:
            bound = index.self_attribute_value(index.owner_class.get(stack[-1]), node.attr)
            return _identity_part(index, bound[0], (bound[1],), depth + 1) if bound is not None else None
        return None
    if isinstance(node, ast.Name):
        for func in reversed(stack):
            if node.id in parameter_names(func):  # ``def extract(ti=None, ds=None)``: the task context's
                return node.id if node.id in _RUN_PARTS and node.id != "run_id" else None
        value = index.bound_value(node.id, stack)
        return _identity_part(index, value, stack, depth + 1) if value is not None else None
    looked_up = _context_lookup(node)
    if looked_up is not None:
        return looked_up if looked_up in _IDENTITY_PARTS else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _DATE_FORMATTING:
        word = _identity_part(index, node.func.value, stack, depth + 1)
        return word if word in _RUN_PARTS else None
    return None


def _is_task_instance(index: ModuleIndex, node: ast.AST, stack, attr: str) -> bool:
    """``node`` is the task instance or its DAG run: ``ti``, ``task_instance``, ``dag_run``,
    ``context["ti"]``, a name bound once to one of those; ``self`` for an operator's own
    ``task_id``/``dag_id``."""
    if isinstance(node, ast.Name):
        if node.id in _INSTANCE_NAMES:
            return True
        if node.id == "self":
            return attr in ("task_id", "dag_id")
        value = index.bound_value(node.id, stack)
        return value is not None and _context_lookup(value) in _INSTANCE_NAMES
    return _context_lookup(node) in _INSTANCE_NAMES


def _context_lookup(node: ast.AST) -> str | None:
    """The word looked up in ``X["word"]`` or ``X.get("word")`` (the task context), else None."""
    if isinstance(node, ast.Subscript):
        key = node.slice
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and not isinstance(node.args[0], ast.Starred)
    ):
        key = node.args[0]
    else:
        return None
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


#: literals a feature switch is compared with
_YES_NO = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", "y", "n", "enabled", "disabled"})


def _is_switch(index: ModuleIndex, call: ast.Call, func: FunctionNode) -> bool:
    """A read compared with a yes/no literal, in ``func`` (``Variable.get("x") == "true"``,
    ``Variable.get("x").lower() in ("1", "true")``, or a name bound to one of those reads)."""
    if not index.compares:
        return False  # nothing in the file is compared with anything
    compares = index.__dict__.setdefault("_yes_no_compares", {})
    found = compares.get(func)
    if found is None:
        # the comparisons the index walk met inside ``func`` (and the functions inside it)
        found = compares[func] = [node for node, stack in index.compares if func in stack and _compares_yes_no(node)]
    if not found:
        return False
    names = {
        name for name, values in index.bindings.get(func, {}).items() if len(values) == 1 and _wraps(values[0], call)
    }
    for compare in found:
        for side in (compare.left, *compare.comparators):
            if _wraps(side, call) or (isinstance(side, ast.Name) and side.id in names):
                return True
    return False


def _compares_yes_no(node: ast.Compare) -> bool:
    for side in (node.left, *node.comparators):
        for sub in subnodes(side):
            if isinstance(sub, ast.Constant) and (
                isinstance(sub.value, bool) or (isinstance(sub.value, str) and sub.value.lower() in _YES_NO)
            ):
                return True
    return False


def _wraps(node: ast.AST, call: ast.Call) -> bool:
    """``node`` is ``call``, or ``call`` seen through ``.lower()``, ``str()``, ``bool()``..."""
    while True:
        if node is call:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
            node = node.func.value  # Variable.get("x").lower()
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
            node = node.args[0]  # str(Variable.get("x"))
        else:
            return False


def variable_records_of(index: ModuleIndex, functions, entry: FunctionNode | None = None) -> list[VariableRecord]:
    """Records for the Variable calls made directly in ``functions`` (helpers of a module).

    With ``entry`` (the helper another module calls; ``functions`` are those it reaches), a key
    an inner helper takes as a parameter is read from the calls ``functions`` make to it
    (``load_checkpoint()`` calling ``_raw("orders_checkpoint")``); the entry's own parameter
    keys stay for the caller to provide."""
    records = []
    for func in functions:
        for site in index.calls_by_function.get(func, ()):
            op = is_variable_call(index, site.node)
            if op is not None:
                records.append(_record(index, site.node, op, site.stack, func))
    if entry is None or not any(r.key_from_caller for r in records):
        return records
    calls: dict[str, list[ast.Call]] = {}
    for func in functions:
        for site in index.calls_by_function.get(func, ()):
            if isinstance(site.node.func, ast.Name):
                calls.setdefault(site.node.func.id, []).append(site.node)
    top = function_id(index, entry)
    result = []
    for record in records:
        if record.key_from_caller and record.function != top:
            result.extend(
                keys_from_callers(record, calls.get(record.function.rsplit(":", 1)[-1], ()), index) or [record]
            )
        else:
            result.append(record)
    return result


def runtime_variable_records(index: ModuleIndex) -> list[VariableRecord]:
    """Every Variable use that runs in a task of this file, wherever the call is written."""
    cached = index.__dict__.get("_variable_records")
    if cached is not None:
        return cached
    text = index.source_text
    if "Variable" not in text and "var." not in text and "import *" not in text and not index.imports_local_code:
        index.__dict__["_variable_records"] = []
        return []
    accesses = runtime_variable_accesses(index)
    records = [_record_of_access(index, a, _advances(index, a, accesses)) for a in accesses]
    records = _with_caller_keys(index, records)
    records = _with_tasks(index, records)
    records += _helper_records(index)
    records += _jinja_records(index)
    if any(r.op == "set" for r in records):
        records += _parse_time_reads(index)
    elif "Variable" in index.source_text:
        # a module read when the DAG is parsed (a config module) can hold the read-back of a
        # date another module's task moves on: kept as evidence for RJ004 (see VariableUsage)
        records += [r for r in _parse_time_reads(index) if names_a_date(r.key)]
    if records and "DAG" in index.called_names:
        records = _with_dags(index, records)
    index.__dict__["_variable_records"] = records
    return records


def _with_dags(index: ModuleIndex, records: list[VariableRecord]) -> list[VariableRecord]:
    """Records of a file that defines two DAGs or more get the DAG whose task runs their function."""
    dag_calls = [site for site in index.calls if call_name(site.node) == "DAG"]
    if len(dag_calls) < 2:
        return records
    blocks = [
        (stmt.lineno, stmt.end_lineno or stmt.lineno)
        for stmt in index.tree.body
        if isinstance(stmt, ast.With) and any(_is_dag_call(item.context_expr) for item in stmt.items)
    ]
    dags: dict[str, set[str]] = {}
    for site in index.calls:
        kw = keyword(site.node, "python_callable")
        if kw is None or not isinstance(kw.value, ast.Name):
            continue
        dags.setdefault(kw.value.id, set()).add(_dag_label(site, blocks))
    result = []
    for record in records:
        if record.origin == "code":
            labels = dags.get(record.function.rsplit(":", 1)[-1])
            if labels and len(labels) == 1 and None not in labels:
                record = record._replace(dag=next(iter(labels)))
        elif record.origin == "jinja":  # a template read: the block its operator is written in
            block = next((start for start, end in blocks if start <= record.line <= end), None)
            if block is not None:
                record = record._replace(dag=f"with:{block}")
        result.append(record)
    return result


def _is_dag_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and call_name(node) == "DAG"


def _dag_label(site: CallSite, blocks: list[tuple[int, int]]) -> str | None:
    """Which DAG an operator call belongs to: its ``dag=`` name, the ``with DAG(...)`` block it is
    written in, or the function (a ``@dag`` function, a factory) that builds it; else unknown."""
    kw = keyword(site.node, "dag")
    if kw is not None:
        return f"name:{ast.unparse(kw.value)}"
    line = site.node.lineno
    for start, end in blocks:
        if start <= line <= end:
            return f"with:{start}"
    if site.stack:
        return f"function:{site.stack[0].lineno}"
    return None


def _parse_time_reads(index: ModuleIndex) -> list[VariableRecord]:
    """``Variable.get`` calls that run when the file is parsed (module level, a DAG factory, a
    task group function), as evidence only (origin "parse"): no rule reports them, but a key a
    task writes and the DAG definition reads is per-run state handed through a global."""
    runtime = index.runtime_functions
    found = []
    for site in index.calls:
        if site.stack and not runtime.isdisjoint(site.stack):
            continue
        if is_variable_call(index, site.node) != "get":
            continue
        key_node = argument(site.node, 0, "key")
        key = key_text(index, key_node, site.stack)
        line, column = index.position(site.node)
        where = function_id(index, site.stack[-1]) if site.stack else f"{index.abspath}:0:<module>"
        shown = index.display_key(key_node, site.stack)
        found.append(VariableRecord(index.path, line, column, "get", key, classify(key), shown, where, origin="parse"))
    return found


def _with_caller_keys(index: ModuleIndex, records: list[VariableRecord]) -> list[VariableRecord]:
    """Records whose key a caller of this file provides get the keys the callers pass."""
    if not any(r.key_from_caller for r in records):
        return records
    records = _with_shared_templates(index, records)
    by_name: dict[str, list[ast.Call]] = {}
    for site in index.calls:
        kw = keyword(site.node, "python_callable")
        if kw is not None and isinstance(kw.value, ast.Name):
            by_name.setdefault(kw.value.id, []).append(site.node)
        elif isinstance(site.node.func, ast.Name):
            by_name.setdefault(site.node.func.id, []).append(site.node)
    result = []
    for record in records:
        if not record.key_from_caller:
            result.append(record)
            continue
        name = record.function.rsplit(":", 1)[-1]
        result.extend(keys_from_callers(record, by_name.get(name, ()), index))
    return result


def _with_shared_templates(index: ModuleIndex, records: list[VariableRecord]) -> list[VariableRecord]:
    """Keys two task functions of the file build from one f-string template around a parameter
    each (``f"pull_done_{region}"`` written in ``pull(region)`` and read in ``check(region)``),
    where every call of each function in the DAG passes the same thing for it: the same
    parameter of the DAG's function (``@dag def sync(region="eu")``) or the same literal. The
    two are one key, filled with that literal, or with a token standing for that parameter of
    that DAG function (no words of its own, so the key's words stay the template's). Only when
    one of the functions writes the key and another reads it; a template one task uses, or that
    the calls fill differently or with a value computed elsewhere, is left as it was."""
    filled: dict[int, tuple[str, str]] = {}
    for n, record in enumerate(records):
        if record.origin == "code" and isinstance(record.key_from_caller, tuple) and record.key.count("{}") == 1:
            passed = _passed_by_dag(index, record)
            if passed is not None:
                filled[n] = passed
    groups: dict[tuple[str, str], list[int]] = {}
    for n, passed in filled.items():
        groups.setdefault((records[n].key, passed[0]), []).append(n)
    result = list(records)
    for (template, _), members in groups.items():
        writers = {records[n].function for n in members if records[n].op == "set"}
        readers = {records[n].function for n in members if records[n].op == "get"}
        if not writers or not readers - writers:
            continue
        for n in members:
            key = template.replace("{}", filled[n][1], 1)
            result[n] = records[n]._replace(key=key, kind=classify(key), key_from_caller=False)
    return result


def _passed_by_dag(index: ModuleIndex, record: VariableRecord) -> tuple[str, str] | None:
    """What every call of ``record``'s task function, made where the DAG is built, passes for the
    parameter its key is built around: ``(what, text to fill the key with)`` for one literal
    string or one parameter of the function the calls are made in; else None."""
    name = record.function.rsplit(":", 1)[-1]
    funcs = [f for f in index.functions_by_name.get(name, ()) if index.is_task_function(f)]
    if len(funcs) != 1 or function_id(index, funcs[0]) != record.function:
        return None
    runtime = index.runtime_functions
    found: set[tuple[str, str]] = set()
    for site in index.calls:
        call = site.node
        kw = keyword(call, "python_callable")
        target = kw.value if kw is not None else call.func
        if not (isinstance(target, ast.Name) and target.id == name):
            continue
        if not site.stack or not runtime.isdisjoint(site.stack):
            return None  # called from a task, or from module level: not a call the DAG's scope fills
        values = list({id(v): v for v in _passed_for(call, record.key_from_caller)}.values())
        if len(values) != 1:
            return None
        value, scope = values[0], site.stack[-1]
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.add((f"literal:{value.value}", value.value))
        elif isinstance(value, ast.Name) and value.id in parameter_names(scope):
            where = f"{index.abspath}:{scope.lineno}:{value.id}"
            found.add((f"parameter:{where}", f"{{{zlib.crc32(where.encode())}}}"))
        else:
            return None
    return found.pop() if len(found) == 1 else None


def keys_from_callers(record: VariableRecord, calls, index: ModuleIndex | None = None) -> list[VariableRecord]:
    """A record for each key a call hands to the function: a state-like string it passes.

    ``PythonOperator(python_callable=update_variables, op_kwargs={"UPDATE": {"HARVEST_FROM_DATE":
    ...}})`` with ``Variable.set(key, value)`` inside ``update_variables`` writes
    ``HARVEST_FROM_DATE``. Only strings whose words name run state count, so a path or a table
    name handed to the same call never becomes a key.
    """
    found: dict[str, VariableRecord] = {}
    template = record.key if record.key and "{}" in record.key else None
    parameter = record.key_from_caller if isinstance(record.key_from_caller, tuple) else None
    for call in calls:
        # the argument passed for the parameter the key is built around, when the call shows it
        # (``set_watermark("orders", ts)``, ``op_kwargs={"table_name": "orders"}``); else all
        passed = list(_passed_for(call, parameter)) if parameter is not None else []
        for node in passed or _passed_values(call):
            for text in _strings(node, index):
                key = template.replace("{}", text, 1) if template is not None else text
                kind = classify(key)
                if key not in found and (kind is not None or (template is not None and names_progress(key))):
                    found[key] = record._replace(key=key, kind=kind, shown_key=json.dumps(key), key_from_caller=False)
    if not found and template is not None:  # no caller names it: the key as the function builds it
        return [record._replace(key_from_caller=False)]
    return list(found.values())


def _passed_for(call: ast.Call, parameter: tuple[str, int | None]):
    """What ``call`` passes for one parameter: by keyword, by position, or through a
    PythonOperator's ``op_kwargs`` / ``op_args``."""
    name, position = parameter
    for kw in call.keywords:
        if kw.arg == name:
            yield kw.value
        elif kw.arg == "op_kwargs" and isinstance(kw.value, ast.Dict):
            for key, value in zip(kw.value.keys, kw.value.values):
                if isinstance(key, ast.Constant) and key.value == name:
                    yield value
        elif (
            kw.arg == "op_args"
            and isinstance(kw.value, (ast.List, ast.Tuple))
            and position is not None
            and position < len(kw.value.elts)
            and not any(isinstance(e, ast.Starred) for e in kw.value.elts)
        ):
            yield kw.value.elts[position]
    if keyword(call, "python_callable") is None and position is not None:
        passed = argument(call, position, name)
        if passed is not None and not any(isinstance(a, ast.Starred) for a in call.args[:position]):
            yield passed


def _passed_values(call: ast.Call):
    for kw in call.keywords:
        if kw.arg not in _NOT_PASSED:
            yield kw.value
    yield from call.args


_NOT_PASSED = frozenset({"task_id", "python_callable", "dag", "trigger_rule", "retries", "doc_md", "pool", "queue"})


def _strings(node: ast.AST, index: ModuleIndex | None = None):
    for sub in subnodes(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value
        elif index is not None and isinstance(sub, ast.Name) and sub.id in index.constants:
            yield index.constants[sub.id]


def _helper_records(index: ModuleIndex) -> list[VariableRecord]:
    """Variable calls in helpers of other modules that a task of this file calls."""
    stars = "import *" in index.source_text
    if not index.imports_local_code and not stars and not _imports_plugin_classes(index):
        return []  # no name of the file leads to another module of the tree
    project = index.project
    found: list[VariableRecord] = []
    seen: set[tuple[str, str]] = set()
    for site, qualified in [
        *_imported_runtime_calls(index, stars),
        *_imported_method_calls(index, stars),
        *_imported_operator_methods(index, stars),
    ]:
        todo = [(index.path, qualified)]
        while todo:
            importer, qualified = todo.pop()
            if isinstance(qualified, FunctionFacts):  # a method of an imported class
                facts = qualified
            else:
                if (importer, qualified) in seen or len(seen) > 200:
                    continue
                seen.add((importer, qualified))
                facts = project.function(importer, qualified) or project.method(importer, qualified)
            if facts is None:
                continue
            for record in _caller_keyed(facts.variable_accesses, site.node, index):
                if _tracked(record.key) or record.identity:
                    record = record._replace(tasks=_tasks_running(index, site))
                if project.is_reviewed(record.path):
                    found.append(record._replace(task_file=index.abspath))
                else:  # the helper is outside the reviewed tree: report at the call
                    line, column = index.position(site.node)
                    where = f"{facts.name} ({os.path.relpath(record.path)}:{record.line})"
                    found.append(
                        record._replace(
                            path=index.path, line=line, column=column, noqa=_noqa_at(index, line), via=where
                        )
                    )
            todo.extend((facts.path, callee) for callee in facts.calls)
    return found


def _with_tasks(index: ModuleIndex, records: list[VariableRecord]) -> list[VariableRecord]:
    """Records of offset keys, of keys of the task instance's identity, and of keys one function
    of the file writes and another reads (a hand-off between tasks, or one task's read in a helper
    it calls) made in this file's functions, with the tasks that run them."""
    shared = _read_and_written_apart(records)
    if not shared and not any(_tracked(r.key) or r.identity for r in records):
        return records
    functions = {function_id(index, f): f for f in index.functions}
    roots = _task_roots(index)
    result = []
    for record in records:
        tracked = record.key in shared or _tracked(record.key) or record.identity
        func = functions.get(record.function) if tracked else None
        if func is not None:
            record = record._replace(tasks=tuple(sorted(function_id(index, f) for f in roots.get(func, (func,)))))
        result.append(record)
    return result


def _read_and_written_apart(records: list[VariableRecord]) -> set[str]:
    """Keys that one function of the file writes and another reads."""
    writers: dict[str, set[str]] = {}
    readers: dict[str, set[str]] = {}
    for record in records:
        if record.key:
            (writers if record.op == "set" else readers).setdefault(record.key, set()).add(record.function)
    return {key for key, found in writers.items() if readers.get(key, found) - found}


def _tracked(key: str | None) -> bool:
    """Keys whose records carry the tasks that run them: offsets, and state or progress a task
    may read through one helper and write back through another (``get_state``/``set_state``)."""
    return names_an_offset(key) or names_progress(key)


def _tasks_running(index: ModuleIndex, site: CallSite) -> tuple[str, ...]:
    """The tasks of this file that run a call of an imported helper: the task bodies that reach
    the function the call is in, or, for ``python_callable=helpers.load`` given where the
    operator is built (at module level, or in a DAG or task group function: when the file is
    parsed), that operator's task."""
    if not site.stack or not index.in_runtime(site.stack):  # one task per call, two on a line too
        return (f"{index.abspath}:{site.node.lineno}:<task {site.node.col_offset}>",)
    func = site.stack[-1]
    return tuple(sorted(function_id(index, f) for f in _task_roots(index).get(func, (func,))))


def _task_roots(index: ModuleIndex) -> dict[FunctionNode, set[FunctionNode]]:
    """Each function that runs in a task -> the functions running in a task that reach it (itself
    included): the task bodies among them are where the calls it makes run. Once per file."""
    roots = index.__dict__.get("_task_roots")
    if roots is None:
        roots = {}
        for func, callers in _plain_task_roots(index).items():
            roots[func] = set(callers)
        for method, callers in _helper_methods(index).items():
            roots.setdefault(method, set()).update(callers)
        index.__dict__["_task_roots"] = roots
    return roots


def _plain_task_roots(index: ModuleIndex) -> dict[FunctionNode, set[FunctionNode]]:
    """:func:`_task_roots` without the helper classes' methods (which are worked out from it)."""
    roots = index.__dict__.get("_plain_task_roots")
    if roots is None:
        roots = {}
        for root in index.runtime_functions:
            for func in index.reached_from(root):
                roots.setdefault(func, set()).add(root)
        index.__dict__["_plain_task_roots"] = roots
    return roots


def _caller_keyed(records, call: ast.Call, index: ModuleIndex) -> list[VariableRecord]:
    result = []
    for record in records:
        result.extend(keys_from_callers(record, [call], index) if record.key_from_caller else [record])
    return result


def _imported_runtime_calls(index: ModuleIndex, stars: bool = False):
    """(call, qualified callee) for imported functions that run in a task: called from a task
    body, or handed to an operator as ``python_callable=``
    (``PythonOperator(python_callable=helpers.load)``), or to the operator an imported factory
    builds (``make_collect()``: then the callee's facts); with ``stars``, also bare names the file
    takes from a star import of a module of the tree."""
    for site in index.calls_in_runtime():
        target = _imported_name(index, site.node.func, stars)
        if target is not None:
            yield site, target
    for site in index.calls:
        kw = keyword(site.node, "python_callable")
        if kw is not None:
            target = _imported_name(index, kw.value, stars)
            if target is not None:
                yield site, target
        elif (
            (target := _imported_name(index, site.node.func, stars))
            and not index.in_runtime(site.stack)
            and (handed := index.project.factory_callable(index.path, target)) is not None
        ):
            yield site, handed  # an operator factory of another module, called when the file is parsed


def _imported_method_calls(index: ModuleIndex, stars: bool):
    """(call, method facts) for methods of classes of other modules of the tree that task code
    calls through an instance: ``CursorStore("events").read()``, or a name bound once to one,
    in the task's function or at module level (``STORE = CursorStore("events")``); and the
    ``__init__`` of such a class that task code builds an instance of (``Extractor(context)``)."""
    for site in index.calls_in_runtime():
        target = site.node.func
        name = call_name(site.node) or ""
        if name[:1].isupper():  # a class's name: building an instance runs its ``__init__``
            built, name = site.node, "__init__"
        elif not isinstance(target, ast.Attribute) or name.startswith("__"):
            continue
        else:
            built = _receiver_value(index, site)
        if not isinstance(built, ast.Call):
            continue
        qualified = _imported_name(index, built.func, stars)
        facts = index.class_facts(qualified) if qualified else None
        for method in facts.methods if facts is not None else ():
            if method.name == f"{facts.name}.{name}":
                yield site, method


def _imports_plugin_classes(index: ModuleIndex) -> bool:
    """Whether the file imports a class through Airflow 1's plugin namespace
    (``from airflow.operators.flags_plugin import DoneSensor``): a class of ``plugins/``."""
    text = index.source_text
    if "airflow.operators." not in text and "airflow.sensors." not in text:
        return False
    return any(plugin_class_name(qualified) for qualified in index.aliases.values())


def _imported_operator_methods(index: ModuleIndex, stars: bool):
    """(call, method facts) for the methods Airflow runs in the task of an operator the file
    builds from a class of another module of the tree (``DoneSensor(task_id="wait")`` with the
    class in ``plugins/``): its ``execute`` or ``poke``. They are that task's code, as they are
    for a class written in the DAG file itself. A call with no ``task_id`` builds no task."""
    for site in index.calls:
        target = site.node.func
        name = call_name(site.node) or ""
        if not name[:1].isupper() or keyword(site.node, "task_id") is None or index.in_runtime(site.stack):
            continue
        qualified = _imported_name(index, target, stars)
        facts = index.class_facts(qualified) if qualified else None
        for method in facts.methods if facts is not None else ():
            if method.name.rpartition(".")[2] in RUNTIME_METHODS:
                yield site, method


def _imported_name(index: ModuleIndex, node: ast.AST, stars: bool) -> str | None:
    local = dotted_name(node)
    if local and local.split(".")[0] in index.aliases:
        return index.resolve(node) or ""
    if stars:
        found = star_imported_function(index, node)
        if found is not None:
            return found[0]
    return None


def _noqa_at(index: ModuleIndex, line: int) -> str | None:
    return noqa_codes(index.line_text(line))


def _jinja_records(index: ModuleIndex) -> list[VariableRecord]:
    """``{{ var.value.key }}`` and ``{{ var.json.key }}`` reads in the string arguments of operator calls."""
    if "var." not in index.source_text:
        return []
    found = []
    for site in index.calls:
        if not any(kw.arg == "task_id" for kw in site.node.keywords):
            continue
        for kw in site.node.keywords:
            for node in subnodes(kw.value):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and "var." in node.value:
                    for match in _JINJA_VAR.finditer(node.value):
                        key = match.group(1) or match.group(2)
                        accessor = match.group(0).split(".")[1]  # "value" or "json"
                        line, column = index.position(node)
                        found.append(
                            VariableRecord(
                                index.path,
                                line,
                                column,
                                "get",
                                key,
                                classify(key),
                                f'"{key}"',
                                f"{index.abspath}:{site.node.lineno}:<template>",
                                origin="jinja",
                                noqa=_noqa_at(index, line),
                                template=_template_shown(accessor, key, match.group(1) is not None),
                            )
                        )
    return found


def _template_shown(accessor: str, key: str, through_get: bool) -> str:
    """A template read as written: ``{{ var.value.key }}``, or ``{{ var.value.get('key') }}``
    for a read with a default (the default itself is left out)."""
    return f"{{{{ var.{accessor}.get('{key}') }}}}" if through_get else f"{{{{ var.{accessor}.{key} }}}}"
