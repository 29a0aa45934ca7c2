"""Each operator against the installed upstream operator it replaces: what a DAG author can trip over.

Compared: the ``__init__`` parameters and their defaults, ``template_fields``, ``template_ext``,
``template_fields_renderers``, the extra links' labels (and order) and ``ui_color`` /
``ui_fgcolor``. Every difference must be listed, with its reason, in the table under "Differences
from upstream's signature" in the family's doc (``docs/providers/<family>.md``) - and every row of
that table must still be a difference, so the table never claims more than is true. The doc *is*
the allow-list: there is no second copy to drift.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "providers"
SECTION = "## Differences from upstream's signature"
NO_NAME = "-"  # the name cell of rows about the class as a whole (colours, link order)
#: Differences that depend on the upstream release installed: AIP-103's ``durable`` parameter,
#: which upstream operators take in their newer releases (the Google provider's
#: ``BigQueryInsertJobOperator`` does in 22.8, not in 22.1). A doc row for one of these is not
#: stale when the installed upstream operator has the parameter; it is still required when not.
UPSTREAM_RELEASE_DEPENDENT = frozenset({("parameter only here", "durable")})

OPERATORS = [
    pytest.param(
        "amazon",
        "resumable_jobs.providers.amazon:BatchOperator",
        "airflow.providers.amazon.aws.operators.batch:BatchOperator",
        id="BatchOperator",
    ),
    pytest.param(
        "amazon",
        "resumable_jobs.providers.amazon:EmrServerlessStartJobOperator",
        "airflow.providers.amazon.aws.operators.emr:EmrServerlessStartJobOperator",
        id="EmrServerlessStartJobOperator",
    ),
    pytest.param(
        "amazon",
        "resumable_jobs.providers.amazon:EmrContainerOperator",
        "airflow.providers.amazon.aws.operators.emr:EmrContainerOperator",
        id="EmrContainerOperator",
    ),
    pytest.param(
        "google",
        "resumable_jobs.providers.google:BigQueryInsertJobOperator",
        "airflow.providers.google.cloud.operators.bigquery:BigQueryInsertJobOperator",
        id="BigQueryInsertJobOperator",
    ),
    pytest.param(
        "spark",
        "resumable_jobs.providers.spark:SparkSubmitOperator",
        "airflow.providers.apache.spark.operators.spark_submit:SparkSubmitOperator",
        id="SparkSubmitOperator",
    ),
    pytest.param(
        "databricks",
        "resumable_jobs.providers.databricks:DatabricksSubmitRunOperator",
        "airflow.providers.databricks.operators.databricks:DatabricksSubmitRunOperator",
        id="DatabricksSubmitRunOperator",
    ),
    pytest.param(
        "databricks",
        "resumable_jobs.providers.databricks:DatabricksRunNowOperator",
        "airflow.providers.databricks.operators.databricks:DatabricksRunNowOperator",
        id="DatabricksRunNowOperator",
    ),
    pytest.param(
        "snowflake",
        "resumable_jobs.providers.snowflake:SnowflakeSqlApiOperator",
        "airflow.providers.snowflake.operators.snowflake:SnowflakeSqlApiOperator",
        id="SnowflakeSqlApiOperator",
    ),
    pytest.param(
        "dbt-cloud",
        "resumable_jobs.providers.dbt:DbtCloudRunJobOperator",
        "airflow.providers.dbt.cloud.operators.dbt:DbtCloudRunJobOperator",
        id="DbtCloudRunJobOperator",
    ),
    pytest.param(
        "amazon",
        "resumable_jobs.providers.amazon:GlueJobOperator",
        "airflow.providers.amazon.aws.operators.glue:GlueJobOperator",
        id="GlueJobOperator",
    ),
    pytest.param(
        "amazon",
        "resumable_jobs.providers.amazon:RedshiftDataOperator",
        "airflow.providers.amazon.aws.operators.redshift_data:RedshiftDataOperator",
        id="RedshiftDataOperator",
    ),
    pytest.param(
        "kubernetes",
        "resumable_jobs.providers.kubernetes:KubernetesPodOperator",
        "airflow.providers.cncf.kubernetes.operators.pod:KubernetesPodOperator",
        id="KubernetesPodOperator",
    ),
]


def _load(path: str) -> type:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def init_parameters(operator: type) -> dict[str, Any]:
    """Named ``__init__`` parameters (and defaults) of the classes above ``BaseOperator``."""
    from airflow.sdk import BaseOperator

    parameters: dict[str, Any] = {}
    for klass in operator.__mro__:
        if klass in (BaseOperator, object) or issubclass(BaseOperator, klass):
            continue
        init = vars(klass).get("__init__")
        if init is None:
            continue
        for name, parameter in inspect.signature(inspect.unwrap(init)).parameters.items():
            if name != "self" and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                parameters.setdefault(name, parameter.default)
    return parameters


def _same_default(ours: Any, upstream: Any) -> bool:
    try:
        return bool(ours is upstream or ours == upstream)
    except Exception:  # noqa: BLE001 - objects whose == raises are simply different
        return False


def differences(ours: type, upstream: type) -> set[tuple[str, str]]:
    """``(kind, name)`` for every difference a DAG author could notice."""
    found: set[tuple[str, str]] = set()
    ours_params, upstream_params = init_parameters(ours), init_parameters(upstream)
    found |= {("parameter only here", name) for name in set(ours_params) - set(upstream_params)}
    found |= {("parameter only upstream", name) for name in set(upstream_params) - set(ours_params)}
    found |= {
        ("default", name)
        for name in set(ours_params) & set(upstream_params)
        if not _same_default(ours_params[name], upstream_params[name])
    }
    for kind, attribute in (("template field", "template_fields"), ("template extension", "template_ext")):
        mine, theirs = set(getattr(ours, attribute)), set(getattr(upstream, attribute))
        found |= {(f"{kind} only here", name) for name in mine - theirs}
        found |= {(f"{kind} only upstream", name) for name in theirs - mine}
    mine, theirs = dict(ours.template_fields_renderers), dict(upstream.template_fields_renderers)
    found |= {("renderer", name) for name in set(mine) | set(theirs) if mine.get(name) != theirs.get(name)}
    my_links = [link.name for link in ours.operator_extra_links]
    their_links = [link.name for link in upstream.operator_extra_links]
    found |= {("link only here", name) for name in set(my_links) - set(their_links)}
    found |= {("link only upstream", name) for name in set(their_links) - set(my_links)}
    if set(my_links) == set(their_links) and my_links != their_links:
        found.add(("link order", NO_NAME))
    for colour in ("ui_color", "ui_fgcolor"):
        if getattr(ours, colour) != getattr(upstream, colour):
            found.add((colour, NO_NAME))
    return found


def documented(family: str, operator: str) -> dict[tuple[str, str], str]:
    """The rows of the operator's table in the family doc: ``(kind, name) -> why``."""
    text = (DOCS / f"{family}.md").read_text()
    assert SECTION in text, f"docs/providers/{family}.md has no {SECTION!r} section"
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    heading = f"### `{operator}`"
    if heading in section:  # a doc covering several operators has one table per operator
        section = section.split(heading, 1)[1].split("\n### ", 1)[0]
    rows: dict[tuple[str, str], str] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not line.startswith("|") or set(cells[0]) <= {"-", " "} or cells[0] == "difference":
            continue
        kind, name, why = cells
        for each in re.findall(r"`([^`]+)`", name) or [NO_NAME]:
            rows[(kind, each)] = why
    return rows


