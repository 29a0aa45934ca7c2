"""Shared fixtures: an isolated AIRFLOW_HOME, version markers, captured task logs."""

from __future__ import annotations

import atexit
import itertools
import logging
import os
import shutil
import tempfile
import warnings

import pytest

# Airflow reads its configuration on import: point it at a throwaway home before anything
# imports it, so tests never touch a developer's real Airflow.
if "AIRFLOW_HOME" not in os.environ:
    os.environ["AIRFLOW_HOME"] = tempfile.mkdtemp(prefix="rj-airflow-home-")
    atexit.register(shutil.rmtree, os.environ["AIRFLOW_HOME"], ignore_errors=True)
os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")

from resumable_jobs.shims import durable_supported, installed_airflow_version  # noqa: E402

DURABLE = durable_supported()


def pytest_report_header(config: pytest.Config) -> str:
    mode = "durable (core mixin)" if DURABLE else "pre-3.3 shim (always resubmits)"
    return f"airflow {installed_airflow_version()}: {mode}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "durable_only" in item.keywords and not DURABLE:
            item.add_marker(pytest.mark.skip(reason=f"needs Airflow >= 3.3 (installed {installed_airflow_version()})"))
        if "shim_only" in item.keywords and DURABLE:
            item.add_marker(pytest.mark.skip(reason="checks the pre-3.3 shim; Airflow >= 3.3 is installed"))


_names = itertools.count()


@pytest.fixture
def system():
    """A fresh fake external job system (see resumable_jobs.testing.fake_system)."""
    from resumable_jobs.testing.fake_system import FakeJobSystem

    return FakeJobSystem(name=f"system-{next(_names)}")


@pytest.fixture
def task_logs():
    """Events logged by the operators, as ``(level, message)`` pairs: through structlog (Airflow
    3.1 and later) or through the standard library's logging (``self.log`` on Airflow 3.0)."""
    from structlog.testing import capture_logs

    handler = _RecordList()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        with capture_logs() as events:
            yield _LogView(events, handler.records)
    finally:
        root.removeHandler(handler)


class _RecordList(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class _LogView:
    def __init__(self, events: list[dict], stdlib: list[logging.LogRecord]) -> None:
        self._events = events
        self._stdlib = stdlib

    @property
    def records(self) -> list[tuple[str, str]]:
        structured = [(e.get("log_level", ""), str(e.get("event", ""))) for e in self._events]
        return structured + [(r.levelname.lower(), r.getMessage()) for r in self._stdlib]

    def at(self, level: str) -> list[str]:
        return [msg for lvl, msg in self.records if lvl == level]

    def clear(self) -> None:
        """Forget what was logged so far (the earlier tries of a scenario)."""
        self._events.clear()

    def events(self, fragment: str, level: str | None = None) -> list[dict]:
        """The structured events whose message contains ``fragment`` (at ``level``), fields included."""
        return [
            e
            for e in self._events
            if fragment in str(e.get("event", "")) and (level is None or e.get("log_level") == level)
        ]

    def event(self, fragment: str, level: str | None = None) -> dict:
        """The one event whose message contains ``fragment``; fails the test unless there is exactly one."""
        found = self.events(fragment, level)
        assert len(found) == 1, f"expected one {level or 'any-level'} event with {fragment!r}, got {found} in {self.records}"
        return found[0]


@pytest.fixture(autouse=True)
def _reset_shim_warning():
    if not DURABLE:
        from resumable_jobs.shims.pre33 import reset_durable_warning

        reset_durable_warning()
    with warnings.catch_warnings():
        yield
