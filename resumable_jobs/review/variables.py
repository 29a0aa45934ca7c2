"""Every ``Variable.get``/``Variable.set`` that runs inside a task, with its key resolved.

Why: three rules (RJ001 per-run state, RJ003 hand-written reconnect, RJ004 watermarks) look at
the same Variable calls and need the same facts: which key, read or write, in which function,
and whether any task in the file writes that key. Collecting them here keeps those rules about
their own decision only.

How: a call counts when its receiver resolves, through the file's imports and aliases, to one
of Airflow's ``Variable`` classes (``airflow.models``, ``airflow.models.variable``,
``airflow.sdk``). The key comes from the first positional argument or ``key=``.

What it does not do: Variable calls at module level run when the DAG file is parsed, not per
run; they are a different problem (parse-time cost) and are not collected.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from resumable_jobs.review.index import CallSite, FunctionNode, ModuleIndex, keyword
from resumable_jobs.review.keys import KeyKind, classify

__all__ = [
    "VARIABLE_CLASSES",
    "VariableAccess",
    "argument",
    "is_variable_call",
    "runtime_variable_accesses",
    "written_keys",
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


@dataclass(frozen=True)
class VariableAccess:
    site: CallSite
    op: str  # "get" or "set"
    key: str | None
    kind: KeyKind | None
    value: ast.AST | None
    #: the key as shown in messages: its text, or its source when it is built at run time
    shown_key: str

    @property
    def node(self) -> ast.Call:
        return self.site.node

    @property
    def function(self) -> FunctionNode:
        return self.site.stack[-1]


def argument(call: ast.Call, position: int, name: str) -> ast.AST | None:
    """The argument passed at ``position`` or as ``name=``, whichever the call uses."""
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    kw = keyword(call, name)
    return kw.value if kw is not None else None


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
    accesses = []
    for site in index.calls_in_runtime():
        op = is_variable_call(index, site.node)
        if op is None:
            continue
        call = site.node
        key_node = argument(call, 0, "key")
        value = argument(call, 1, "value")
        key = index.string_value(key_node, site.stack)
        shown = index.display_key(key_node, site.stack)
        accesses.append(VariableAccess(site, op, key, classify(key), value if op == "set" else None, shown))
    index._variable_accesses = accesses  # type: ignore[attr-defined]
    return accesses


def written_keys(index: ModuleIndex) -> frozenset[str]:
    """Keys that some task in this file writes with ``Variable.set``."""
    return frozenset(a.key for a in runtime_variable_accesses(index) if a.op == "set" and a.key)
