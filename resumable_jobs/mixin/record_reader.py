"""Reading the bookkeeping record (``<external_id_key>_resumable``) back, and refusing one that is unusable.

Why: the record is what tells a retry whether an earlier try already started a job. A record
this version cannot read - damaged by hand, written by something else under the same key, or
written by a newer version of this package in a format this one does not know - must stop the
try *before* anything is submitted: guessing "no record" would submit a second job next to the
one the record describes, and a raw ``int()`` or ``TypeError`` names neither the key nor the fix.

How it works: :func:`parse_record` checks every field it knows and collects all that is wrong
into one :class:`~resumable_jobs.mixin.errors.DamagedRecordError`; a ``version`` above
:data:`~resumable_jobs.mixin.checkpoint.FORMAT_VERSION` raises
:class:`~resumable_jobs.mixin.errors.NewerRecordError`, naming the version found and the package
version that wrote it. Both messages say how to reset the key (:class:`RecordLocation`). Fields
it does not know are compatible additions of a newer version of the same format: they are kept
in ``extra`` and written back unchanged.

What it does not do: repair a record, or fall back to a fresh submission.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from resumable_jobs._version import __version__
from resumable_jobs.mixin.errors import DamagedRecordError, NewerRecordError
from resumable_jobs.mixin.record import FORMAT_VERSION, Checkpoint, Completion
from resumable_jobs.mixin.tokens import MAX_TOKEN_LENGTH, is_valid_nonce

DISTRIBUTION = "airflow-provider-resumable-jobs"
_RECORD_FIELDS = ("version", "package_version", "generation", "nonce", "fingerprint", "superseded_sha256", "completed")
_COMPLETION_FIELDS = ("external_id_sha256", "try_number", "max_tries")
_MAX_SHOWN = 200


@dataclass(frozen=True)
class RecordLocation:
    """The two keys of one operator in one task instance, for messages that say how to reset them."""

    id_key: str
    checkpoint_key: str
    ti: Any = None

    def delete_hint(self) -> str:
        """How to delete the bookkeeping key: the REST API call (Airflow 3.3 has no CLI for one key)."""
        ti = self.ti
        if ti is None or not all(getattr(ti, name, None) for name in ("dag_id", "run_id", "task_id")):
            where = "/api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/state-store"
            return f"DELETE {where}/{self.checkpoint_key}?map_index={{map_index}} on the API server"
        map_index = getattr(ti, "map_index", None)
        path = "/".join(
            (
                "/api/v2/dags",
                quote(str(ti.dag_id), safe=""),
                "dagRuns",
                quote(str(ti.run_id), safe=""),
                "taskInstances",
                quote(str(ti.task_id), safe=""),
                "state-store",
                quote(self.checkpoint_key, safe=""),
            )
        )
        return f"DELETE {path}?map_index={map_index if isinstance(map_index, int) else -1} on the API server"

    def reset_hint(self, stored_id: Any) -> str:
        if stored_id is None:
            holds = (
                f"{self.id_key!r} holds no job id, so check in the external system that no job an "
                "earlier try of this task instance started is still running"
            )
        else:
            holds = (
                f"{self.id_key!r} holds job {shorten(stored_id)}, which the next try follows (or replaces, "
                "if that job ended without success)"
            )
        return (
            f"To reset, delete only the key {self.checkpoint_key!r} ({self.delete_hint()}) and let "
            f"the task retry or clear it: {holds}."
        )


def shorten(value: Any) -> str:
    """``repr(value)``, cut to a readable length (ids can be tens of kilobytes)."""
    shown = repr(value)
    return shown if len(shown) <= _MAX_SHOWN else f"{shown[:_MAX_SHOWN]}... ({len(shown)} characters)"


def parse_record(raw: Any, location: RecordLocation, stored_id: Any = None) -> Checkpoint:
    """The record ``raw`` read from ``location.checkpoint_key``, or an error that says what to do."""
    if not isinstance(raw, dict):
        _damaged(location, stored_id, [f"it is a {type(raw).__name__} ({shorten(raw)}), not a JSON object"])
    problems: list[str] = []
    version = raw.get("version")
    if not _is_count(version) or version < 1:
        problems.append(f"'version' must be a whole number >= 1, got {_shown(raw, 'version')}")
    elif version > FORMAT_VERSION:
        _newer(location, version, raw.get("package_version"))
    generation = raw.get("generation")
    if not _is_count(generation):
        problems.append(f"'generation' must be a whole number >= 0, got {_shown(raw, 'generation')}")
    nonce = raw.get("nonce")
    if not is_valid_nonce(nonce) or len(nonce) > MAX_TOKEN_LENGTH // 2:
        problems.append(
            f"'nonce' must be a string of 1 to {MAX_TOKEN_LENGTH // 2} letters, digits, '_' and '-', "
            f"got {_shown(raw, 'nonce')}"
        )
    for name in ("fingerprint", "superseded_sha256", "package_version"):
        if name in raw and not isinstance(raw[name], str):
            problems.append(f"{name!r} must be a string, got {_shown(raw, name)}")
    completed = _completion(raw, problems)
    if problems:
        _damaged(location, stored_id, problems)
    return Checkpoint(
        generation=generation,
        nonce=nonce,
        fingerprint=raw.get("fingerprint"),
        superseded_sha256=raw.get("superseded_sha256"),
        completed=completed,
        version=version,
        extra={k: v for k, v in raw.items() if k not in _RECORD_FIELDS},
    )


def _completion(raw: dict[str, Any], problems: list[str]) -> Completion | None:
    if "completed" not in raw:
        return None
    completed = raw["completed"]
    if not isinstance(completed, dict):
        problems.append(f"'completed' must be a JSON object, got {_shown(raw, 'completed')}")
        return None
    if not isinstance(completed.get("external_id_sha256"), str):
        problems.append(
            f"'completed.external_id_sha256' must be a string, got {_shown(completed, 'external_id_sha256')}"
        )
    for name in ("try_number", "max_tries"):
        if name in completed and not _is_count(completed[name]):
            problems.append(f"'completed.{name}' must be a whole number >= 0, got {_shown(completed, name)}")
    if problems:
        return None
    return Completion(
        external_id_sha256=completed["external_id_sha256"],
        try_number=completed.get("try_number"),
        max_tries=completed.get("max_tries"),
        extra={k: v for k, v in completed.items() if k not in _COMPLETION_FIELDS},
    )


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _shown(mapping: dict[str, Any], name: str) -> str:
    if name not in mapping:
        return "nothing (the field is missing)"
    value = mapping[name]
    return f"{shorten(value)} ({type(value).__name__})"


def _damaged(location: RecordLocation, stored_id: Any, problems: list[str]) -> None:
    raise DamagedRecordError(
        f"task_state_store key {location.checkpoint_key!r} does not hold a bookkeeping record this "
        f"package can use: {'; '.join(problems)}. Nothing was submitted: without the record a try "
        "cannot tell whether an earlier try already started a job, and submitting anyway could run "
        f"it twice. {location.reset_hint(stored_id)}"
    )


def _newer(location: RecordLocation, version: int, package_version: Any) -> None:
    known = isinstance(package_version, str) and bool(package_version)
    writer = f"{DISTRIBUTION} {package_version}" if known else f"a newer release of {DISTRIBUTION}"
    needed = f"{DISTRIBUTION}>={package_version}" if known else f"the {DISTRIBUTION} release that wrote it"
    raise NewerRecordError(
        f"task_state_store key {location.checkpoint_key!r} holds a bookkeeping record of format "
        f"version {version}, written by {writer}; this worker runs {DISTRIBUTION} {__version__}, which "
        f"reads format version {FORMAT_VERSION} only. Nothing was submitted. Install {needed} on every "
        "worker that runs this task: a retry there carries on with the stored job. To go back to "
        f"{__version__} on purpose, delete the key {location.checkpoint_key!r} first "
        f"({location.delete_hint()})."
    )
