"""RJ008: a state store value that is not JSON, and naive ``utcnow()`` timestamps for watermarks.

Why: ``task_state_store`` and ``asset_state_store`` accept JSON values only (str, int, float,
bool, list, dict) and reject ``None`` (spec sections 3, 4 and 8). A datetime, a ``Decimal``, a
set or an instance of the DAG's own class fails when the task writes it, which is usually the
moment it checkpoints a job id, so the checkpoint is lost. ``datetime.utcnow()`` returns a
naive timestamp; as a watermark it compares wrongly with aware ones and is deprecated.

How: for ``.set``/``.aset`` on a store (``context["task_state_store"]``,
``asset_state_store[ASSET]``, a parameter named ``task_state_store``/``asset_state_store``, or
a local name bound to one of those), the value is checked when it is a literal, a call whose
result type is known (``datetime.now()``, ``date.today()``, ``Decimal(...)``, ``uuid4()``, a
class of the same file), a run date from the context (``context["logical_date"]``,
``data_interval_end``), a dict or list holding one of those, or a local name assigned once from
one of those. ``datetime.utcnow()`` is reported where it feeds a store value, a watermark
Variable or a name that says watermark.

What it does not do: guess the type of arbitrary calls (``compute()`` may well return a dict),
or report ``.isoformat()``/``str()`` conversions, which are the fix.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from resumable_jobs.review.findings import ERROR, WARNING, Finding
from resumable_jobs.review.index import (
    FunctionNode,
    ModuleIndex,
    call_name,
    calls_in,
    names_in,
    parameter_names,
    plain_assignments,
)
from resumable_jobs.review.keys import KeyKind, classify
from resumable_jobs.review.rules.base import Rule, make_finding
from resumable_jobs.review.variables import argument, is_variable_call

__all__ = ["RULE"]

_STORE_NAMES = frozenset({"task_state_store", "asset_state_store"})
_RUN_DATES = frozenset(
    {
        "logical_date",
        "data_interval_start",
        "data_interval_end",
        "prev_data_interval_start_success",
        "prev_data_interval_end_success",
        "prev_start_date_success",
        "prev_end_date_success",
        "start_date",
    }
)
_UTCNOW = frozenset({"datetime.datetime.utcnow", "datetime.datetime.utcfromtimestamp"})
_DATETIME_CALLS = (
    frozenset(
        {
            "datetime.datetime",
            "datetime.datetime.now",
            "datetime.datetime.today",
            "datetime.datetime.fromtimestamp",
            "datetime.datetime.fromisoformat",
            "datetime.datetime.strptime",
            "datetime.datetime.combine",
            "datetime.date",
            "datetime.date.today",
            "datetime.date.fromisoformat",
            "datetime.time",
            "pendulum.now",
            "pendulum.today",
            "pendulum.datetime",
            "pendulum.parse",
            "pendulum.instance",
            "airflow.utils.timezone.utcnow",
            "airflow.sdk.timezone.utcnow",
            "airflow.utils.timezone.datetime",
            "airflow.sdk.timezone.datetime",
        }
    )
    | _UTCNOW
)
_OTHER_TYPES = {
    "datetime.timedelta": "a timedelta",
    "decimal.Decimal": "a Decimal",
    "uuid.uuid4": "a UUID object",
    "uuid.uuid1": "a UUID object",
    "uuid.UUID": "a UUID object",
    "pathlib.Path": "a Path object",
    "set": "a set",
    "frozenset": "a frozenset",
    "bytes": "bytes",
    "bytearray": "bytes",
}


class _Checker:
    """Walks the runtime functions of one module and keeps the state of one review."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.reported_utcnow: set[ast.Call] = set()

    # -- what a value is ---------------------------------------------------------------

    def bad_value(self, node: ast.AST, func: FunctionNode, depth: int = 0) -> tuple[str, ast.Call | None] | None:
        """(what is wrong, the utcnow call behind it if any) for a non-JSON value, else None."""
        if depth > 4:
            return None
        if isinstance(node, ast.Constant):
            if node.value is None:
                return "None", None
            if isinstance(node.value, bytes):
                return "bytes", None
            return None
        if isinstance(node, (ast.Set, ast.SetComp)):
            return "a set", None
        if isinstance(node, ast.Tuple):
            return "a tuple", None
        if isinstance(node, (ast.Dict, ast.List)):
            items = node.values if isinstance(node, ast.Dict) else node.elts
            for item in items:
                inner = self.bad_value(item, func, depth + 1) if item is not None else None
                if inner is not None:
                    container = "a dict" if isinstance(node, ast.Dict) else "a list"
                    return f"{container} holding {inner[0]}", inner[1]
            return None
        if isinstance(node, ast.Call):
            return self._bad_call(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left = self.bad_value(node.left, func, depth + 1)
            if left is not None and left[0] == "a datetime":
                return left
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            if node.slice.value in _RUN_DATES:
                return "a datetime", None
            return None
        if isinstance(node, ast.Name):
            values = self._assigned(func).get(node.id)
            if values is None:
                if node.id in _RUN_DATES and node.id in parameter_names(func):
                    return "a datetime", None
                return None
            if len(values) == 1:
                return self.bad_value(values[0], func, depth + 1)
        return None

    def _bad_call(self, call: ast.Call) -> tuple[str, ast.Call | None] | None:
        name = self.index.resolve(call.func)
        if name in _DATETIME_CALLS:
            return "a datetime", call if name in _UTCNOW else None
        if name in _OTHER_TYPES:
            return _OTHER_TYPES[name], None
        if name in self.index.classes_by_name:
            return f"a {name} object", None
        return None

    def _assigned(self, func: FunctionNode) -> dict[str, list[ast.AST]]:
        return self.index.bindings.get(func, {})

    # -- what a receiver is -------------------------------------------------------------

    def is_store(self, node: ast.AST, stack: tuple[FunctionNode, ...], depth: int = 0) -> bool:
        if depth > 4:
            return False
        if isinstance(node, ast.Name):
            if node.id in _STORE_NAMES:
                return True
            for func in reversed(stack):
                values = self._assigned(func).get(node.id)
                if values:
                    return len(values) == 1 and self.is_store(values[0], stack, depth + 1)
            return False
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Constant) and node.slice.value in _STORE_NAMES:
                return True  # context["task_state_store"]
            return (isinstance(node.value, ast.Name) and node.value.id == "asset_state_store") or (
                self.is_store(node.value, stack, depth + 1)
            )  # asset_state_store[ORDERS]
        if isinstance(node, ast.Call) and call_name(node) == "get" and node.args:
            first = node.args[0]
            return isinstance(first, ast.Constant) and first.value in _STORE_NAMES  # context.get(...)
        return False


