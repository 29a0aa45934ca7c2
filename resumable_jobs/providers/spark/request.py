"""The ``CreateSubmissionRequest`` body sent to ``/v1/submissions/create``, built from parameters.

What it is for: turning the operator's upstream-named parameters into the JSON the standalone REST
server expects, in one pure function the tests (and the request fingerprint) can call.

How it works: a ``.py`` application runs through ``org.apache.spark.deploy.PythonRunner``: the
worker downloads ``appResource`` (the .py file) into the driver's working directory, and the
runner's first two arguments are that file's name and the comma-separated ``py_files``. A jar runs
its ``java_class``; it is also listed in ``spark.jars`` so executors can load its classes. Sizing
parameters become the ``spark.*`` properties of the same meaning; explicit parameters win over the
same key in ``conf``. Every property and environment value is sent as a string.

What it does not do: it does not check that files exist (the worker does, and the driver then
ends ERROR with the master's message), and it never sets ``spark.master`` (the REST server fills
in its own master).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PYTHON_RUNNER = "org.apache.spark.deploy.PythonRunner"
#: Informational field the protocol requires; the server does not compare it with its version.
CLIENT_SPARK_VERSION = "4.0.0"

#: parameter name -> Spark property it sets
PROPERTY_PARAMETERS: dict[str, str] = {
    "name": "spark.app.name",
    "driver_memory": "spark.driver.memory",
    "driver_cores": "spark.driver.cores",
    "executor_memory": "spark.executor.memory",
    "executor_cores": "spark.executor.cores",
    "total_executor_cores": "spark.cores.max",
    "files": "spark.files",
    "archives": "spark.archives",
    "driver_class_path": "spark.driver.extraClassPath",
    "packages": "spark.jars.packages",
    "exclude_packages": "spark.jars.excludes",
    "repositories": "spark.jars.repositories",
}

__all__ = [
    "CLIENT_SPARK_VERSION",
    "PROPERTY_PARAMETERS",
    "PYTHON_RUNNER",
    "build_create_request",
    "is_python_application",
    "property_text",
]


def is_python_application(application: str) -> bool:
    return str(application).split("?", 1)[0].lower().endswith(".py")


def build_create_request(
    *,
    application: str,
    java_class: str | None = None,
    application_args: Sequence[Any] | None = None,
    conf: Mapping[str, Any] | None = None,
    jars: str | None = None,
    py_files: str | None = None,
    env_vars: Mapping[str, Any] | None = None,
    **properties: Any,
) -> dict[str, Any]:
    """Return the request body. ``properties`` are the keys of :data:`PROPERTY_PARAMETERS`."""
    unknown = set(properties) - set(PROPERTY_PARAMETERS)
    if unknown:
        raise TypeError(f"build_create_request() got unexpected parameters {sorted(unknown)}")
    if not application:
        raise ValueError("application is required: the path or URL of a .py file or a jar")

    spark_properties = {str(k): property_text(v) for k, v in (conf or {}).items() if v is not None}
    for parameter, key in PROPERTY_PARAMETERS.items():
        value = properties.get(parameter)
        if value is not None and value != "":
            spark_properties[key] = property_text(value)
    spark_properties["spark.submit.deployMode"] = "cluster"
    spark_properties.setdefault("spark.driver.supervise", "false")

    args = [property_text(a) for a in (application_args or [])]
    if is_python_application(application):
        main_class = PYTHON_RUNNER
        # The worker puts appResource into the driver's working directory: refer to that copy,
        # so an hdfs:// or http:// application works as well as a path every worker can see.
        local_name = str(application).split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        args = [local_name, py_files or "", *args]
        if py_files:
            spark_properties["spark.submit.pyFiles"] = py_files
        if jars:
            spark_properties["spark.jars"] = jars
    else:
        if not java_class:
            raise ValueError(
                "java_class is required for a jar application: the REST submission server does not "
                "read the jar's manifest"
            )
        main_class = java_class
        spark_properties["spark.jars"] = ",".join(p for p in (jars, str(application)) if p)

    return {
        "action": "CreateSubmissionRequest",
        "appResource": str(application),
        "mainClass": main_class,
        "appArgs": args,
        "clientSparkVersion": CLIENT_SPARK_VERSION,
        "sparkProperties": spark_properties,
        "environmentVariables": {str(k): property_text(v) for k, v in (env_vars or {}).items()},
    }


def property_text(value: Any) -> str:
    """A Spark property or argument value as Spark reads it: booleans lower-case, the rest ``str()``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
