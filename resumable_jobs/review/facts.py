"""The facts the reviewer keeps about the modules of a DAG folder, as plain data.

Why: reading one file (:mod:`.index`) needs to ask about names imported from other modules, and
the tree-wide index (:mod:`.project`) needs to hold what reading a module found. Both depend on
these records and on :class:`ProjectView`, the questions a file may ask; neither depends on the
other, so the analysis runs in one direction: reading (per-file facts) -> project facts
(cross-module resolution) -> rules.

What it does not do: read files or resolve imports (that is :class:`.project.ProjectIndex`).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

__all__ = [
    "EMPTY_PROJECT",
    "ClassFacts",
    "FunctionFacts",
    "ModuleSummary",
    "ProjectView",
    "plugin_class_name",
]


class FunctionFacts(
    namedtuple(
        "FunctionFacts",
        "path name variable_accesses calls job_start returns_operator returns_settings returns_task_id_constant"
        " returns_callable",
        defaults=((), (), None, None, (), None, None),
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
      importer to look up (a summary is made without the modules it imports);
    - ``returns_callable``: when that operator is handed a ``python_callable`` the factory's module
      provides (not a parameter the caller passes): for a function of the module, its facts as the
      operator runs it (keys the construction hands over in ``op_kwargs`` filled in); for one the
      module imports, its qualified name. A DAG file calling the factory runs it in a task.
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

    def method(self, importer: str, qualified: str) -> FunctionFacts | None:
        """A method of a class of the tree, by the class's qualified name and the method's
        (``include.state.Keeper.save``): its facts when the class's summary keeps them."""
        return None

    def factory_callable(self, importer: str, qualified: str) -> FunctionFacts | None:
        """The function an operator factory of the tree (by qualified name) hands to the operator it
        returns as ``python_callable``: what a task built by calling the factory runs."""
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
