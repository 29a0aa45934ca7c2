"""Running ``spark-submit`` once and reading the application id out of what it prints.

What it is for: the submission step on YARN and Kubernetes. With ``waitAppCompletion=false``
(which the cluster managers always set) ``spark-submit`` exits as soon as the cluster has the
application, so the worker holds no JVM while the application runs; the operator then follows it
through the ResourceManager or the Kubernetes API.

How it works: :func:`run_spark_submit` starts the command with its output merged, forwards every
line to the task log, keeps the last lines for an error message, and returns the first match of
the cluster manager's id pattern (``application_<ts>_<n>`` on YARN, the ``<namespace>:<pod>``
submission id on Kubernetes). If the try is interrupted while ``spark-submit`` runs (an exception
in the worker), the child is killed and waited for, so it cannot outlive the try unobserved; an
application it already created carries the submission tag and is found by the retry.

What it does not do: it does not decide what a non-zero exit means (the cluster manager does), and
it does not retry.
"""

from __future__ import annotations

import collections
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from resumable_jobs.providers.spark.submit_command import masked

__all__ = ["OUTPUT_TAIL_LINES", "SparkSubmitFailed", "SubmitResult", "run_spark_submit"]

#: Lines of ``spark-submit`` output an error message quotes.
OUTPUT_TAIL_LINES = 40


class SparkSubmitFailed(RuntimeError):
    """``spark-submit`` failed, or did not say which application it created."""


@dataclass(frozen=True)
class SubmitResult:
    returncode: int
    app_id: str | None
    tail: tuple[str, ...]

    def tail_text(self) -> str:
        return "\n".join(self.tail)


def run_spark_submit(
    argv: Sequence[str], *, env: Mapping[str, str], id_pattern: re.Pattern[str], log: Any
) -> SubmitResult:
    """Run ``argv``; return its exit code, the first id ``id_pattern`` matched (group 1 if any) and the tail."""
    log.info("Running %s", masked(argv))
    tail: collections.deque[str] = collections.deque(maxlen=OUTPUT_TAIL_LINES)
    app_id = None
    try:
        process = subprocess.Popen(
            list(argv),
            env=dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
    except OSError as error:
        raise SparkSubmitFailed(f"could not run {argv[0]!r}: {error}") from error
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.rstrip("\n")
            log.info("%s", line)
            tail.append(line)
            if app_id is None:
                match = id_pattern.search(line)
                if match:
                    app_id = match.group(1) if match.groups() else match.group(0)
        returncode = process.wait()
    except BaseException:
        process.kill()
        process.wait()
        raise
    finally:
        if process.stdout is not None:
            process.stdout.close()
    return SubmitResult(returncode=returncode, app_id=app_id, tail=tuple(tail))
