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

import ast
import builtins
import os
import re
from collections import namedtuple
from collections.abc import Iterable

__all__ = [
    "EMPTY_PROJECT",
    "ClassFacts",
    "FunctionFacts",
    "ModuleSummary",
    "ProjectIndex",
    "ProjectView",
    "imported_function",
    "plugin_class_name",
    "star_imported_function",
]


class FunctionFacts(
    namedtuple(
        "FunctionFacts",
        "path name variable_accesses calls job_start returns_operator returns_settings returns_task_id_constant",
        defaults=((), (), None, None, (), None),
    )
):
    """A module-level function of an indexed module, as far as the rules care.

    - ``variable_accesses``: Variable calls in the function and in the same-module helpers it calls;
    - ``calls``: qualified names (in the defining module's namespace) of imported functions it calls;
    - ``job_start``: the job-start client method it calls when it does not wait for the job (RJ005);
    - ``returns_operator``: when it returns an operator it builds (RJ005): (operator class, literal
      task id, the parameter the task id comes from and its position);
    - ``returns_settings``: the keywords of that construction, as ``(name, is_literal, value)``: the
      literal's value, or None for an expression (a wait flag, a sensor's ``step_id`` template
      pulling XCom);
    - ``returns_task_id_constant``: when that task id is a constant the module imports
      (``task_id=SUBMIT_ID`` with ``from config import SUBMIT_ID``), its qualified name, for the
      importer to look up (a summary is made without the modules it imports).
    """

    __slots__ = ()


class ClassFacts(namedtuple("ClassFacts", "path name bases job_start methods", defaults=(None, ()))):
    """A class of an indexed module: ``bases`` are qualified names resolved in the defining
    module; ``job_start`` is the job-start client method its ``execute()`` calls when it does
    not wait for the job (RJ005); ``methods``: for a class with Variable calls in its methods,
    a :class:`FunctionFacts` per method (named ``Class.method``) with the Variable calls it and
    the methods it calls on ``self`` make, for task code that calls it through an instance."""

    __slots__ = ()