@pytest.mark.parametrize(("family", "ours", "upstream"), OPERATORS)
def test_every_difference_from_upstream_is_documented_and_nothing_more(family, ours, upstream):
    ours_class, upstream_class = _load(ours), _load(upstream)
    actual = differences(ours_class, upstream_class)
    rows = documented(family, ours_class.__name__)
    undocumented = sorted(actual - set(rows))
    shared_since = {row for row in UPSTREAM_RELEASE_DEPENDENT if row[1] in init_parameters(upstream_class)}
    stale = sorted(set(rows) - actual - shared_since)
    assert not undocumented, f"differences from upstream missing from docs/providers/{family}.md: {undocumented}"
    assert not stale, f"docs/providers/{family}.md lists differences that no longer exist: {stale}"
    for key, why in rows.items():
        assert len(why) >= 20, f"{key}: the doc must say why, not just what"


def test_the_comparison_notices_what_it_claims_to():
    """The comparison itself, on two operators that differ in every compared way."""
    from airflow.sdk import BaseOperator, BaseOperatorLink

    class Link(BaseOperatorLink):
        name = "A"

        def get_link(self, operator, *, ti_key):
            return ""

    class Other(Link):
        name = "B"

    class Upstream(BaseOperator):
        template_fields = ("a",)
        template_ext = (".sql",)
        template_fields_renderers: ClassVar[dict[str, str]] = {"a": "sql"}
        operator_extra_links = (Link(), Other())

        def __init__(self, *, a: int = 1, gone: str = "x", **kwargs):
            super().__init__(**kwargs)

    class Ours(BaseOperator):
        template_fields = ("b",)
        template_ext = (".json",)
        template_fields_renderers: ClassVar[dict[str, str]] = {"a": "json"}
        operator_extra_links = (Other(), Link())
        ui_color = "#123456"

        def __init__(self, *, a: int = 2, new: str = "y", **kwargs):
            super().__init__(**kwargs)

    assert differences(Ours, Upstream) == {
        ("parameter only here", "new"),
        ("parameter only upstream", "gone"),
        ("default", "a"),
        ("template field only here", "b"),
        ("template field only upstream", "a"),
        ("template extension only here", ".json"),
        ("template extension only upstream", ".sql"),
        ("renderer", "a"),
        ("link order", NO_NAME),
        ("ui_color", NO_NAME),
    }


