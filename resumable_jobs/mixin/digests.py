"""sha256 digests of JSON values: how the bookkeeping record refers to a request or a job id.

Why: the record must stay small whatever a request or an id looks like, and must never hold a
request in clear (a request can carry a password, a token, a signed URL). A digest is 64
characters whatever it digests, and it still answers the only question the record asks of a
request or an id: "is it the same one?".

How it works: the value is written as canonical JSON (sorted keys, no whitespace; values JSON
cannot express are written with ``str()``) and hashed with sha256; the hex digest is returned.
Two values digest alike exactly when their canonical JSON is the same, so ``{"a": 1, "b": 2}``
and ``{"b": 2, "a": 1}`` match, ``5`` and ``"5"`` do not.

What it does not do: hide a secret that is guessable. A digest of a request whose only unknown
part is a short password can be found by trying passwords; leave secrets out of what you
fingerprint (see ``request_fingerprint`` in the README).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

#: What :func:`digest` returns: 64 lowercase hex characters.
DIGEST_PATTERN = re.compile(r"[0-9a-f]{64}")


def digest(value: Any) -> str:
    """The sha256 hex digest of ``value``'s canonical JSON (see the module docstring)."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def is_digest(value: Any) -> bool:
    """True for a string :func:`digest` could have returned."""
    return isinstance(value, str) and DIGEST_PATTERN.fullmatch(value) is not None