class ModuleSummary:
    """What one indexed module defines: string constants, functions, classes, its imports
    (``aliases``) and the modules it imports everything from at module level
    (``from .tasks import *``), as written."""

    __slots__ = ("aliases", "classes", "constants", "functions", "path", "star_imports")

    def __init__(
        self,
        path: str,
        constants: dict[str, str] | None = None,
        functions: dict[str, FunctionFacts] | None = None,
        classes: dict[str, ClassFacts] | None = None,
        aliases: dict[str, str] | None = None,
        star_imports: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.constants = constants if constants is not None else {}
        self.functions = functions if functions is not None else {}
        self.classes = classes if classes is not None else {}
        self.aliases = aliases if aliases is not None else {}
        self.star_imports = star_imports


class ProjectView:
    """What a rule may ask about names imported from other modules. The empty view knows nothing."""

    def function(self, importer: str, qualified: str) -> FunctionFacts | None:
        return None

    def constant(self, importer: str, qualified: str) -> str | None:
        return None

    def class_facts(self, importer: str, qualified: str) -> ClassFacts | None:
        return None

    def plugin_class(self, importer: str, name: str) -> ClassFacts | None:
        """A class of the repository's ``plugins/`` folder, by name (see :func:`plugin_class_name`)."""
        return None

    def is_reviewed(self, path: str) -> bool:
        return False

    def imports_local_code(self, importer: str, modules: Iterable[str]) -> bool:
        """Whether any of these dotted names (from ``importer``'s imports) is a module of the tree."""
        return False


EMPTY_PROJECT = ProjectView()


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

    def class_facts(self, importer: str, qualified: str) -> ClassFacts | None:
        return self._lookup(os.path.abspath(importer), qualified, "classes")

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
        return any(name.startswith(".") or name.partition(".")[0] in local for name in modules)

    def _local_names_of(self, folder: str) -> frozenset[str]:
        """Every top-level module name an import from ``folder`` can find in the tree."""
        local = self._local_names.get(folder)
        if local is None:
            local = frozenset().union(*(self._importable_names(root) for root in self._import_roots(folder)))
            self._local_names[folder] = local
        return local


_CLASS_STATEMENT = re.compile(r"^class\s+([A-Za-z_]\w*)", re.MULTILINE)
_PLUGIN_SCAN_LIMIT = 200_000

#: Airflow's own modules under ``airflow.operators``/``airflow.sensors`` (1.10 and later): a
#: class imported from one of them is Airflow's, not a plugin's
_AIRFLOW_MODULES = frozenset(
    {
        "bash",
        "bash_operator",
        "branch",
        "branch_operator",
        "check_operator",
        "dagrun_operator",
        "datetime",
        "dummy",
        "dummy_operator",
        "email",
        "email_operator",
        "empty",
        "external_task",
        "external_task_sensor",
        "filesystem",
        "generic_transfer",
        "http_operator",
        "latest_only",
        "latest_only_operator",
        "python",
        "python_operator",
        "sql",
        "sql_sensor",
        "subdag",
        "subdag_operator",
        "time_delta",
        "time_delta_sensor",
        "time_sensor",
        "trigger_dagrun",
        "weekday",
        "base",
        "base_sensor_operator",
        "date_time",
        "date_time_sensor",
        "smart_sensor",
        "bash_sensor",
        "python_sensor",
        "web_hdfs_sensor",
        "hdfs_sensor",
        "s3_key_sensor",
        "hive_operator",
        "mysql_operator",
        "postgres_operator",
        "presto_check_operator",
        "s3_file_transform_operator",
        "slack_operator",
        "docker_operator",
        "mssql_operator",
        "oracle_operator",
        "sqlite_operator",
        "jdbc_operator",
        "pig_operator",
        "druid_check_operator",
    }
)


def plugin_class_name(qualified: str | None) -> str | None:
    """The class name when ``qualified`` is an import from Airflow 1's plugin namespace.

    ``airflow.operators.capstone_plugin.EmrAddStepsOperatorV2`` (a plugin named
    ``capstone_plugin``) and ``airflow.operators.EmrAddStepsOperatorV2`` give
    ``EmrAddStepsOperatorV2``; a class of Airflow's own modules
    (``airflow.operators.python_operator.PythonOperator``) gives None.
    """
    if not qualified or not qualified.startswith(("airflow.operators.", "airflow.sensors.")):
        return None
    parts = qualified.split(".")
    if len(parts) == 4 and parts[2] in _AIRFLOW_MODULES:
        return None
    if len(parts) not in (3, 4) or not parts[-1][:1].isupper():
        return None
    return parts[-1]


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


def _module_star_imports(tree: ast.Module) -> tuple[str, ...]:
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
        stars = _module_star_imports(index.tree) if "import *" in index.source_text else ()
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
    from resumable_jobs.review.index import dotted_name

    local = dotted_name(node)
    if not local or local.split(".")[0] not in index.aliases:
        return star_imported_function(index, node)
    if not index.imports_local_code:
        return None
    qualified = index.resolve(node)
    facts = index.project.function(index.abspath, qualified) if qualified else None
    return (qualified, facts) if facts is not None else None


def summarise_index(index) -> ModuleSummary:
    """The summary of a parsed module (a :class:`ModuleIndex`)."""
    from resumable_jobs.review.index import dotted_name
    from resumable_jobs.review.jobstart import started_job
    from resumable_jobs.review.taskgraph import operator_factory
    from resumable_jobs.review.variables import variable_records_of

    stars = _module_star_imports(index.tree)
    summary = ModuleSummary(index.path, dict(index.constants), aliases=dict(index.aliases), star_imports=stars)
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
                os.path.abspath(index.path),
                func.name,
                tuple(variable_records_of(index, reached, func)),
                tuple(calls),
                started_job(index, [func]),
                built[:4] if (built := operator_factory(index, func)) is not None else None,
                _construction_settings(built[4]) if built is not None and built[4] is not None else (),
                _imported_task_id(index, built),
            )
    for cls in index.tree.body:
        if isinstance(cls, ast.ClassDef):
            bases = tuple(index.resolve(b) or "" for b in cls.bases)
            summary.classes[cls.name] = ClassFacts(
                os.path.abspath(index.path),
                cls.name,
                bases,
                started_job(index, index.methods_named(cls, "execute")),
                _method_facts(index, cls) if "Variable" in index.source_text else (),
            )
    return summary


def _imported_task_id(index, built) -> str | None:
    """The qualified name of the imported constant a factory's operator takes its task id from."""
    from resumable_jobs.review.index import dotted_name, keyword

    if built is None or built[1] is not None or built[2] is not None or built[4] is None:
        return None
    kw = keyword(built[4], "task_id")
    name = dotted_name(kw.value) if kw is not None else None
    return index.resolve(kw.value) if name and name.split(".")[0] in index.aliases else None


def _method_facts(index, cls: ast.ClassDef) -> tuple:
    from resumable_jobs.review.variables import variable_records_of

    found = []
    for method in cls.body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and not method.name.startswith("__"):
            records = variable_records_of(index, index.reached_from(method), method)
            if records:
                found.append(FunctionFacts(os.path.abspath(index.path), f"{cls.name}.{method.name}", tuple(records)))
    return tuple(found)


def _construction_settings(built: ast.Call) -> tuple:
    """The keywords of an operator construction as plain data (see ``FunctionFacts``)."""
    return tuple(
        (kw.arg, True, kw.value.value) if isinstance(kw.value, ast.Constant) else (kw.arg, False, None)
        for kw in built.keywords
        if kw.arg is not None
    )
