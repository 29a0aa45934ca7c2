"""Upstream's durable marker on our operators, read the way the Airflow Registry reads it (issue 25).

Upstream writes ``__supports_durable_execution = True`` in an operator's class body; Python
mangles it to ``_<ClassName>__supports_durable_execution``, and the registry's extractor looks up
exactly that name on the class (``getattr(cls, f"_{cls.__name__}__supports_durable_execution")
is True``), so the marker counts only for the class that declares it.
"""

from __future__ import annotations

import importlib

import pytest

from resumable_jobs.provider_info import get_provider_info
from resumable_jobs.shims import durable_supported


def _registry_reads_durable(cls: type) -> bool:
    return getattr(cls, f"_{cls.__name__.lstrip('_')}__supports_durable_execution", None) is True


def _our_operators() -> list[type]:
    from airflow.sdk import BaseOperator

    found = []
    for entry in get_provider_info()["operators"]:
        for module_name in entry["python-modules"]:
            try:
                module = importlib.import_module(module_name)
            except ImportError as missing:  # a family whose provider is not installed here
                pytest.skip(f"{module_name}: {missing}")
            found += [
                obj
                for name in getattr(module, "__all__", [])
                if isinstance(obj := getattr(module, name), type) and issubclass(obj, BaseOperator)
            ]
    return found


def test_every_operator_is_found():
    names = {cls.__name__ for cls in _our_operators()}
    assert {"BatchOperator", "BigQueryInsertJobOperator", "SparkSubmitOperator", "DatabricksSubmitRunOperator"} <= names


@pytest.mark.durable_only
@pytest.mark.parametrize("operator", _our_operators(), ids=lambda cls: cls.__name__)
def test_every_operator_carries_the_marker_as_upstream_spells_it(operator):
    assert _registry_reads_durable(operator)
    assert f"_{operator.__name__}__supports_durable_execution" in vars(operator)  # declared, not inherited


@pytest.mark.shim_only
@pytest.mark.parametrize("operator", _our_operators(), ids=lambda cls: cls.__name__)
def test_no_marker_where_every_retry_submits(operator):
    assert not durable_supported()
    assert not _registry_reads_durable(operator)


def test_a_users_subclass_does_not_inherit_the_claim():
    from resumable_jobs.providers.amazon import BatchOperator

    class NightlyBatch(BatchOperator):
        def execute(self, context):
            return "something else"

    assert not _registry_reads_durable(NightlyBatch)


def test_a_users_own_operator_on_the_mixin_is_left_to_the_registrys_own_check():
    from resumable_jobs.testing.fake_system import FakeJobOperator

    assert not _registry_reads_durable(FakeJobOperator)
