"""The ``spark-submit`` command line for YARN and Kubernetes, built from upstream's parameter names.

What it is for: turning the operator's parameters into the arguments ``spark-submit`` takes, in
one pure function that tests, logs and the request fingerprint can all call.

How it works: :class:`SparkSubmitSpec` holds what the task asks for (application, sizing, files,
Kerberos, queue, ``conf``), already rendered; :func:`spark_submit_argv` lays it out as
``<binary> --master <m> --deploy-mode cluster --conf k=v ... <application> <args...>``, each
upstream parameter as the flag of the same meaning (``num_executors`` is ``--num-executors``,
``yarn_queue`` is ``--queue``, ...). The cluster manager adds its own properties (the submission
tag, ``waitAppCompletion=false``) to ``conf`` before the command is built.
:func:`masked` is the command as the log shows it: values of properties and ``key=value``
arguments whose key names a secret or password are replaced.

What it does not do: it does not run anything (see :mod:`~resumable_jobs.providers.spark.spark_submit`),
check that files exist, or know which cluster manager a flag is for: the operator refuses
parameters a cluster manager cannot honour before a command is built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["SparkSubmitSpec", "masked", "spark_submit_argv"]

_SENSITIVE = re.compile(r"secret|password", re.IGNORECASE)

#: (spec field, spark-submit flag), in the order the command lists them
_VALUE_FLAGS: tuple[tuple[str, str], ...] = (
    ("properties_file", "--properties-file"),
    ("files", "--files"),
    ("py_files", "--py-files"),
    ("archives", "--archives"),
    ("driver_class_path", "--driver-class-path"),
    ("jars", "--jars"),
    ("packages", "--packages"),
    ("exclude_packages", "--exclude-packages"),
    ("repositories", "--repositories"),
    ("num_executors", "--num-executors"),
    ("total_executor_cores", "--total-executor-cores"),
    ("executor_cores", "--executor-cores"),
    ("executor_memory", "--executor-memory"),
    ("driver_memory", "--driver-memory"),
    ("driver_cores", "--driver-cores"),
    ("keytab", "--keytab"),
    ("principal", "--principal"),
    ("proxy_user", "--proxy-user"),
    ("name", "--name"),
    ("java_class", "--class"),
    ("queue", "--queue"),
)


@dataclass(frozen=True)
class SparkSubmitSpec:
    """What one task asks ``spark-submit`` for (rendered values; ``conf`` values are strings)."""

    application: str
    master: str
    conf: Mapping[str, str] = field(default_factory=dict)
    application_args: Sequence[str] = ()
    java_class: str | None = None
    name: str | None = None
    driver_memory: str | None = None
    driver_cores: Any = None
    executor_memory: str | None = None
    executor_cores: Any = None
    total_executor_cores: Any = None
    num_executors: Any = None
    jars: str | None = None
    files: str | None = None
    py_files: str | None = None
    archives: str | None = None
    driver_class_path: str | None = None
    packages: str | None = None
    exclude_packages: str | None = None
    repositories: str | None = None
    keytab: str | None = None
    principal: str | None = None
    proxy_user: str | None = None
    queue: str | None = None
    properties_file: str | None = None
    verbose: bool = False

    def as_json(self) -> dict[str, Any]:
        """The spec as JSON-friendly data (for the request fingerprint)."""
        data = asdict(self)
        data["conf"] = dict(sorted(self.conf.items()))
        data["application_args"] = list(self.application_args)
        return data


def spark_submit_argv(binary: str, spec: SparkSubmitSpec) -> list[str]:
    """The full command: ``binary``, the flags, the application and its arguments."""
    if not spec.application:
        raise ValueError("application is required: the path or URL of a .py file or a jar")
    argv = [binary, "--master", spec.master, "--deploy-mode", "cluster"]
    for key, value in spec.conf.items():
        argv += ["--conf", f"{key}={value}"]
    for attribute, flag in _VALUE_FLAGS:
        value = getattr(spec, attribute)
        if value is not None and value != "":
            argv += [flag, str(value)]
    if spec.verbose:
        argv.append("--verbose")
    argv.append(spec.application)
    argv += [str(a) for a in spec.application_args]
    return argv


def masked(argv: Sequence[str]) -> str:
    """The command for the log, with secret-looking ``key=value`` values replaced by ``******``."""
    shown = []
    for part in argv:
        key, sep, _ = part.partition("=")
        shown.append(f"{key}=******" if sep and _SENSITIVE.search(key) else part)
    return " ".join(shown)