# ---------------------------------------------------------------- defaults resolved when built
def _minimal(path: str) -> Any:
    required = {
        "BatchOperator": {"job_name": "n", "job_queue": "q", "job_definition": "d"},
        "EmrServerlessStartJobOperator": {"application_id": "a", "execution_role_arn": "r", "job_driver": {}},
        "EmrContainerOperator": {
            "name": "n",
            "virtual_cluster_id": "v",
            "execution_role_arn": "r",
            "release_label": "emr-7.0.0-latest",
            "job_driver": {},
        },
        "BigQueryInsertJobOperator": {"configuration": {"query": {"query": "SELECT 1"}}},
        "SparkSubmitOperator": {"application": "/apps/job.py"},
        "DatabricksSubmitRunOperator": {"json": {"tasks": []}},
        "DatabricksRunNowOperator": {"job_id": 1},
        "SnowflakeSqlApiOperator": {"sql": "SELECT 1"},
        "DbtCloudRunJobOperator": {"job_id": 1},
        "GlueJobOperator": {},
        "RedshiftDataOperator": {"sql": "SELECT 1", "cluster_identifier": "c"},
        "KubernetesPodOperator": {},
    }
    operator = _load(path)
    return operator(task_id="t", **required[operator.__name__])


#: (operator, parameter): ours defaults to None or a marker and resolves it when the operator is
#: built (or used); the value it arrives at must be the one upstream's signature holds.
RESOLVED_DEFAULTS = [
    ("resumable_jobs.providers.amazon:BatchOperator", "deferrable", lambda op: op.deferrable),
    ("resumable_jobs.providers.amazon:BatchOperator", "wait_for_completion", lambda op: op.wait_for_completion),
    *[
        (f"resumable_jobs.providers.amazon:{name}", parameter, lambda op, parameter=parameter: getattr(op, parameter))
        for name in ("EmrServerlessStartJobOperator", "EmrContainerOperator")
        for parameter in (
            "deferrable",
            "wait_for_completion",
            "openlineage_inject_parent_job_info",
            "openlineage_inject_transport_info",
        )
    ],
    ("resumable_jobs.providers.google:BigQueryInsertJobOperator", "deferrable", lambda op: op.deferrable),
    ("resumable_jobs.providers.google:BigQueryInsertJobOperator", "result_retry", lambda op: op._result_retry()),
    *[
        (path, flag, lambda op, flag=flag: getattr(op, flag))
        for path in (
            "resumable_jobs.providers.databricks:DatabricksSubmitRunOperator",
            "resumable_jobs.providers.spark:SparkSubmitOperator",
        )
        for flag in ("openlineage_inject_parent_job_info", "openlineage_inject_transport_info")
    ],
    ("resumable_jobs.providers.databricks:DatabricksSubmitRunOperator", "deferrable", lambda op: op.deferrable),
    ("resumable_jobs.providers.databricks:DatabricksRunNowOperator", "deferrable", lambda op: op.deferrable),
    (
        "resumable_jobs.providers.databricks:DatabricksRunNowOperator",
        "openlineage_inject_parent_job_info",
        lambda op: op.openlineage_inject_parent_job_info,
    ),
    ("resumable_jobs.providers.snowflake:SnowflakeSqlApiOperator", "deferrable", lambda op: op.deferrable),
    ("resumable_jobs.providers.dbt:DbtCloudRunJobOperator", "deferrable", lambda op: op.deferrable),
    (
        "resumable_jobs.providers.dbt:DbtCloudRunJobOperator",
        "openlineage_inject_parent_job_info",
        lambda op: op.openlineage_inject_parent_job_info,
    ),
    *[
        ("resumable_jobs.providers.amazon:GlueJobOperator", name, lambda op, name=name: getattr(op, name))
        for name in (
            "deferrable",
            "wait_for_completion",
            "openlineage_inject_parent_job_info",
            "openlineage_inject_transport_info",
        )
    ],
    ("resumable_jobs.providers.amazon:RedshiftDataOperator", "deferrable", lambda op: op.deferrable),
    ("resumable_jobs.providers.amazon:RedshiftDataOperator", "wait_for_completion", lambda op: op.wait_for_completion),
    ("resumable_jobs.providers.kubernetes:KubernetesPodOperator", "deferrable", lambda op: op.deferrable),
]
UPSTREAM_OF = {ours: upstream for _, ours, upstream in (p.values for p in OPERATORS)}


@pytest.mark.parametrize(("ours", "parameter", "effective"), RESOLVED_DEFAULTS, ids=lambda v: getattr(v, "__name__", v))
def test_defaults_resolved_when_built_are_upstreams_values(ours, parameter, effective):
    upstream_default = init_parameters(_load(UPSTREAM_OF[ours]))[parameter]
    assert effective(_minimal(ours)) is upstream_default or effective(_minimal(ours)) == upstream_default
