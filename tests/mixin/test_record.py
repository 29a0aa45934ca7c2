"""The bookkeeping record on its own: what is read back, what is refused, what the messages say."""

from __future__ import annotations

import json

import pytest

from resumable_jobs import __version__
from resumable_jobs.mixin.digests import digest, is_digest
from resumable_jobs.mixin.errors import DamagedRecordError, NewerRecordError
from resumable_jobs.mixin.record import FORMAT_VERSION, Checkpoint, Completion
from resumable_jobs.mixin.record_reader import RecordLocation, parse_record
from resumable_jobs.testing import FakeTaskInstance

TI = FakeTaskInstance(run_id="scheduled__2026-01-01T00:00:00+00:00", map_index=3)
HERE = RecordLocation("job_id", "job_id_resumable", TI)


def _parse(raw, stored_id=None):
    return parse_record(raw, HERE, stored_id)


def test_a_record_reads_back_as_it_was_written():
    written = Checkpoint.following(None, nonce="n0nce", fingerprint=digest("request"), superseded="old-job")
    written = written.completed_with(Completion.of("job-2", try_number=2, max_tries=3))
    raw = json.loads(json.dumps(written.to_json()))
    assert raw["package_version"] == __version__ and raw["version"] == FORMAT_VERSION
    assert _parse(raw) == written


def test_unknown_fields_survive_a_rewrite_at_the_top_and_inside_completed():
    raw = {
        "version": FORMAT_VERSION,
        "generation": 2,
        "nonce": "n0nce",
        "completed": {"external_id_sha256": digest("job-2"), "max_tries": 3, "finished_at": "2026-01-01"},
        "owner_team": "etl",
    }
    checkpoint = _parse(raw)
    assert checkpoint.completed.is_for("job-2")
    assert checkpoint.to_json()["owner_team"] == "etl"
    assert checkpoint.to_json()["completed"]["finished_at"] == "2026-01-01"
    following = Checkpoint.following(checkpoint, nonce="other", fingerprint=None, superseded="job-2")
    assert following.to_json()["owner_team"] == "etl"  # carried into the next generation


def test_ids_and_requests_are_held_as_digests_whatever_their_size():
    huge = "j" * 100_000
    record = Checkpoint.following(None, nonce="n0nce", fingerprint=digest(huge), superseded=huge)
    record = record.completed_with(Completion.of(huge))
    encoded = json.dumps(record.to_json())
    assert len(encoded) < 500 and huge not in encoded
    assert record.supersedes(huge) and record.completed.is_for(huge)
    assert is_digest(record.superseded_sha256)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (["generation", 1], "it is a list (['generation', 1]), not a JSON object"),
        ({"version": 1, "generation": "2", "nonce": "n"}, "'generation' must be a whole number >= 0, got '2' (str)"),
        ({"version": 1, "generation": -1, "nonce": "n"}, "'generation' must be a whole number >= 0, got -1 (int)"),
        ({"version": 1, "generation": True, "nonce": "n"}, "'generation' must be a whole number >= 0, got True"),
        ({"version": 1, "generation": 1}, "'nonce' must be a string of 1 to 32 letters, digits, '_' and '-', got "
         "nothing (the field is missing)"),
        ({"version": 1, "generation": 1, "nonce": "a b"}, "'nonce' must be a string of 1 to 32"),
        ({"version": 1, "generation": 1, "nonce": "n" * 33}, "'nonce' must be a string of 1 to 32"),
        ({"generation": 1, "nonce": "n"}, "'version' must be a whole number >= 1, got nothing"),
        ({"version": 1, "generation": 1, "nonce": "n", "fingerprint": 7}, "'fingerprint' must be a string, got 7"),
        ({"version": 1, "generation": 1, "nonce": "n", "completed": []}, "'completed' must be a JSON object"),
        (
            {"version": 1, "generation": 1, "nonce": "n", "completed": {"max_tries": 2}},
            "'completed.external_id_sha256' must be a string",
        ),
        (
            {"version": 1, "generation": 1, "nonce": "n", "completed": {"external_id_sha256": "d", "max_tries": "2"}},
            "'completed.max_tries' must be a whole number >= 0, got '2' (str)",
        ),
    ],
)
def test_a_damaged_record_names_the_key_what_is_wrong_and_how_to_reset_it(raw, problem):
    with pytest.raises(DamagedRecordError) as raised:
        _parse(raw, stored_id="job-7")
    message = str(raised.value)
    assert message.startswith("task_state_store key 'job_id_resumable' does not hold a bookkeeping record")
    assert problem in message
    assert "Nothing was submitted" in message
    # the exact REST call, with the run id quoted, and what the id key still holds
    assert (
        "DELETE /api/v2/dags/resumable_dag/dagRuns/scheduled__2026-01-01T00%3A00%3A00%2B00%3A00/"
        "taskInstances/resumable_task/state-store/job_id_resumable?map_index=3" in message
    )
    assert "'job_id' holds job 'job-7', which the next try follows (or replaces" in message


def test_every_problem_of_a_record_is_named_at_once():
    with pytest.raises(DamagedRecordError) as raised:
        _parse({"version": 1, "generation": "x", "nonce": 5})
    assert "'generation'" in str(raised.value) and "'nonce'" in str(raised.value)


def test_without_a_stored_id_the_reset_hint_says_to_look_for_a_running_job_first():
    with pytest.raises(DamagedRecordError) as raised:
        _parse("garbage")
    assert "'job_id' holds no job id, so check in the external system" in str(raised.value)


def test_a_newer_format_names_the_version_found_and_the_package_version_needed():
    with pytest.raises(NewerRecordError) as raised:
        _parse({"version": FORMAT_VERSION + 1, "package_version": "2.5.0", "layout": "whatever it became"})
    message = str(raised.value)
    assert f"format version {FORMAT_VERSION + 1}, written by airflow-provider-resumable-jobs 2.5.0" in message
    assert f"this worker runs airflow-provider-resumable-jobs {__version__}" in message
    assert "Install airflow-provider-resumable-jobs>=2.5.0 on every worker" in message
    assert "Nothing was submitted" in message


def test_a_newer_format_without_a_package_version_still_says_what_to_do():
    with pytest.raises(NewerRecordError) as raised:
        _parse({"version": FORMAT_VERSION + 7})
    assert "written by a newer release of airflow-provider-resumable-jobs" in str(raised.value)
