"""The project index: what the other modules of a DAG folder define, built once per review.

Why: real DAG folders keep helpers in ``dags/utils/``, ``plugins/`` or ``include/``: a task
calls ``save_checkpoint(job_id)`` and the ``Variable.set`` is two files away; an XCom key is a
constant imported from ``common/keys.py``; an operator is a subclass of a provider operator
defined in ``plugins/operators.py``. A reviewer that reads one file at a time misses all of it.

How: nothing is read up front. When a rule asks about an imported name, the import is resolved
the way Airflow's ``sys.path`` would resolve it: against the importing file's folder and the
folders above it, up to the repository root (the folder holding ``.git``), plus the
repository's ``plugins/``, ``include/`` and ``dags/``; relative imports from the importing
package. A module that resolves is parsed once and summarised: its functions with the
Variables they read and write and the calls they make, its string constants, its classes and
bases. Each review process keeps its own summaries, so a large tree costs no serial pass before
the files are spread over processes, and only the modules some rule asks about are read.

What it does not do: import anything, follow ``sys.path`` changes made at run time, or index
installed packages; a name it cannot resolve is unknown and the rules stay silent on it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from operator import itemgetter, methodcaller

from resumable_jobs.review.facts import ClassFacts, FunctionFacts, ModuleSummary, ProjectView

__all__ = ["ProjectIndex"]


class ProjectIndex(ProjectView):
    """Summaries of the modules the reviewed files import, made on first use, keyed by path."""

    def __init__(self, reviewed: Iterable[str] = (), summarise=None) -> None:
        self.reviewed = frozenset(os.path.abspath(p) for p in reviewed)
        #: the folder holding every reviewed file: imports resolve from there and below, plus the
        #: repository around it
        self.top = os.path.commonpath([os.path.dirname(p) for p in self.reviewed]) if self.reviewed else None
        #: ``summarise(path) -> ModuleSummary | None`` parses one module
        self._summarise = summarise
        self.modules: dict[str, ModuleSummary | None] = {}
        self._resolved: dict[tuple[str, str, int], str | None] = {}
        self._roots: dict[str, tuple[str, ...]] = {}
        self._names: dict[str, frozenset[str]] = {}
        self._local_names: dict[str, frozenset[str]] = {}
        #: plugins folder -> {class name: the file defining it}
        self._plugin_classes: dict[str, dict[str, str]] = {}

    def summary(self, path: str) -> ModuleSummary | None:
        if path not in self.modules:
            self.modules[path] = self._summarise(path) if self._summarise is not None else None
        return self.modules[path]

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
                if parts[0] not in self._importable_names(base):
                    continue
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
        """Where ``import x`` from a file of ``folder`` may find ``x``, nearest first.

        The folder and those above it up to the reviewed tree's top (Airflow puts the DAG folder
        on ``sys.path`` and DAG files import their siblings' packages), then the repository
        around the tree: the folders up to the one holding ``.git`` and its ``plugins/``,
        ``include/`` and ``dags/``. Without a repository, the tree's parent and its
        ``plugins/`` and ``include/``. Last, the folders next to a ``dags/`` folder on that
        path (``modules/``, ``utils/``, ``src/`` beside ``dags/``: code deployed with the DAGs
        and imported as top-level modules), when they are in the tree or the repository. Never
        folders outside that (``/tmp``, ``/``).
        """
        roots = self._roots.get(folder)
        if roots is None:
            chain: list[str] = []
            current = os.path.abspath(folder)
            top = self.top or current
            for _ in range(32):
                chain.append(current)
                if current == top or os.path.dirname(current) == current:
                    break
                current = os.path.dirname(current)
            repository = _repository_root(top)
            if repository is not None:
                current = top
                while current != repository:
                    current = os.path.dirname(current)
                    chain.append(current)
                chain += [os.path.join(repository, extra) for extra in ("plugins", "include", "dags")]
            else:
                parent = os.path.dirname(top)
                chain += [parent, os.path.join(parent, "plugins"), os.path.join(parent, "include")]
            chain += _dags_siblings(chain, top, repository)
            roots = tuple(dict.fromkeys(chain))
            self._roots[folder] = roots
        return roots

    def _importable_names(self, folder: str) -> frozenset[str]:
        """Top-level module names a folder offers (``x`` for ``x.py`` and for ``x/``), read once."""
        names = self._names.get(folder)
        if names is None:
            try:
                entries = os.listdir(folder)
            except OSError:
                entries = []
            names = frozenset(e.removesuffix(".py") for e in entries)
            self._names[folder] = names
        return names

    def _split(self, importer: str, qualified: str) -> tuple[ModuleSummary, str] | None:
        """The module of the tree a dotted name lives in, and the name inside it."""
        level = len(qualified) - len(qualified.lstrip("."))
        parts = qualified[level:].split(".")
        if not level and parts[0] not in self._local_names_of(os.path.dirname(importer)):
            return None  # airflow, datetime, ...: not a module of the tree
        for cut in range(len(parts) - 1, 0 if not level else -1, -1):
            path = self.resolve_module(importer, ".".join(parts[:cut]), level)
            if path is not None:
                module = self.summary(path)
                if module is not None:
                    return module, ".".join(parts[cut:])
        return None

    def _lookup(self, importer: str, qualified: str, table: str, depth: int = 0):
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
        # re-exported by ``from .helpers import *`` (a package ``__init__`` gathering its modules)
        for star in module.star_imports:
            value = self._lookup(module.path, f"{star}.{name}", table, depth + 1)
            if value is not None:
                return value
        return None

    def function(self, importer: str, qualified: str) -> FunctionFacts | None:
        return self._lookup(os.path.abspath(importer), qualified, "functions")

    def constant(self, importer: str, qualified: str) -> str | None:
        return self._lookup(os.path.abspath(importer), qualified, "constants")

    def factory_callable(self, importer: str, qualified: str) -> FunctionFacts | None:
        factory = self.function(importer, qualified)
        handed = factory.returns_callable if factory is not None else None
        if isinstance(handed, str):  # imported by the factory's module: look it up from there
            return self.function(factory.path, handed)
        return handed

    def class_facts(self, importer: str, qualified: str) -> ClassFacts | None:
        return self._lookup(os.path.abspath(importer), qualified, "classes")

    def method(self, importer: str, qualified: str) -> FunctionFacts | None:
        owner, _, name = qualified.rpartition(".")
        cls = self.class_facts(importer, owner) if owner else None
        if cls is None:
            return None
        return next((m for m in cls.methods if m.name == f"{cls.name}.{name}"), None)

    def plugin_class(self, importer: str, name: str) -> ClassFacts | None:
        """The class ``name`` defined in a ``plugins/`` folder on the importing file's path.

        Airflow 1 made the operators of ``plugins/`` importable as ``airflow.operators.<plugin>``
        (and ``airflow.operators`` itself), so DAGs of that era import an in-house operator
        from a module that is in no folder. Only the class name is left to go by: the plugins
        folders are searched for a ``class <name>`` statement (a text scan, once per folder),
        and the module that defines it is summarised like any other.
        """
        for folder in self._plugin_folders(os.path.dirname(os.path.abspath(importer))):
            path = self._classes_in(folder).get(name)
            if path is not None:
                module = self.summary(path)
                if module is not None and name in module.classes:
                    return module.classes[name]
        return None

    def _plugin_folders(self, folder: str) -> list[str]:
        found = []
        for root in self._import_roots(folder):
            candidate = root if os.path.basename(root) == "plugins" else os.path.join(root, "plugins")
            if candidate not in found and os.path.isdir(candidate):
                found.append(candidate)
        return found

    def _classes_in(self, folder: str) -> dict[str, str]:
        classes = self._plugin_classes.get(folder)
        if classes is None:
            classes = {}
            depth0 = folder.count(os.sep)
            for current, subfolders, files in os.walk(folder):
                subfolders[:] = (
                    sorted(d for d in subfolders if not d.startswith(".") and d != "__pycache__")
                    if current.count(os.sep) - depth0 < 4
                    else []
                )
                for name in sorted(files):
                    if not name.endswith(".py"):
                        continue
                    path = os.path.abspath(os.path.join(current, name))
                    try:
                        with open(path, encoding="utf-8", errors="replace") as handle:
                            text = handle.read(_PLUGIN_SCAN_LIMIT)
                    except OSError:
                        continue
                    for match in _CLASS_STATEMENT.finditer(text):
                        classes.setdefault(match.group(1), path)
            self._plugin_classes[folder] = classes
        return classes

    def is_reviewed(self, path: str) -> bool:
        return os.path.abspath(path) in self.reviewed

    def imports_local_code(self, importer: str, modules: Iterable[str]) -> bool:
        local = self._local_names_of(
            os.path.dirname(importer if os.path.isabs(importer) else os.path.abspath(importer))
        )
        # each module's first part ("" for a relative import), taken in C: this runs once per file
        heads = set(map(_FIRST, map(_PARTITION, modules)))
        return "" in heads or not local.isdisjoint(heads)

    def _local_names_of(self, folder: str) -> frozenset[str]:
        """Every top-level module name an import from ``folder`` can find in the tree."""
        local = self._local_names.get(folder)
        if local is None:
            local = frozenset().union(*(self._importable_names(root) for root in self._import_roots(folder)))
            self._local_names[folder] = local
        return local


_PARTITION = methodcaller("partition", ".")
_FIRST = itemgetter(0)
_CLASS_STATEMENT = re.compile(r"^class\s+([A-Za-z_]\w*)", re.MULTILINE)
_PLUGIN_SCAN_LIMIT = 200_000

_NOT_CODE_FOLDERS = frozenset({"venv", "env", "node_modules", "site-packages", "dags"})


def _dags_siblings(chain: list[str], top: str, repository: str | None) -> list[str]:
    """The folders beside each ``dags`` folder of ``chain`` whose parent is inside the reviewed
    tree or the repository, in name order (hidden, ``_``-prefixed and virtualenv folders left out)."""
    found: list[str] = []
    for folder in chain:
        if os.path.basename(folder) != "dags":
            continue
        parent = os.path.dirname(folder)
        if not (_within(parent, top) or (repository is not None and _within(parent, repository))):
            continue
        try:
            entries = sorted(os.listdir(parent))
        except OSError:
            continue
        for entry in entries:
            path = os.path.join(parent, entry)
            if entry.startswith((".", "_")) or entry in _NOT_CODE_FOLDERS or not os.path.isdir(path):
                continue
            found.append(path)
    return found


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _repository_root(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` that holds ``.git``, within eight levels."""
    current = os.path.abspath(folder)
    for _ in range(8):
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None
