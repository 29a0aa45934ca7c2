"""The project index: what the other modules of a DAG folder define, built once per review.

Why: real DAG folders keep helpers in ``dags/utils/``, ``plugins/`` or ``include/``: a task
calls ``save_checkpoint(job_id)`` and the ``Variable.set`` is two files away; an XCom key is a
constant imported from ``common/keys.py``; an operator is a subclass of a provider operator
defined in ``plugins/operators.py``. A reviewer that reads one file at a time misses all of it.

How: before the files are reviewed, every reviewed file is scanned (as text, no parsing) for
the modules it imports. Each import is resolved the way Airflow's ``sys.path`` would resolve
it: against the importing file's folder and the folders above it, up to the repository root
(the folder holding ``.git``), plus the repository's ``plugins/``, ``include/`` and ``dags/``. Only the
modules that resolve, and what they import in turn, are parsed and summarised: their helper
functions with the Variables they read and write and the calls they make, their string
constants, their classes and bases. Rules then ask the index about an imported name. The
summaries are small, so the index is cheap to hand to worker processes.

What it does not do: import anything, follow ``sys.path`` changes made at run time, or index
installed packages; a name it cannot resolve is unknown and the rules stay silent on it.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["EMPTY_PROJECT", "ClassFacts", "FunctionFacts", "ModuleSummary", "ProjectIndex", "ProjectView"]

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import\b|import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*))", re.MULTILINE
)
#: How many import levels are followed from a reviewed file into its helpers.
_MAX_DEPTH = 3


@dataclass(frozen=True)
class FunctionFacts:
    """A module-level function of an indexed module, as far as the rules care."""

    path: str
    name: str
    #: Variable calls in the function and in the same-module helpers it calls
    variable_accesses: tuple = ()
    #: qualified names (in the defining module's namespace) of imported functions it calls
    calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClassFacts:
    path: str
    name: str
    #: qualified names of the bases, resolved in the defining module
    bases: tuple[str, ...]


@dataclass
class ModuleSummary:
    path: str
    constants: dict[str, str] = field(default_factory=dict)
    functions: dict[str, FunctionFacts] = field(default_factory=dict)
    classes: dict[str, ClassFacts] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)


class ProjectView:
    """What a rule may ask about names imported from other modules. The empty view knows nothing."""

    #: whether any indexed module defines a class (an in-house operator may come from there)
    has_classes = False
    #: whether any module was indexed at all
    has_modules = False

    def function(self, importer: str, qualified: str) -> FunctionFacts | None:
        return None

    def constant(self, importer: str, qualified: str) -> str | None:
        return None

    def class_facts(self, importer: str, qualified: str) -> ClassFacts | None:
        return None

    def is_reviewed(self, path: str) -> bool:
        return False


EMPTY_PROJECT = ProjectView()


class ProjectIndex(ProjectView):
    """Summaries of the modules the reviewed files import, keyed by absolute path."""

    def __init__(self, reviewed: Iterable[str] = ()) -> None:
        self.reviewed = frozenset(os.path.abspath(p) for p in reviewed)
        self.modules: dict[str, ModuleSummary] = {}
        self._resolved: dict[tuple[str, str, int], str | None] = {}
        self._roots: dict[str, tuple[str, ...]] = {}

    # -- building -----------------------------------------------------------------------

    @classmethod
    def build(cls, files: Iterable[str], summarise) -> ProjectIndex:
        """Index the modules ``files`` import; ``summarise(path)`` parses one into a summary."""
        files = list(files)
        index = cls(files)
        frontier = [(os.path.abspath(f), 0) for f in files]
        queued: set[str] = set()
        while frontier:
            path, depth = frontier.pop()
            if depth >= _MAX_DEPTH:
                continue
            for level, module in _imports_of(path):
                target = index.resolve_module(path, module, level)
                if target is None or target in queued:
                    continue
                queued.add(target)
                summary = summarise(target)
                if summary is not None:
                    index.modules[target] = summary
                    index.has_modules = True
                    index.has_classes = index.has_classes or bool(summary.classes)
                    frontier.append((target, depth + 1))
        return index

    # -- resolving names ----------------------------------------------------------------

    def resolve_module(self, importer: str, module: str, level: int = 0) -> str | None:
        """The file a module name refers to from ``importer``, or None."""
        key = (os.path.dirname(importer), module, level)  # files of one folder resolve alike
        if key in self._resolved:
            return self._resolved[key]
        parts = [p for p in module.split(".") if p]
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            bases: tuple[str, ...] = (base,)
        else:
            bases = self._import_roots(os.path.dirname(importer))
        found = None
        if parts:
            for base in bases:
                candidate = os.path.join(base, *parts)
                for path in (candidate + ".py", os.path.join(candidate, "__init__.py")):
                    if os.path.isfile(path):
                        found = os.path.abspath(path)
                        break
                if found:
                    break
        self._resolved[key] = found
        return found

    def _import_roots(self, folder: str) -> tuple[str, ...]:
        roots = self._roots.get(folder)
        if roots is None:
            chain = []
            current = os.path.abspath(folder)
            for _ in range(8):
                chain.append(current)
                if os.path.isdir(os.path.join(current, ".git")):
                    chain += [os.path.join(current, extra) for extra in ("plugins", "include", "dags")]
                    break
                parent = os.path.dirname(current)
                if parent == current:
                    break
                current = parent
            roots = tuple(chain)
            self._roots[folder] = roots
        return roots

    def _split(self, importer: str, qualified: str) -> tuple[ModuleSummary, str] | None:
        """The indexed module a dotted name lives in, and the name inside it."""
        level = len(qualified) - len(qualified.lstrip("."))
        parts = qualified[level:].split(".")
        for cut in range(len(parts) - 1, 0 if not level else -1, -1):
            path = self.resolve_module(importer, ".".join(parts[:cut]), level)
            if path is not None and path in self.modules:
                return self.modules[path], ".".join(parts[cut:])
        return None

    def _lookup(self, importer: str, qualified: str, table: str, depth: int = 0):
        if not self.modules:
            return None
        found = self._split(importer, qualified)
        if found is None or depth > 4:
            return None
        module, name = found
        value = getattr(module, table).get(name)
        if value is not None:
            return value
        # re-exported through an import in that module (``from .helpers import save``)
        target = module.aliases.get(name.split(".")[0])
        if target is not None:
            rest = name.partition(".")[2]
            return self._lookup(module.path, f"{target}.{rest}" if rest else target, table, depth + 1)
        return None

    def function(self, importer: str, qualified: str) -> FunctionFacts | None:
        return self._lookup(os.path.abspath(importer), qualified, "functions")

    def constant(self, importer: str, qualified: str) -> str | None:
        return self._lookup(os.path.abspath(importer), qualified, "constants")

    def class_facts(self, importer: str, qualified: str) -> ClassFacts | None:
        return self._lookup(os.path.abspath(importer), qualified, "classes")

    def is_reviewed(self, path: str) -> bool:
        return os.path.abspath(path) in self.reviewed


def _imports_of(path: str) -> list[tuple[int, str]]:
    """``(level, module)`` for every import statement, read from the text without parsing."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return []
    found = []
    for match in _IMPORT.finditer(text):
        dots, module, plain = match.groups()
        if plain is not None:
            found.extend((0, m.strip()) for m in plain.split(","))
        elif module or dots:
            found.append((len(dots or ""), module))
    return found


def summarise_index(index) -> ModuleSummary:
    """The summary of a parsed module (a :class:`ModuleIndex`)."""
    from resumable_jobs.review.index import dotted_name
    from resumable_jobs.review.variables import variable_records_of

    summary = ModuleSummary(index.path, dict(index.constants), aliases=dict(index.aliases))
    for func in index.tree.body:
        if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            reached = index.reached_from(func)
            calls = []
            for reached_func in reached:
                for site in index.calls_by_function.get(reached_func, ()):
                    local = dotted_name(site.node.func)
                    if local and local.split(".")[0] in index.aliases:
                        calls.append(index.resolve(site.node.func))
            summary.functions[func.name] = FunctionFacts(
                os.path.abspath(index.path), func.name, tuple(variable_records_of(index, reached)), tuple(calls)
            )
    for cls in index.tree.body:
        if isinstance(cls, ast.ClassDef):
            bases = tuple(index.resolve(b) or "" for b in cls.bases)
            summary.classes[cls.name] = ClassFacts(os.path.abspath(index.path), cls.name, bases)
    return summary
