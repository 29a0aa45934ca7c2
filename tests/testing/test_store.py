import datetime

import pytest

from resumable_jobs.testing import InMemoryTaskStateStore


def test_round_trip_and_default():
    store = InMemoryTaskStateStore()
    assert store.get("k", default=5) == 5
    store.set("k", {"a": [1, 2.5, "x", True]})
    assert store.get("k") == {"a": [1, 2.5, "x", True]}
    store.delete("k")
    assert store.get("k") is None


@pytest.mark.parametrize("value", [datetime.datetime(2026, 1, 1), object(), {1: "a"}, float("nan"), {"a": {1, 2}}])
def test_non_json_values_are_rejected(value):
    with pytest.raises((TypeError, ValueError)):
        InMemoryTaskStateStore().set("k", value)


def test_none_is_rejected():
    with pytest.raises(ValueError, match="None"):
        InMemoryTaskStateStore().set("k", None)


def test_size_limit_like_the_api_server():
    store = InMemoryTaskStateStore(max_value_bytes=10)
    with pytest.raises(ValueError, match="max_value_storage_bytes"):
        store.set("k", "x" * 20)
    InMemoryTaskStateStore(max_value_bytes=0).set("k", "x" * 100_000)


def test_stored_values_are_copies():
    store = InMemoryTaskStateStore()
    value = {"a": [1]}
    store.set("k", value)
    value["a"].append(2)
    assert store.get("k") == {"a": [1]}


def test_operations_are_recorded_with_retention():
    store = InMemoryTaskStateStore()
    store.set("k", 1, retention=datetime.timedelta(days=1))
    store.get("k")
    store.clear()
    assert [o.op for o in store.operations] == ["set", "get", "clear"]
    assert store.operations[0].retention == datetime.timedelta(days=1)
