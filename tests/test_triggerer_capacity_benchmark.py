"""benchmarks/triggerer_capacity.py: every row of its table drives its real trigger through the stand-in.

The benchmark itself starts a real triggerer and takes minutes (it is never part of the suite).
This checks, in-process and in seconds, what a wrong row would spoil there: that each trigger
class builds from the row's kwargs and connections, that the stand-in's route recognises its
status call, and that the row's "ended" reply makes the trigger fire its success event.
"""

from __future__ import annotations

import importlib
import time

import pytest

from benchmarks.triggerer_capacity import CLASSES, Bench, StandinServer
from resumable_jobs.testing import run_trigger_until_event


@pytest.fixture(scope="module")
def standin(tmp_path_factory):
    server = StandinServer(tmp_path_factory.mktemp("capacity"), delay=0)
    server.control("end", {"at": time.time() - 1})  # every job has ended already
    yield server
    server.stop()


@pytest.mark.parametrize("entry", CLASSES, ids=[c.name for c in CLASSES])
def test_each_row_fires_its_trigger_through_the_standin(entry, standin, tmp_path, monkeypatch):
    module_name, _, class_name = entry.classpath.rpartition(".")
    trigger_class = getattr(pytest.importorskip(module_name), class_name)
    bench = Bench(standin.url, 0.2, tmp_path)
    for key, value in entry.env(bench).items():
        monkeypatch.setenv(key, value)
    job = entry.job_id(7)
    payload = run_trigger_until_event(trigger_class(**entry.kwargs(job, bench)), timeout=60)
    assert payload.get("status", "success") == "success", payload
    assert job in standin.control("calls")["calls"]  # the route saw this job's status call


def test_the_floor_and_probe_triggers_load_by_classpath():
    module = importlib.import_module("benchmarks.capacity_triggers")
    for name in ("FloorTrigger", "LoopLagProbe"):
        trigger = getattr(module, name)(
            **(
                {"job_id": "j", "url": "http://x", "poll_interval": 1}
                if name == "FloorTrigger"
                else {"url": "http://x"}
            )
        )
        classpath, kwargs = trigger.serialize()
        assert classpath == f"benchmarks.capacity_triggers.{name}"
        assert type(trigger)(**kwargs).serialize() == (classpath, kwargs)
