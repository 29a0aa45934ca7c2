"""What the core mixin keeps in ``task_state_store``, and in which order it writes it.

Three keys per operator:

* ``external_id_key`` holds the bare external id, exactly as upstream operators and
  ``airflow.sdk.ResumableJobMixin`` store it, so a task migrated in flight (upstream operator on
  one try, ours on the next) keeps reconnecting. It is the only place the id is stored.
* ``<external_id_key>_resumable`` holds the bookkeeping of the current *submission generation*:
  the nonce behind the submission token, the generation number, the sha256 digest of the
  request fingerprint, the digest of the id this generation replaced, and - once a try returned
  successfully - a completion marker naming its job by digest. Digests keep the record a few
  hundred bytes whatever the size of an id or a request, and keep requests (and the secrets
  they may carry) out of the store. Fields this version does not know (written by a newer one)
  are kept on every rewrite (:mod:`resumable_jobs.mixin.record`); a record that cannot be
  read stops the try before anything is submitted (:mod:`resumable_jobs.mixin.record_reader`).
* ``<external_id_key>_cancelled`` holds the digest of the last job a try cancelled on purpose
  (the task was stopped, cleared or timed out, or failed its last try). A cancelled job can go
  on reporting itself active while it winds down (Databricks' TERMINATING, a pod being deleted);
  the next try must not reconnect to it. A key of its own, written with one call, because it is
  written from ``on_kill``, and because it must also work where a clear discarded the other two
  (a later Airflow empties ``task_state_store`` on clear): on its own it only says "not that one".

Write order is what makes a crash at any point recoverable: the generation record is written
before ``submit_job`` (so a retry knows a submission may be in flight and which token it used),
the id right after it, the completion marker last. Values never expire on their own: a job id
must outlive the job (spec section 3, ``NEVER_EXPIRE``); ``[state_store] clear_on_success``
still removes them when the task succeeds, if a deployment wants that.
"""

from __future__ import annotations

import json
from typing import Any

from resumable_jobs.mixin.digests import digest
from resumable_jobs.mixin.record import Checkpoint
from resumable_jobs.mixin.record_reader import RecordLocation, parse_record

CHECKPOINT_SUFFIX = "_resumable"
CANCELLED_SUFFIX = "_cancelled"


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


def is_empty_id(external_id: object) -> bool:
    """True for a stored id that names no job: ``""``, ``[]`` or ``{}`` (upstream treats them as absent)."""
    return isinstance(external_id, str | list | dict) and len(external_id) == 0


class CheckpointStore:
    """The two keys of one operator in one task instance's ``task_state_store``."""

    def __init__(self, task_state_store: Any, external_id_key: str, *, ti: Any = None) -> None:
        self._store = task_state_store
        self.id_key = external_id_key
        self.checkpoint_key = f"{external_id_key}{CHECKPOINT_SUFFIX}"
        self.cancelled_key = f"{external_id_key}{CANCELLED_SUFFIX}"
        #: Where the keys live, for messages that say how to reset them.
        self.location = RecordLocation(self.id_key, self.checkpoint_key, ti)

    @staticmethod
    def _retention() -> Any:
        from airflow.sdk import NEVER_EXPIRE

        return NEVER_EXPIRE

    def load(self) -> tuple[Any, Checkpoint | None]:
        """Return ``(stored external id or None, checkpoint or None)``.

        Raises :class:`~resumable_jobs.mixin.errors.StoreRecordError` for a bookkeeping record
        this version cannot use (:mod:`resumable_jobs.mixin.record_reader`).
        """
        stored_id = self._store.get(self.id_key)
        return stored_id, self.load_checkpoint(stored_id)

    def load_checkpoint(self, stored_id: Any = None) -> Checkpoint | None:
        raw = self._store.get(self.checkpoint_key)
        return None if raw is None else parse_record(raw, self.location, stored_id)

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        self._store.set(self.checkpoint_key, checkpoint.to_json(), retention=self._retention())

    def save_cancelled(self, external_id: Any) -> None:
        """Remember that a try cancelled ``external_id`` on purpose (by digest)."""
        self._store.set(self.cancelled_key, digest(external_id), retention=self._retention())

    def was_cancelled(self, external_id: Any) -> bool:
        """Whether ``external_id`` is the job a try of this task instance last cancelled on purpose."""
        return external_id is not None and self._store.get(self.cancelled_key) == digest(external_id)

    def save_external_id(self, external_id: Any) -> None:
        """Persist the id; raise :class:`IdTooLargeToPersist` when the store refused it for its size."""
        try:
            self._store.set(self.id_key, external_id, retention=self._retention())
        except Exception as error:
            size, limit = len(json.dumps(external_id)), configured_value_limit()
            if limit > 0 and size > limit:
                raise IdTooLargeToPersist(size, limit) from error
            raise


class IdTooLargeToPersist(Exception):
    """The store refused the id, and it is over ``[state_store] max_value_storage_bytes``."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"{size} bytes as JSON, over [state_store] max_value_storage_bytes ({limit})")


def configured_value_limit() -> int:
    """``[state_store] max_value_storage_bytes`` (0: no limit), the size Airflow checks values against."""
    from airflow.sdk import conf

    return conf.getint("state_store", "max_value_storage_bytes", fallback=0)
