"""Which ``idempotency_token`` a Databricks submission carries.

Databricks hands back the existing run instead of starting a new one when a request carries a
token it has seen before. That closes the window between the POST returning and the run id being
persisted: a retry in the same submission generation sends the same token and gets the same run.
It also means a *fixed* token would hand back a failed run forever, so the token must change
when the mixin opens a new generation (after a terminal failure, an expired run or a clear).

* No token given by the user: the mixin's ``submission_token`` (already per generation).
* A token given by the user: sent unchanged in the first generation (and whenever no store is in
  use, as the upstream operator does); from the second generation on, a token derived from it and
  the generation's ``submission_token``: stable across the retries of that generation, new for
  each generation, at most 64 characters, and still recognisable by its prefix.
"""

from __future__ import annotations

import hashlib

__all__ = ["MAX_IDEMPOTENCY_TOKEN_LENGTH", "idempotency_token_for"]

MAX_IDEMPOTENCY_TOKEN_LENGTH = 64
_DIGEST_CHARS = 20


def idempotency_token_for(user_token: str | None, submission_token: str | None, generation: int | None) -> str | None:
    """Return the token to send (see the module docstring); None when there is nothing to send.

    ``generation`` is the mixin's ``submission_generation`` (0 or None when no store is used).
    """
    if not user_token:
        return submission_token
    user_token = str(user_token)
    if len(user_token) > MAX_IDEMPOTENCY_TOKEN_LENGTH:
        raise ValueError(
            f"idempotency_token must have at most {MAX_IDEMPOTENCY_TOKEN_LENGTH} characters "
            f"(Databricks rejects longer ones), got {len(user_token)}: {user_token!r}"
        )
    if generation is None or generation <= 1:
        return user_token
    digest = hashlib.sha256(f"{user_token}\n{submission_token}".encode()).hexdigest()[:_DIGEST_CHARS]
    tail = f"-g{generation}-{digest}"
    return user_token[: MAX_IDEMPOTENCY_TOKEN_LENGTH - len(tail)] + tail
