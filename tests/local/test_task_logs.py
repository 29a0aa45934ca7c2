"""TaskLog: finding what a try said in the JSON log file Airflow wrote, by message and by field."""

from __future__ import annotations

import json

from resumable_jobs.local.task_logs import LogLine, TaskLog


def _log(tmp_path, *events) -> TaskLog:
    folder = tmp_path / "dag_id=d" / "run_id=r" / "task_id=t"
    folder.mkdir(parents=True)
    lines = [json.dumps(e) if isinstance(e, dict) else e for e in events]
    (folder / "attempt=2.log").write_text("\n".join(lines) + "\n")
    return TaskLog(tmp_path, "d", "r", "t", 2)


def test_a_log_line_matches_the_message_and_every_field_it_names(tmp_path):
    log = _log(
        tmp_path,
        {"event": "Reconnecting to existing job", "external_id": "driver-1", "status": "RUNNING", "level": "info"},
        {"event": "Persisted external ID to task store", "external_id": 42, "generation": 2, "level": "info"},
    )
    assert log.contains(LogLine("Reconnecting to existing job", {"external_id": "driver-1"}))
    assert not log.contains(LogLine("Reconnecting to existing job", {"external_id": "driver-2"}))  # another job
    assert not log.contains(LogLine("Reconnecting to existing job", {"generation": 1}))  # a field it lacks
    # values compare as text: a numeric run id matches the id a backend reports as a string
    assert log.find(LogLine("Persisted external ID", {"external_id": "42", "generation": 2})).fields["generation"] == 2


def test_a_fragment_still_matches_the_message_or_the_raw_line(tmp_path):
    log = _log(tmp_path, {"event": "Task failed", "error_detail": "ExternalJobFailed: driver-7 ended FAILED"}, "Killed")
    assert log.contains("ExternalJobFailed: driver-7")  # inside the fields of the JSON line
    assert log.contains("Killed")  # a line that is not JSON
    assert not log.contains(LogLine("ExternalJobFailed"))  # a LogLine looks at the message only
