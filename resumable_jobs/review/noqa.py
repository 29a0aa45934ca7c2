"""``# noqa`` comments: which codes a comment on a line silences.

Why: findings made in a worker process and findings decided later over the whole tree (RJ001,
RJ004) must honour the same comments, so the parsing lives in one place.

How: ``# noqa`` alone silences every code on its line; ``# noqa: RJ001, RJ004`` only those.
It is the syntax ruff and flake8 use, so add ``RJ`` to ruff's ``lint.external``.
"""

from __future__ import annotations

import re

__all__ = ["noqa_codes", "silences"]

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def noqa_codes(line: str) -> str | None:
    """None when the line has no noqa comment, "*" for a bare one, else "RJ001,RJ004"."""
    if "noqa" not in line:
        return None
    match = _NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if codes is None:
        return "*"
    return ",".join(c.upper() for c in re.split(r"[\s,]+", codes) if c)


def silences(line: str, code: str) -> bool:
    codes = noqa_codes(line)
    return codes is not None and (codes == "*" or code in codes.split(","))