def check(index: ModuleIndex) -> Iterator[Finding]:
    names = index.called_names
    if not names & {"set", "aset", "utcnow", "utcfromtimestamp"}:
        return
    checker = _Checker(index)
    for site in index.calls_in_runtime():
        call, func = site.node, site.stack[-1]
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("set", "aset"):
            if not checker.is_store(call.func.value, site.stack):
                continue
            value = argument(call, 1, "value")
            if value is None:
                continue
            bad = checker.bad_value(value, func)
            if bad is not None:
                what, utcnow = bad
                if utcnow is not None:
                    checker.reported_utcnow.add(utcnow)
                key = index.string_value(argument(call, 0, "key"), site.stack) or "..."
                yield make_finding(
                    index,
                    call,
                    RULE.code,
                    RULE.severity,
                    _value_message(key, what, utcnow),
                    _value_suggestion(key, what),
                )
    if names & {"utcnow", "utcfromtimestamp"}:
        yield from _utcnow_findings(index, checker)


def _utcnow_findings(index: ModuleIndex, checker: _Checker) -> Iterator[Finding]:
    watermark_values: set[ast.AST] = set()
    for site in index.calls_in_runtime():
        call = site.node
        is_store_set = (
            isinstance(call.func, ast.Attribute)
            and call.func.attr in ("set", "aset")
            and checker.is_store(call.func.value, site.stack)
        )
        is_watermark_variable = (
            is_variable_call(index, call) == "set"
            and classify(index.string_value(argument(call, 0, "key"), site.stack)) is KeyKind.WATERMARK
        )
        if is_store_set or is_watermark_variable:
            value = argument(call, 1, "value")
            if value is not None:
                watermark_values.update(_expand(value, site.stack[-1], checker))
    # a name that says watermark: in any function of the file, not only task bodies (a helper of
    # a utils module that builds the watermark record is as naive wherever it is called from)
    for func in index.functions:
        for names, value in plain_assignments(func):
            if any(classify(name) is KeyKind.WATERMARK for name in names):
                watermark_values.add(value)
    seen: set[ast.Call] = set()
    for value in watermark_values:
        for node in calls_in(value):
            if index.resolve(node.func) in _UTCNOW and node not in checker.reported_utcnow and node not in seen:
                seen.add(node)
    for node in sorted(seen, key=lambda n: (n.lineno, n.col_offset)):
        yield make_finding(
            index,
            node,
            RULE.code,
            WARNING,
            "datetime.utcnow() makes a naive timestamp for a watermark: it carries no time zone, "
            "compares wrongly with aware timestamps and is deprecated",
            "Use an aware timestamp, stored as ISO text.\n"
            "Before:\n"
            "    watermark = datetime.utcnow().isoformat()\n"
            "After:\n"
            "    watermark = datetime.now(tz=timezone.utc).isoformat()",
        )


def _expand(value: ast.AST, func: FunctionNode, checker: _Checker) -> list[ast.AST]:
    """The value and, for a local name assigned once, the expression it was assigned."""
    result = [value]
    for node in names_in(value):
        values = checker._assigned(func).get(node.id)
        if values and len(values) == 1:
            result.append(values[0])
    return result


def _value_message(key: str, what: str, utcnow: ast.Call | None) -> str:
    naive = " (and datetime.utcnow() is naive)" if utcnow is not None else ""
    return (
        f"state store value for '{key}' is {what}{naive}: the store accepts only JSON values "
        "(str, int, float, bool, list, dict) and rejects None, so this write fails when the task runs"
    )


def _value_suggestion(key: str, what: str) -> str:
    if what.endswith("None"):
        before, after = f'store.set("{key}", None)', f'store.delete("{key}")  # or store a real value'
    elif "datetime" in what:
        before = f'store.set("{key}", datetime.now(tz=timezone.utc))'
        after = f'store.set("{key}", datetime.now(tz=timezone.utc).isoformat())'
    else:
        before = f'store.set("{key}", value)'
        after = f'store.set("{key}", json_friendly(value))  # e.g. str(...), float(...), a dict of fields'
    return f"Convert to a JSON value before storing.\nBefore:\n    {before}\nAfter:\n    {after}"


RULE = Rule(
    code="RJ008",
    name="state-store-value",
    severity=ERROR,
    summary=(
        "task_state_store/asset_state_store .set() with a datetime, a custom object or None; "
        "datetime.utcnow() for watermarks."
    ),
    check=check,
)
