"""Reviewing source text, files and folders: parse once, run the selected rules, apply noqa.

Why: everything that is not a rule (reading files, reporting files that do not parse,
``# noqa`` comments, choosing rules) lives here, so rules stay pure functions of a module.

How: each file is read as bytes and decoded the way Python does (a coding cookie is honoured),
parsed with :func:`ast.parse`, indexed once, and handed to every selected rule. A file that
cannot be read, decoded or parsed becomes a :class:`FileError`, never an exception. A finding
is dropped when its line carries ``# noqa`` or ``# noqa: <codes>`` naming its code (the same
syntax ruff and flake8 use, so add ``RJ`` to ruff's ``lint.external`` to keep ruff quiet).

What it does not do: import or execute the reviewed files.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections.abc import Iterable, Sequence

from resumable_jobs.review.findings import FileError, Finding, ReviewResult
from resumable_jobs.review.index import ModuleIndex
from resumable_jobs.review.rules import ALL_RULES, Rule

__all__ = ["review_file", "review_files", "review_source"]

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def review_source(source: str, path: str = "<string>", rules: Sequence[Rule] = ALL_RULES) -> list[Finding]:
    """Findings for one module's source text. Raises SyntaxError if it does not parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences in DAG files are not our concern
        tree = ast.parse(source, filename=path)
    index = ModuleIndex(tree, source, path)
    findings = {finding for rule in rules for finding in rule.check(index)}
    return sorted(_without_noqa(findings, source))


def review_file(path: str, rules: Sequence[Rule] = ALL_RULES) -> list[Finding] | FileError:
    """Findings for one file, or the reason it could not be reviewed; never raises."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        return FileError(path, f"cannot read: {exc.strerror or exc}")
    try:
        source = _decode(raw)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        # detect_encoding raises SyntaxError for bytes that match no declared encoding
        return FileError(path, f"cannot decode: {getattr(exc, 'msg', None) or exc}")
    try:
        return review_source(source, path, rules)
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        return FileError(path, f"cannot parse: {exc.msg}{where}")
    except ValueError as exc:  # source with null bytes
        return FileError(path, f"cannot parse: {exc}")


def review_files(paths: Iterable[str], rules: Sequence[Rule] = ALL_RULES, jobs: int = 1) -> ReviewResult:
    """Review every file; ``jobs`` > 1 spreads large trees over that many processes.

    Parallel and serial runs give identical results: files are independent and the result is
    sorted at the end.
    """
    paths = list(paths)
    result = ReviewResult(files_reviewed=len(paths))
    if jobs > 1 and len(paths) >= _PARALLEL_THRESHOLD:
        outcomes: Iterable[list[Finding] | FileError] = _review_in_processes(paths, rules, jobs)
    else:
        outcomes = (review_file(path, rules) for path in paths)
    for outcome in outcomes:
        if isinstance(outcome, FileError):
            result.errors.append(outcome)
        else:
            result.findings.extend(outcome)
    result.sort()
    return result


#: Below this many files a process pool costs more than it saves.
_PARALLEL_THRESHOLD = 200


def _review_in_processes(paths: list[str], rules: Sequence[Rule], jobs: int) -> list[list[Finding] | FileError]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    codes = [rule.code for rule in rules]
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    context = multiprocessing.get_context(method)
    chunk = max(1, len(paths) // (jobs * 8))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        return list(pool.map(_review_by_codes, paths, [codes] * len(paths), chunksize=chunk))


def _review_by_codes(path: str, codes: list[str]) -> list[Finding] | FileError:
    from resumable_jobs.review.rules import RULES_BY_CODE

    return review_file(path, [RULES_BY_CODE[code] for code in codes])


def _decode(raw: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    text = raw.decode(encoding)
    return text[1:] if text.startswith("\ufeff") else text


def _without_noqa(findings: Iterable[Finding], source: str) -> Iterable[Finding]:
    if "noqa" not in source:
        return findings
    lines = source.splitlines()
    kept = []
    for finding in findings:
        line = lines[finding.line - 1] if finding.line <= len(lines) else ""
        match = _NOQA.search(line)
        if match is None:
            kept.append(finding)
            continue
        codes = match.group("codes")
        if codes is not None and finding.code not in {c.upper() for c in re.split(r"[\s,]+", codes)}:
            kept.append(finding)
    return kept
