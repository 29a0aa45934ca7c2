"""Read one try's task log as Airflow wrote it, with the time of each line.

What it is for: crash drills assert what a try *said* ("Reconnecting to existing job" about this
job, "Persisted external ID to task store"), and the recovery benchmark measures *when* it said it. Airflow 3 writes each try's log as
JSON lines (one structlog event per line, with an ISO timestamp) under the deployment's
``base_log_folder``; this module finds that file and parses it.

How it works: :class:`TaskLog` locates ``dag_id=<dag>/run_id=<run>/task_id=<task>/attempt=<n>.log``
(Airflow's default ``log_filename_template``, mapped index folders included), reads it afresh on
every call (the file grows while the try runs) and turns each JSON line into a
:class:`LogEvent`. A search is a fragment of the message, or a :class:`LogLine`: a fragment plus
the structured fields the event must carry (``external_id``, ``generation``, ...). Lines that are not JSON (a crash's last words on stderr) are kept as events
without a timestamp.

What it does not do: it does not read remote logs or the triggerer's own log stream; it never
writes.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resumable_jobs.local.net import wait_until

__all__ = ["LogEvent", "LogLine", "TaskLog"]


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


@dataclass(frozen=True)
class LogLine:
    """An event to look for: ``fragment`` in its message, and each of ``fields`` with that value.

    Values compare as text, so a job id logged as a number matches the same id given as a string.
    """

    fragment: str
    fields: dict[str, Any] = field(default_factory=dict)

    def matches(self, event: LogEvent) -> bool:
        if self.fragment not in event.text:
            return False
        return all(key in event.fields and str(event.fields[key]) == str(value) for key, value in self.fields.items())

    def __str__(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self.fields.items())
        return f"{self.fragment!r} ({shown})" if shown else repr(self.fragment)


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

    def find(self, what: str | LogLine) -> LogEvent | None:
        """The first line matching ``what``.

        A fragment matches a line whose message (or, for exceptions, whose fields) contain it; a
        :class:`LogLine` also needs its fields.
        """
        if isinstance(what, LogLine):
            return next((event for event in self.events() if what.matches(event)), None)
        return next((event for event in self.events() if what in event.text or what in event.raw), None)

    def contains(self, what: str | LogLine) -> bool:
        return self.find(what) is not None

    def wait_for(self, what: str | LogLine, *, timeout: float = 300.0, check: Any = None) -> LogEvent:
        """Wait until a line matching ``what`` is written; return it."""
        shown = what if isinstance(what, LogLine) else repr(what)
        return wait_until(
            lambda: self.find(what),
            timeout=timeout,
            what=f"{self.dag_id}/{self.run_id}/{self.task_id} try {self.try_number} to log {shown}",
            check=check,
        )

    def first_timestamp(self) -> datetime.datetime | None:
        return next((event.timestamp for event in self.events() if event.timestamp), None)
