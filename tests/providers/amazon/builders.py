"""The five AWS operators built with their required arguments only (no AWS calls), for tests they share.

``OPERATORS`` parametrizes a test over all five (ids: the operator's family); each builder takes
the operator's other keyword arguments. ``modules_added_by_import`` is the import-cost probe: a
fresh interpreter imports ``airflow.sdk``, then the module, and lists what that import added.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from resumable_jobs.providers.amazon import (
    BatchOperator,
    EmrContainerOperator,
    EmrServerlessStartJobOperator,
    GlueJobOperator,
    RedshiftDataOperator,
)

#: What importing an operator module must not pull in: the AWS SDKs, moto, any provider package.
HEAVY_ROOTS = ("boto3", "botocore", "aiobotocore", "aiohttp", "moto")


def batch(**kwargs):
    return BatchOperator(
        task_id=kwargs.pop("task_id", "batch"), job_name="n", job_queue="q", job_definition="d", **kwargs
    )


def glue(**kwargs):
    kwargs.setdefault("task_id", "glue")
    kwargs.setdefault("script_location", "s3://bucket/etl.py")
    return GlueJobOperator(**kwargs)


def redshift_data(**kwargs):
    kwargs.setdefault("task_id", "load")
    return RedshiftDataOperator(sql="SELECT 1", database="dev", cluster_identifier="c1", **kwargs)


def emr_serverless(**kwargs):
    kwargs.setdefault("task_id", "spark_etl")
    return EmrServerlessStartJobOperator(application_id="app", execution_role_arn="role", job_driver={}, **kwargs)


def emr_containers(**kwargs):
    kwargs.setdefault("task_id", "eks_etl")
    return EmrContainerOperator(
        name="n",
        virtual_cluster_id="vc",
        execution_role_arn="role",
        release_label="emr-7.0.0-latest",
        job_driver={},
        **kwargs,
    )


OPERATORS = [
    pytest.param(batch, id="Batch"),
    pytest.param(glue, id="Glue"),
    pytest.param(redshift_data, id="RedshiftData"),
    pytest.param(emr_serverless, id="EmrServerless"),
    pytest.param(emr_containers, id="EmrContainer"),
]


def modules_added_by_import(module: str) -> list[str]:
    """The modules a fresh interpreter adds to ``sys.modules`` by importing ``module`` after ``airflow.sdk``."""
    probe = (
        "import json, sys; import airflow.sdk; before = set(sys.modules); "
        f"import {module}; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def heavy_modules(added: list[str]) -> list[str]:
    """The modules of ``added`` an operator module must not import (see :data:`HEAVY_ROOTS`)."""
    return [m for m in added if m.split(".")[0] in HEAVY_ROOTS or m.startswith("airflow.providers.")]
