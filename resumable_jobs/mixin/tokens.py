"""Submission tokens: how a retry recognises a job its crashed predecessor submitted.

A token is built from a random nonce (persisted with the submission intent before ``submit_job``)
and the generation number. It is therefore stable across the retries of one generation, new for
every generation, different per task instance (each has its own store and nonce) and impossible to
guess from outside, so nobody can pre-create a job that a retry would adopt. A readable prefix
from the task id and map index helps a person find the job in the external system's UI; it
carries no security weight.
"""

from __future__ import annotations

import re
import secrets

MAX_TOKEN_LENGTH = 64
_NONCE_BYTES = 12  # 24 hex characters, 96 random bits
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def new_nonce() -> str:
    """A fresh random nonce for one submission generation."""
    return secrets.token_hex(_NONCE_BYTES)


def is_valid_nonce(nonce: object) -> bool:
    """True for a nonce a token can be built from: a non-empty string of ``[A-Za-z0-9_-]``."""
    return isinstance(nonce, str) and bool(nonce) and not _UNSAFE.search(nonce)


def build_token(*, nonce: str, generation: int, task_id: str | None = None, map_index: int | None = None) -> str:
    """Return ``<task>[-m<index>]-g<generation>-<nonce>``, at most 64 characters of ``[A-Za-z0-9_-]``.

    The readable part is cut first when the whole would be too long; nonce and generation are
    never cut, because they are what makes the token unique and unguessable.
    """
    if generation < 0:
        raise ValueError(f"generation must be >= 0, got {generation}")
    if not is_valid_nonce(nonce):
        raise ValueError(f"nonce must be a non-empty string of [A-Za-z0-9_-], got {nonce!r}")
    tail = f"g{generation}-{nonce}"
    label = _UNSAFE.sub("_", task_id or "").strip("_-")
    if map_index is not None and map_index >= 0:
        label = f"{label}-m{map_index}" if label else f"m{map_index}"
    room = MAX_TOKEN_LENGTH - len(tail) - 1
    label = label[:room].rstrip("_-") if room > 0 else ""
    token = f"{label}-{tail}" if label else tail
    if len(token) > MAX_TOKEN_LENGTH:
        raise ValueError(f"submission token would exceed {MAX_TOKEN_LENGTH} characters: {token!r}")
    return token


def one_off_token(*, task_id: str | None = None, map_index: int | None = None) -> str:
    """A token for a try that keeps no state (shim, ``durable=False``): new on every call."""
    return build_token(nonce=new_nonce(), generation=0, task_id=task_id, map_index=map_index)
