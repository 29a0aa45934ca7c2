"""The bookkeeping record of one submission generation (``<external_id_key>_resumable``): its fields.

Why a format of its own: the record outlives the worker that wrote it and may be read by another
version of this package (a rolling upgrade, a rollback). So it carries a format ``version`` and
the ``package_version`` that wrote it, names requests and ids only by sha256 digest (a few hundred
bytes whatever their size, and no request in clear), and keeps the fields it does not know:
fields a newer version added to the same format survive this version's rewrites.

How it works: :class:`Checkpoint` and :class:`Completion` are frozen dataclasses; ``to_json``
writes what the store holds, with unknown fields (``extra``) first so known ones always win.
Reading and checking a stored record is :mod:`resumable_jobs.mixin.record_reader`'s job.

What it does not do: talk to the store (:mod:`resumable_jobs.mixin.checkpoint`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from resumable_jobs._version import __version__
from resumable_jobs.mixin.digests import digest

if TYPE_CHECKING:
    from pydantic import JsonValue

#: The record format this version reads and writes. Raise it only for changes an older version
#: must not misread; a new optional field is no reason (older versions keep it untouched).
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Completion:
    """A try that returned successfully for this generation's job (named by its digest)."""

    external_id_sha256: str
    try_number: int | None = None
    max_tries: int | None = None
    #: Fields a newer version wrote into the marker; kept as they are.
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, external_id: Any, *, try_number: int | None = None, max_tries: int | None = None) -> Completion:
        return cls(external_id_sha256=digest(external_id), try_number=try_number, max_tries=max_tries)

    def is_for(self, external_id: Any) -> bool:
        return external_id is not None and self.external_id_sha256 == digest(external_id)

    def to_json(self) -> dict[str, JsonValue]:
        known = {
            "external_id_sha256": self.external_id_sha256,
            "try_number": self.try_number,
            "max_tries": self.max_tries,
        }
        return {**self.extra, **{k: v for k, v in known.items() if v is not None}}


@dataclass(frozen=True)
class Checkpoint:
    """The bookkeeping record of one submission generation."""

    generation: int
    nonce: str
    #: sha256 hex digest of what ``request_fingerprint()`` returned (None: not fingerprinted).
    fingerprint: str | None = None
    #: Digest of the id this generation replaced (what the id key held when it began).
    superseded_sha256: str | None = None
    completed: Completion | None = None
    version: int = field(default=FORMAT_VERSION)
    #: Top-level fields a newer version wrote; kept on every rewrite.
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def supersedes(self, external_id: Any) -> bool:
        """True when ``external_id`` is the job an earlier generation left in the id key."""
        return external_id is not None and self.superseded_sha256 == digest(external_id)

    @classmethod
    def following(
        cls, previous: Checkpoint | None, *, nonce: str, fingerprint: str | None, superseded: Any
    ) -> Checkpoint:
        """The record of the generation after ``previous`` (the first one when None).

        ``superseded`` is what the id key holds now (None: nothing); fields of newer versions
        that ``previous`` carried are kept.
        """
        return cls(
            generation=previous.generation + 1 if previous is not None else 1,
            nonce=nonce,
            fingerprint=fingerprint,
            superseded_sha256=None if superseded is None else digest(superseded),
            extra=dict(previous.extra) if previous is not None else {},
        )

    def to_json(self) -> dict[str, JsonValue]:
        # None is not a storable value (spec section 3), so absent fields are left out.
        known = {
            "version": self.version,
            "package_version": __version__,
            "generation": self.generation,
            "nonce": self.nonce,
            "fingerprint": self.fingerprint,
            "superseded_sha256": self.superseded_sha256,
            "completed": self.completed.to_json() if self.completed is not None else None,
        }
        return {**self.extra, **{k: v for k, v in known.items() if v is not None}}

    def completed_with(self, completion: Completion) -> Checkpoint:
        return replace(self, completed=completion)
