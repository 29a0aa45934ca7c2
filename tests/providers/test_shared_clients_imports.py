"""``import_off_loop``: a trigger's heavy imports run in a thread with the garbage collector paused, then frozen.

Why it matters: the full collections that a big import sets off stop every thread, the triggerer's
event loop included; the import is paid once per process, its objects must not be walked again.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import textwrap
import threading

import pytest

from resumable_jobs.providers.shared_clients import import_off_loop


@pytest.fixture
def heavy_module(tmp_path, monkeypatch):
    """A module not yet imported that allocates many tracked objects and records how it was imported."""
    name = f"rj_heavy_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent(
            """
            import gc
            import threading

            COLLECTOR_ON_DURING_IMPORT = gc.isenabled()
            IMPORTED_ON = threading.current_thread().name
            TABLE = [{"row": i, "cells": [i, str(i)]} for i in range(50_000)]
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


@pytest.fixture
def collector_state():
    """Whatever a test does to the collector, the next test starts with it on."""
    yield
    gc.enable()


def test_a_module_is_imported_in_a_thread_with_the_collector_paused_then_frozen(heavy_module, collector_state):
    frozen_before = gc.get_freeze_count()
    asyncio.run(import_off_loop(heavy_module))

    module = sys.modules[heavy_module]
    assert module.IMPORTED_ON != threading.main_thread().name
    assert module.COLLECTOR_ON_DURING_IMPORT is False
    assert gc.isenabled()
    assert gc.get_freeze_count() - frozen_before >= 50_000  # the module's rows no full collection walks again
    assert gc.is_tracked(module.TABLE[0])


def test_an_imported_module_is_not_imported_again(heavy_module, collector_state):
    asyncio.run(import_off_loop(heavy_module))
    frozen = gc.get_freeze_count()
    table = sys.modules[heavy_module].TABLE
    made_since = [{"row": [i]} for i in range(10_000)]  # 20,000 tracked objects a freeze would take

    asyncio.run(import_off_loop(heavy_module))

    assert sys.modules[heavy_module].TABLE is table
    # Nothing to import: no pause, no freeze (the count may fall as frozen objects die, never by a freeze).
    assert gc.get_freeze_count() < frozen + len(made_since)


def test_a_collector_the_process_turned_off_stays_off(heavy_module, collector_state):
    gc.disable()
    asyncio.run(import_off_loop(heavy_module))
    assert not gc.isenabled()


def test_a_failed_import_raises_and_turns_the_collector_back_on(tmp_path, monkeypatch, collector_state):
    (tmp_path / "rj_broken_import.py").write_text("raise RuntimeError('no such client library here')\n")
    monkeypatch.syspath_prepend(str(tmp_path))

    with pytest.raises(RuntimeError, match="no such client library here"):
        asyncio.run(import_off_loop("rj_broken_import"))

    assert gc.isenabled()
    assert "rj_broken_import" not in sys.modules


def test_two_imports_at_once_turn_the_collector_on_only_after_both(tmp_path, monkeypatch, collector_state):
    release = threading.Event()
    (tmp_path / "rj_slow_import.py").write_text("import gc, builtins\nbuiltins.RJ_WAIT()\nON_AT_END = gc.isenabled()\n")
    (tmp_path / "rj_quick_import.py").write_text("import gc\nON_AT_END = gc.isenabled()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("builtins.RJ_WAIT", lambda: release.wait(10), raising=False)

    async def both() -> bool:
        slow = asyncio.create_task(import_off_loop("rj_slow_import"))
        await asyncio.sleep(0.05)  # the slow import has paused the collector
        await import_off_loop("rj_quick_import")
        still_paused = not gc.isenabled()
        release.set()
        await slow
        return still_paused

    try:
        assert asyncio.run(both()) is True  # the quick import ended while the slow one still ran
        assert sys.modules["rj_quick_import"].ON_AT_END is False
        assert gc.isenabled()
    finally:
        sys.modules.pop("rj_slow_import", None)
        sys.modules.pop("rj_quick_import", None)


def test_the_first_shared_client_of_a_process_freezes_what_the_process_holds_once():
    """A fresh interpreter: the start-up objects go to the permanent generation at the first client, not again."""
    import subprocess

    script = textwrap.dedent(
        """
        import asyncio, contextlib, gc, json
        from resumable_jobs.providers.shared_clients import shared_client

        long_lived = [{"row": [i]} for i in range(20_000)]

        @contextlib.asynccontextmanager
        async def opener():
            yield object()

        async def main():
            counts = [gc.get_freeze_count()]
            async with shared_client("first", opener):
                counts.append(gc.get_freeze_count())
                more = [{"row": [i]} for i in range(5_000)]
                async with shared_client("second", opener):
                    counts.append(gc.get_freeze_count())
            return counts, gc.isenabled(), gc.is_tracked(long_lived[0])

        print(json.dumps(asyncio.run(main())))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    (before, at_first, at_second), enabled, tracked = json.loads(done.stdout.strip().splitlines()[-1])
    assert before == 0
    assert at_first >= 40_000  # the rows and their lists, frozen with the rest of the process
    assert at_second < at_first + 10_000  # once per process: the 10,000 objects made since stay collectable
    assert enabled and tracked
