"""A stand-in ``spark-submit`` for YARN and Kubernetes: records its arguments, creates the application.

What it is for: ``spark-submit --master yarn`` reaches the ResourceManager over Hadoop RPC, which no
local stand-in speaks, and the real binary costs a JVM start (seconds, hundreds of MB) per
submission - too much for a crash matrix of a dozen submissions on a shared machine. This script
takes the binary's place (``spark_binary=``): it accepts ``spark-submit``'s command line, appends
what it received to a JSON-lines file, creates the application where the real one would, and
prints the lines the real one prints, so the operator's parsing of the output is exercised too.

How it works: ``--master yarn`` registers the application with the
:class:`~resumable_jobs.local.yarn_resource_manager.LocalResourceManager` at ``$RJ_STANDIN_RM_URL``
(name, queue, ``spark.yarn.tags``) and prints ``Submitted application application_...``.
``--master k8s://<url>`` POSTs a driver pod to that API server the way Spark builds it (Spark's
labels plus every ``spark.kubernetes.driver.label.*``, the driver container
``spark-kubernetes-driver``, ``spark.kubernetes.driverEnv.*`` as its environment) and prints
``Deployed Spark application ... submission ID <namespace>:<pod>``. ``$RJ_SPARK_SUBMIT_RECORD``
names the record file; ``$RJ_STANDIN_FAIL`` set to ``before-submit`` or ``after-submit`` makes it
exit 1 before creating anything, or after creating the application.
:func:`write_spark_submit_standin` writes an executable ``spark-submit`` that runs this module.

What it does not do: it validates nothing Spark would (a missing application file is not
noticed) and it runs no driver.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import urllib.request
from pathlib import Path
from typing import Any

__all__ = ["parse_command_line", "write_spark_submit_standin"]

#: spark-submit options that take no value.
_FLAGS = {"--verbose", "--supervise"}


def write_spark_submit_standin(directory: Path) -> Path:
    """Write an executable ``spark-submit`` into ``directory`` that runs this module; return its path."""
    path = Path(directory) / "spark-submit"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m resumable_jobs.local.spark_submit_standin "$@"\n')
    path.chmod(0o755)
    return path


def parse_command_line(argv: list[str]) -> dict[str, Any]:
    """``spark-submit``'s arguments as ``{"options": {...}, "conf": {...}, "application": ..., "args": [...]}``."""
    options: dict[str, Any] = {}
    conf: dict[str, str] = {}
    rest = list(argv)
    while rest and rest[0].startswith("--"):
        option = rest.pop(0)
        if option in _FLAGS:
            options[option] = True
            continue
        if not rest:
            raise SystemExit(f"Error: Missing argument for option '{option}'.")
        value = rest.pop(0)
        if option == "--conf":
            key, _, conf_value = value.partition("=")
            conf[key] = conf_value
        else:
            options[option] = value
    if not rest:
        raise SystemExit("Error: Must specify a primary resource (JAR or Python file)")
    return {"options": options, "conf": conf, "application": rest[0], "args": rest[1:]}


def _record(parsed: dict[str, Any], argv: list[str]) -> None:
    path = os.environ.get("RJ_SPARK_SUBMIT_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"argv": argv, **parsed}) + "\n")


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _submit_to_yarn(parsed: dict[str, Any]) -> None:
    rm_url = os.environ.get("RJ_STANDIN_RM_URL")
    if not rm_url:
        raise SystemExit("Exception in thread \"main\" org.apache.spark.SparkException: no ResourceManager (RJ_STANDIN_RM_URL)")
    from resumable_jobs.local.yarn_resource_manager import REGISTER_PATH

    options, conf = parsed["options"], parsed["conf"]
    app_id = _post(
        f"{rm_url}{REGISTER_PATH}",
        {
            "name": options.get("--name", parsed["application"]),
            "queue": options.get("--queue", "default"),
            "user": options.get("--proxy-user") or os.environ.get("USER", "airflow"),
            "tags": conf.get("spark.yarn.tags", ""),
        },
    )["id"]
    print(f"INFO Client: Submitting application {app_id} to ResourceManager")
    print(f"INFO YarnClientImpl: Submitted application {app_id}")
    print(f"INFO Client: Application report for {app_id} (state: ACCEPTED)")


def _submit_to_kubernetes(master: str, parsed: dict[str, Any]) -> None:
    api = master[len("k8s://") :]
    api = api if "://" in api else f"https://{api}"
    options, conf = parsed["options"], parsed["conf"]
    namespace = conf.get("spark.kubernetes.namespace", "default")
    name = options.get("--name", "spark")
    selector = f"spark-{secrets.token_hex(16)}"
    pod_name = conf.get("spark.kubernetes.driver.pod.name") or f"{name}-{secrets.token_hex(8)}-driver"
    label_prefix, env_prefix = "spark.kubernetes.driver.label.", "spark.kubernetes.driverEnv."
    labels = {"spark-app-name": name, "spark-app-selector": selector, "spark-role": "driver", "spark-version": "4.3.0"}
    labels.update({k[len(label_prefix) :]: v for k, v in conf.items() if k.startswith(label_prefix)})
    env = [{"name": k[len(env_prefix) :], "value": v} for k, v in conf.items() if k.startswith(env_prefix)]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": pod_name, "namespace": namespace, "labels": labels},
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "spark-kubernetes-driver",
                    "image": conf.get("spark.kubernetes.container.image", "spark:standin"),
                    "args": ["driver", "--class", options.get("--class", "org.apache.spark.deploy.PythonRunner"), parsed["application"], *parsed["args"]],
                    "env": env,
                }
            ],
        },
    }
    _post(f"{api}/api/v1/namespaces/{namespace}/pods", pod)
    print(
        f"INFO Client: Deployed Spark application {name} with application ID {selector} and submission ID "
        f"{namespace}:{pod_name} into Kubernetes"
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parsed = parse_command_line(argv)
    _record(parsed, argv)
    fail = os.environ.get("RJ_STANDIN_FAIL", "")
    if fail == "before-submit":
        print("Exception in thread \"main\" java.io.IOException: stand-in failure before submitting", file=sys.stderr)
        return 1
    master = str(parsed["options"].get("--master", ""))
    if master == "yarn":
        _submit_to_yarn(parsed)
    elif master.startswith("k8s://"):
        _submit_to_kubernetes(master, parsed)
    else:
        print(f"Error: the stand-in spark-submit handles yarn and k8s:// masters, not {master!r}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    if fail == "after-submit":
        print("Exception in thread \"main\" java.io.IOException: stand-in failure after submitting", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
