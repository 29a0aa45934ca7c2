"""Reading a try's task log file as the structured events the task logged."""

from __future__ import annotations

import json


def log_events(text: str) -> list[dict]:
    """The JSON lines of a task log (Airflow writes one event with its fields per line)."""
    events = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and "event" in event:
            events.append(event)
    return events


def has_event(text: str, fragment: str, **fields: object) -> bool:
    """True when one event's message contains ``fragment`` and it carries every field given."""
    return any(
        fragment in str(event["event"]) and all(event.get(key) == value for key, value in fields.items())
        for event in log_events(text)
    )
