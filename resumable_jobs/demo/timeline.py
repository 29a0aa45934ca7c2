"""What a demo prints: progress lines as things happen, and a timeline at the end."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO


@dataclass
class Timeline:
    """Events with their time since the demo started, printed as they happen and at the end."""

    out: TextIO = sys.stdout
    start: float = field(default_factory=time.monotonic)
    events: list[tuple[float, str]] = field(default_factory=list)

    def now(self) -> float:
        return time.monotonic() - self.start

    def progress(self, message: str) -> None:
        print(f"[{self.now():6.1f}s] {message}", file=self.out, flush=True)

    def event(self, message: str) -> None:
        self.events.append((self.now(), message))
        self.progress(message)

    def summary(self, lines: list[str]) -> None:
        print("\nTimeline", file=self.out)
        for at, message in self.events:
            print(f"  t={at:6.1f}s  {message}", file=self.out)
        for line in lines:
            print(f"  {line}", file=self.out)
        print(file=self.out, flush=True)


def wait_for(probe: Any, timeline: Timeline, what: str, process: Any, timeout: float = 240.0) -> Any:
    """Poll ``probe`` until it returns something truthy; say so every 10 s; fail if ``process``
    (when given) ends first."""
    deadline = time.monotonic() + timeout
    last_note = time.monotonic()
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"airflow dags test ended (exit {process.returncode}) while waiting for {what}")
        if time.monotonic() - last_note > 10:
            timeline.progress(f"... still waiting for {what}")
            last_note = time.monotonic()
        time.sleep(0.5)
    raise TimeoutError(f"gave up waiting for {what} after {timeout:.0f}s")
