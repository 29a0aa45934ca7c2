"""A module's summary for the project index: what other files may ask about it.

Why: a DAG file that imports a helper from ``dags/utils/`` needs that helper's Variable calls,
job starts and operator factories, not its tree. Reading a module (:mod:`.index`, with the
per-file readers :mod:`.variables`, :mod:`.jobstart`, :mod:`.taskgraph`) and keeping only those
facts (:mod:`.facts`) lets the project index (:mod:`.project`) hold every imported module
cheaply, and keeps the direction one way: reading -> facts -> project -> rules.

What it does not do: resolve the module's own imports (a summary is made without the modules
it imports; the importer resolves qualified names through the project index).
"""

from __future__ import annotations

import ast
import os

from resumable_jobs.review.facts import ClassFacts, FunctionFacts, ModuleSummary
from resumable_jobs.review.index import (
    ModuleIndex,
    call_name,
    dotted_name,
    keyword,
    module_star_imports,
    parameter_names,
)
from resumable_jobs.review.jobstart import started_job
from resumable_jobs.review.taskgraph import operator_factory
from resumable_jobs.review.variables import keys_from_callers, variable_records_of

__all__ = ["summarise_index"]


def summarise_index(index: ModuleIndex) -> ModuleSummary:
    """The summary of a parsed module (a :class:`ModuleIndex`)."""
    stars = module_star_imports(index.tree)
    summary = ModuleSummary(index.path, dict(index.constants), aliases=dict(index.aliases), star_imports=stars)
    for func in index.tree.body:
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reached = index.reached_from(func)
            summary.functions[func.name] = FunctionFacts(
                os.path.abspath(index.path),
                func.name,
                tuple(variable_records_of(index, reached, func)),
                tuple(_imported_calls(index, reached)),
                started_job(index, [func]),
                built[:4] if (built := operator_factory(index, func)) is not None else None,
                _construction_settings(built[4]) if built is not None and built[4] is not None else (),
                _imported_task_id(index, built),
                _handed_callable(index, func, built[4]) if built is not None and built[4] is not None else None,
            )
    for cls in index.tree.body:
        if isinstance(cls, ast.ClassDef):
            bases = tuple(index.resolve(b) or "" for b in cls.bases)
            summary.classes[cls.name] = ClassFacts(
                os.path.abspath(index.path),
                cls.name,
                bases,
                started_job(index, index.methods_named(cls, "execute")),
                _method_facts(index, cls) if "Variable" in index.source_text or index.self_attribute_sets else (),
            )
    return summary


def _imported_calls(index, functions) -> list[str]:
    """Qualified names of the imported functions that ``functions`` call."""
    calls = []
    for func in functions:
        for site in index.calls_by_function.get(func, ()):
            local = dotted_name(site.node.func)
            if local and local.split(".")[0] in index.aliases:
                calls.append(index.resolve(site.node.func))
    return calls


def _handed_callable(index, factory, built: ast.Call) -> FunctionFacts | str | None:
    """The ``python_callable`` a factory's operator construction is handed, when the factory's
    module provides it (see ``FunctionFacts.returns_callable``): a module-level function of its
    own, as that operator runs it, or the qualified name of one it imports. A parameter of the
    factory (the caller's function) or a name the factory binds itself is left alone."""
    kw = keyword(built, "python_callable")
    name = dotted_name(kw.value) if kw is not None else None
    if not name:
        return None
    root = name.split(".")[0]
    if root in parameter_names(factory) or index.assigned_values(factory, root):
        return None
    if "." not in name:
        own = [f for f in index.functions_by_name.get(name, ()) if f in index.tree.body]
        if len(own) == 1:
            func = own[0]
            reached = index.reached_from(func)
            records = []
            for record in variable_records_of(index, reached, func):
                # a key the callable takes from its caller: what the construction hands over
                records.extend(keys_from_callers(record, [built], index) if record.key_from_caller else [record])
            calls = _imported_calls(index, reached)
            return FunctionFacts(os.path.abspath(index.path), func.name, tuple(records), tuple(calls))
    return index.resolve(kw.value) if root in index.aliases else None


def _imported_task_id(index, built) -> str | None:
    """The qualified name of the imported constant a factory's operator takes its task id from."""
    if built is None or built[1] is not None or built[2] is not None or built[4] is None:
        return None
    kw = keyword(built[4], "task_id")
    name = dotted_name(kw.value) if kw is not None else None
    return index.resolve(kw.value) if name and name.split(".")[0] in index.aliases else None


def _method_facts(index, cls: ast.ClassDef) -> tuple:
    """For the methods (``__init__`` included) with Variable calls, or that reach a helper class
    of another module: their facts (see :class:`ClassFacts`)."""
    found = []
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            method.name == "__init__" or not method.name.startswith("__")
        ):
            reached = index.reached_from(method)
            records = variable_records_of(index, reached, method) if "Variable" in index.source_text else []
            calls = _imported_helper_calls(index, reached)
            if records or calls:
                found.append(
                    FunctionFacts(
                        os.path.abspath(index.path), f"{cls.name}.{method.name}", tuple(records), tuple(calls)
                    )
                )
    return tuple(found)


def _imported_helper_calls(index, functions) -> list[str]:
    """The methods of classes of other modules that ``functions`` (methods of a class) run through
    an attribute ``__init__`` binds once to an instance (``self.state = Keeper(context)``, then
    ``self.state.save(...)``), and those classes' ``__init__``, as ``module.Class.method``."""
    found = []
    for func in functions:
        cls = index.owner_class.get(func)
        for site in index.calls_by_function.get(func, ()) if cls is not None else ():
            target = site.node.func
            called = call_name(site.node) or ""
            if called[:1].isupper():  # ``Keeper(context)``, ``state.Keeper(context)``: its ``__init__``
                built, name = site.node, "__init__"
            elif (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Attribute)
                and isinstance(target.value.value, ast.Name)
                and target.value.value.id == "self"
            ):
                bound = index.self_attribute_value(cls, target.value.attr)
                built, name = (bound[0] if bound is not None else None), target.attr
            else:
                continue
            local = dotted_name(built.func) if isinstance(built, ast.Call) else None
            if local and local.split(".")[0] in index.aliases:
                found.append(f"{index.resolve(built.func)}.{name}")
    return found


def _construction_settings(built: ast.Call) -> tuple:
    """The keywords of an operator construction as plain data (see ``FunctionFacts``)."""
    return tuple(
        (kw.arg, True, kw.value.value) if isinstance(kw.value, ast.Constant) else (kw.arg, False, None)
        for kw in built.keywords
        if kw.arg is not None
    )
