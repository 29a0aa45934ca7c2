"""Read one try's task log as Airflow wrote it, with the time of each line.

What it is for: crash drills assert what a try *said* ("Reconnecting to job ...", "Submitted job
..."), and the recovery benchmark measures *when* it said it. Airflow 3 writes each try's log as
JSON lines (one structlog event per line, with an ISO timestamp) under the deployment's
``base_log_folder``; this module finds that file and parses it.

How it works: :class:`TaskLog` locates ``dag_id=<dag>/run_id=<run>/task_id=<task>/attempt=<n>.log``
(Airflow's default ``log_filename_template``, mapped index folders included), reads it afresh on
every call (the file grows while the try runs) and turns each JSON line into a
:class:`LogEvent`. Lines that are not JSON (a crash's last words on stderr) are kept as events
without a timestamp.

What it does not do: it does not read remote logs or the triggerer's own log stream; it never
writes.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resumable_jobs.local.net import wait_until

__all__ = ["LogEvent", "TaskLog"]


@dataclass(frozen=True)
class LogEvent:
    """One line of a task log."""

    text: str
    level: str
    timestamp: datetime.datetime | None
    fields: dict[str, Any]
    #: The line as written (JSON): an exception's message lives in its fields, not in ``text``.
    raw: str = ""

    @property
    def epoch(self) -> float | None:
        return self.timestamp.timestamp() if self.timestamp else None


def _parse(line: str) -> LogEvent:
    try:
        record = json.loads(line)
    except ValueError:
        return LogEvent(line, "", None, {}, line)
    if not isinstance(record, dict):
        return LogEvent(line, "", None, {}, line)
    stamp = record.get("timestamp")
    timestamp = None
    if isinstance(stamp, str):
        try:
            timestamp = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            timestamp = None
    return LogEvent(str(record.get("event", "")), str(record.get("level", "")), timestamp, record, line)


class TaskLog:
    """The log of one try of one task instance (see the module docstring)."""

    def __init__(self, base_folder: Path, dag_id: str, run_id: str, task_id: str, try_number: int) -> None:
        self.base_folder = Path(base_folder)
        self.dag_id, self.run_id, self.task_id, self.try_number = dag_id, run_id, task_id, try_number

    def paths(self) -> list[Path]:
        folder = self.base_folder / f"dag_id={self.dag_id}" / f"run_id={self.run_id}" / f"task_id={self.task_id}"
        name = f"attempt={self.try_number}.log"
        return sorted({*folder.glob(name), *folder.glob(f"map_index=*/{name}")})

    def text(self) -> str:
        return "\n".join(path.read_text(errors="replace") for path in self.paths())

    def events(self) -> list[LogEvent]:
        return [_parse(line) for line in self.text().splitlines() if line.strip()]

    def find(self, fragment: str) -> LogEvent | None:
        """The first line whose message (or, for exceptions, whose fields) contain ``fragment``."""
        return next((event for event in self.events() if fragment in event.text or fragment in event.raw), None)

    def contains(self, fragment: str) -> bool:
        return self.find(fragment) is not None

    def wait_for(self, fragment: str, *, timeout: float = 300.0, check: Any = None) -> LogEvent:
        """Wait until a line containing ``fragment`` is written; return it."""
        return wait_until(
            lambda: self.find(fragment),
            timeout=timeout,
            what=f"{self.dag_id}/{self.run_id}/{self.task_id} try {self.try_number} to log {fragment!r}",
            check=check,
        )

    def first_timestamp(self) -> datetime.datetime | None:
        return next((event.timestamp for event in self.events() if event.timestamp), None)
