"""What the core mixin keeps in ``task_state_store``, and in which order it writes it.

Two keys per operator:

* ``external_id_key`` holds the bare external id, exactly as upstream operators and
  ``airflow.sdk.ResumableJobMixin`` store it, so a task migrated in flight (upstream operator on
  one try, ours on the next) keeps reconnecting.
* ``<external_id_key>_resumable`` holds the bookkeeping of the current *submission generation*:
  the nonce behind the submission token, the generation number, the request fingerprint, the id
  of the job this generation replaced, and - once a try returned successfully - a completion
  marker.

Write order is what makes a crash at any point recoverable: the generation record is written
before ``submit_job`` (so a retry knows a submission may be in flight and which token it used),
the id right after it, the completion marker last. Values never expire on their own: a job id
must outlive the job (spec section 3, ``NEVER_EXPIRE``); ``[state_store] clear_on_success``
still removes them when the task succeeds, if a deployment wants that.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import JsonValue

CHECKPOINT_SUFFIX = "_resumable"
FORMAT_VERSION = 1


def validate_external_id_key(key: object, *, owner: str) -> None:
    """Reject keys the spec forbids (dots and slashes) or that cannot be a store key at all."""
    if not isinstance(key, str) or not key:
        raise TypeError(f"{owner}.external_id_key must be a non-empty string, got {key!r}")
    bad = sorted({ch for ch in key if ch in "./"})
    if bad:
        raise ValueError(
            f"{owner}.external_id_key={key!r} contains {' and '.join(repr(b) for b in bad)}; "
            "task_state_store keys must not contain dots or slashes (spec section 8). "
            "Pick a plain name such as 'my_job_id' - and never rename it once deployed."
        )


def ensure_json_id(external_id: object, *, owner: str) -> None:
    """Fail loudly when ``submit_job`` returned an id the store cannot hold."""
    try:
        json.dumps(external_id, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{owner}.submit_job() returned {external_id!r} ({type(external_id).__name__}), which is "
            "not JSON-serialisable, so it cannot be checkpointed for crash recovery. Return a str, "
            "int, float, bool, list or dict (for example the job's id as a string)."
        ) from err


@dataclass(frozen=True)
class Completion:
    """A try that returned successfully for this generation's job."""

    external_id: Any
    try_number: int | None = None
    max_tries: int | None = None


@dataclass(frozen=True)
class Checkpoint:
    """The bookkeeping record of one submission generation."""

    generation: int
    nonce: str
    fingerprint: str | None = None
    superseded: Any = None
    completed: Completion | None = None
    version: int = field(default=FORMAT_VERSION)

    @classmethod
    def from_json(cls, raw: object) -> Checkpoint | None:
        if not isinstance(raw, dict) or "generation" not in raw or "nonce" not in raw:
            return None
        completed = raw.get("completed")
        return cls(
            generation=int(raw["generation"]),
            nonce=str(raw["nonce"]),
            fingerprint=raw.get("fingerprint"),
            superseded=raw.get("superseded"),
            completed=Completion(**completed) if isinstance(completed, dict) else None,
            version=int(raw.get("version", FORMAT_VERSION)),
        )

    def to_json(self) -> dict[str, JsonValue]:
        # None is not a storable value (spec section 3), so absent fields are left out.
        return {k: v for k, v in asdict(self).items() if v is not None}

    def completed_with(self, completion: Completion) -> Checkpoint:
        return replace(self, completed=completion)


class CheckpointStore:
    """The two keys of one operator in one task instance's ``task_state_store``."""

    def __init__(self, task_state_store: Any, external_id_key: str) -> None:
        self._store = task_state_store
        self.id_key = external_id_key
        self.checkpoint_key = f"{external_id_key}{CHECKPOINT_SUFFIX}"

    @staticmethod
    def _retention() -> Any:
        from airflow.sdk import NEVER_EXPIRE

        return NEVER_EXPIRE

    def load(self) -> tuple[Any, Checkpoint | None]:
        """Return ``(stored external id or None, checkpoint or None)``."""
        return self._store.get(self.id_key), Checkpoint.from_json(self._store.get(self.checkpoint_key))

    def load_checkpoint(self) -> Checkpoint | None:
        return Checkpoint.from_json(self._store.get(self.checkpoint_key))

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        self._store.set(self.checkpoint_key, checkpoint.to_json(), retention=self._retention())

    def save_external_id(self, external_id: Any) -> None:
        self._store.set(self.id_key, external_id, retention=self._retention())
