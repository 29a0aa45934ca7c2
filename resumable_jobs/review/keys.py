"""What a key name says about the value stored under it.

Why: a Variable read inside a task is usually configuration, which is exactly what Variables
are for (spec section 1). The reviewer only speaks up when the key itself names per-run state:
an external job id, a cursor or offset, a watermark. Keeping that vocabulary in one place makes
the precision trade-off visible and testable.

How: a key such as ``"spark_job_id"``, ``"lastProcessedAt"`` or ``f"watermark_{table}"`` is
split into lower-case words, then matched against small word lists. Job ids are checked first,
so ``"last_run_id"`` is a job id and not a watermark.

What it does not do: guess from values or from how a key is used; rules combine the kind with
usage (for example "read and written by a task") where the name alone is not enough.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum
from itertools import pairwise

__all__ = [
    "KeyKind",
    "abbreviates_a_watermark",
    "classify",
    "is_strong",
    "names_a_date",
    "names_a_place",
    "names_a_switch",
    "names_an_offset",
    "names_configuration",
    "names_progress",
    "names_which_run_only",
    "words",
]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")


class KeyKind(Enum):
    JOB_ID = "external job id"
    CURSOR = "cursor"
    WATERMARK = "watermark"


#: words that, followed by "id", name an external job or run
_JOB_WORDS = frozenset(
    {"job", "run", "driver", "application", "app", "batch", "query", "statement", "submission", "execution", "step"}
)
_JOB_COMPOUNDS = frozenset({"jobid", "runid", "driverid", "appid", "applicationid", "batchid"})
_CURSOR_WORDS = frozenset({"cursor", "offset", "offsets", "checkpoint", "bookmark", "resume"})
_TOKEN_PAIRS = (("page", "token"), ("next", "token"), ("continuation", "token"), ("last", "id"))
_WATERMARK_WORDS = frozenset({"watermark", "watermarks", "hwm", "highwatermark"})
#: short forms of "watermark" that are also other things' names (``wm_theme``): a watermark only
#: as a whole word of a key a task both reads and writes back (see :func:`abbreviates_a_watermark`)
_WATERMARK_ABBREVIATIONS = frozenset({"wm"})
_RECENCY_WORDS = frozenset({"last", "latest", "max", "prev", "previous"})
#: calendar units that say which period a key holds (``last_report_week``, ``current_season``):
#: after a recency word they make a last-processed time, like ``date`` or ``ts`` do
_PERIOD_WORDS = frozenset({"week", "month", "year", "quarter", "season", "hour", "minute"})
_PROGRESS_WORDS = _PERIOD_WORDS | frozenset(
    {
        "at",
        "ts",
        "time",
        "timestamp",
        "date",
        "datetime",
        "dt",
        "day",
        "processed",
        "synced",
        "sync",
        "loaded",
        "load",
        "updated",
        "update",
        "modified",
        "extracted",
        "ingested",
        "success",
        "successful",
        "run",
        "seen",
        "fetched",
    }
)
#: words that make a key a count of things, not a position in them
_COUNT_WORDS = frozenset({"num", "count", "counts", "number", "total", "totals"})
#: words unambiguous enough that even a read-only use of the key is per-run state
_STRONG_WORDS = frozenset({"cursor", "checkpoint", "bookmark"}) | _WATERMARK_WORDS


def words(key: str) -> list[str]:
    """``"lastProcessedAt"`` -> ``["last", "processed", "at"]``; ``{}`` placeholders dropped.

    A new list each call (callers may change it), from a cache: the same keys and names come
    back in file after file, and two regular expressions per call add up.
    """
    found = _WORDS.get(key)
    if found is None:
        if len(_WORDS) > _CACHE_SIZE:
            _WORDS.clear()
        found = _WORDS[key] = tuple(w.lower() for w in _SPLIT.split(_CAMEL.sub(" ", key.replace("{}", " "))) if w)
    return list(found)


def classify(key: str | None) -> KeyKind | None:
    """The kind of per-run state a key names, or ``None`` for anything else (configuration)."""
    if not key:
        return None
    if key in _KINDS:
        return _KINDS[key]
    if len(_KINDS) > _CACHE_SIZE:
        _KINDS.clear()
    kind = _KINDS[key] = _classify(key)
    return kind


#: memo tables of :func:`words` and :func:`classify`, emptied when they reach the size below
_WORDS: dict[str, tuple[str, ...]] = {}
_KINDS: dict[str, KeyKind | None] = {}
_CACHE_SIZE = 4096


class _Answers(dict):
    """A predicate's answers by key, each worked out once (on the first miss) and emptied like
    the tables above. Why: rules ask the same few questions of the same keys in file after
    file, and each answer splits the key into words and builds sets again. The predicate is
    called through the table's ``__getitem__``, a lookup in C with no Python frame on a hit."""

    __slots__ = ("predicate",)

    def __init__(self, predicate: Callable[[str], bool]) -> None:
        super().__init__()
        self.predicate = predicate

    def __missing__(self, key: str | None) -> bool:
        if len(self) > _CACHE_SIZE:
            self.clear()
        found = self[key] = bool(key) and self.predicate(key)
        return found


def _memoized(predicate: Callable[[str], bool]) -> Callable[[str | None], bool]:
    """``predicate`` answered once per key (False for no key): see :class:`_Answers`."""
    return _Answers(predicate).__getitem__


def _classify(key: str) -> KeyKind | None:
    ws = words(key)
    present = set(ws)
    if present & _JOB_COMPOUNDS:
        return KeyKind.JOB_ID
    for first, second in pairwise(ws):
        if first in _JOB_WORDS and second == "id":
            return KeyKind.JOB_ID
    if present & _WATERMARK_WORDS or ("high" in present and "water" in present):
        return KeyKind.WATERMARK
    recency_at = next((i for i, w in enumerate(ws) if w in _RECENCY_WORDS), None)
    # "last_num_updated_recs" counts what the last run did (a statistic), it is no position
    # "last_processed_league" names the last thing a run handled, not a time: decided by use
    if (
        recency_at is not None
        and "id" not in present
        and not present & _COUNT_WORDS
        and set(ws[recency_at + 1 :]) & _PROGRESS_WORDS
        and not _names_last_thing(ws)
    ):
        return KeyKind.WATERMARK
    if present & _CURSOR_WORDS:
        return KeyKind.CURSOR
    for first, second in _TOKEN_PAIRS:
        if first in present and second in present:
            return KeyKind.CURSOR
    return None


#: words after "last" that say only which run (``last_successful_run``), not what time or how far
_WHICH_RUN_WORDS = frozenset({"success", "successful", "run"})
#: last words of a value's name that make it a place (``run_dir``, ``export_path``)
_PLACE_WORDS = frozenset({"dir", "directory", "path", "folder", "uri", "url", "file", "location", "prefix"})


@_memoized
def names_which_run_only(key: str | None) -> bool:
    """A watermark by name only because it says "the last (successful) run"
    (``last_successful_harvest_run``), with no word for a time or for how far it got."""
    if classify(key) is not KeyKind.WATERMARK:
        return False
    ws = words(key)
    if set(ws) & _WATERMARK_WORDS:
        return False
    after = set(ws[next(i for i, w in enumerate(ws) if w in _RECENCY_WORDS) + 1 :])
    return after & _PROGRESS_WORDS <= _WHICH_RUN_WORDS


@_memoized
def names_a_place(name: str | None) -> bool:
    """A name whose last word is a place (``run_dir``, ``latest_export_path``)."""
    ws = words(name) if name else []
    return bool(ws) and ws[-1] in _PLACE_WORDS


#: words that make a key a point in time (``current_date``, ``next_run_ts``, ``process_day``)
_DATE_WORDS = frozenset({"date", "datetime", "day", "dt", "ts", "time", "timestamp"}) | _PERIOD_WORDS


@_memoized
def names_a_date(key: str | None) -> bool:
    """A key naming a date or a time, and not a count of something (``days_count``)."""
    if not key:
        return False
    present = set(words(key))
    return bool(present & _DATE_WORDS) and not present & _COUNT_WORDS


_OFFSET_WORDS = frozenset({"offset", "offsets"})
#: words that, somewhere before ``id``, make it a position in a sequence of ids (``from_id``,
#: ``last_loaded_id``, ``max_id``, ``since_id``) rather than the id of one thing
_ID_POSITION_WORDS = frozenset(
    {"from", "start", "since", "last", "latest", "max", "next", "high", "upto", "until"}
    | {"processed", "loaded", "synced", "seen", "fetched", "extracted", "ingested", "sent", "exported"}
)


@_memoized
def names_an_offset(key: str | None) -> bool:
    """An offset, or a position in a sequence of ids (``send_from_id``, ``last_loaded_id``):
    read and moved on by a task it is progress from run to run. An external job id
    (``last_run_id``) is not one."""
    if not key:
        return False
    ws = words(key)
    if set(ws) & _OFFSET_WORDS:
        return True
    if classify(key) is KeyKind.JOB_ID:
        return False
    if _names_last_thing(ws):
        return True
    if "id" not in ws:
        return False
    return any(w == "id" and not _ID_POSITION_WORDS.isdisjoint(ws[:i]) for i, w in enumerate(ws))


#: verbs after "last" whose object is a thing a run handled (``last_processed_league``,
#: ``latest_loaded_file``, ``last_accessed_element``), where ``last_synced``/``last_updated`` name
#: when it happened
_THING_VERBS = frozenset(
    {"processed", "loaded", "seen", "fetched", "extracted", "ingested", "sent", "exported"}
    | {"accessed", "read", "consumed", "downloaded", "scraped", "crawled", "polled"}
)
#: words for a point or a period of time (``last_processed_month``, ``last_loaded_season``)
_TIME_WORDS = _DATE_WORDS | {"at", "years", "minute", "period", "epoch"}
#: words that join the thing to the rest of the key (``last_processed_team_for_matches``)
_JOINING_WORDS = frozenset({"for", "of", "in", "on", "by", "the", "a", "per"})


def _names_last_thing(ws: list[str]) -> bool:
    """``last_processed_league``, ``last_processed_changeset_sequence``, ``last_s3_key_processed``:
    the last thing (an id, a name, a sequence number, a file) a run handled, named by a verb and
    the thing in either order, with no word for a time. Such a key is a position in a sequence of things, not a watermark by its name: what it
    is comes from how it is used (moved on by one task and read back by others: RJ004; handed
    from one task to another of its DAG, or moved on by a task nothing else reads: RJ001)."""
    recency_at = next((i for i, w in enumerate(ws) if w in _RECENCY_WORDS), None)
    if recency_at is None:
        return False
    verb_at = next((i for i in range(recency_at + 1, len(ws)) if ws[i] in _THING_VERBS), None)
    if verb_at is None:
        return False
    # the thing before or after the verb: last_processed_league, last_s3_key_processed
    rest = {w for w in ws[recency_at + 1 :] if w not in _JOINING_WORDS} - {ws[verb_at]}
    return bool(rest) and rest.isdisjoint(_TIME_WORDS | _PROGRESS_WORDS | _COUNT_WORDS)


@_memoized
def abbreviates_a_watermark(key: str | None) -> bool:
    """A key with ``wm`` as a whole word (``wm_orders``, ``f"wm_{table}"``, ``ordersWm``; not
    ``wmata_station`` or ``swm_level``) that names no other kind of state. The name alone is not
    enough (``wm_theme`` is a setting): a watermark when one task reads it and writes it back."""
    return bool(key) and not _WATERMARK_ABBREVIATIONS.isdisjoint(words(key)) and classify(key) is None


@_memoized
def is_strong(key: str | None) -> bool:
    """True when the key's name alone leaves no doubt it holds per-run state."""
    return bool(key) and bool(set(words(key)) & _STRONG_WORDS)


#: words that make a key a switch someone turns on or off (``enable_checkpoint_upload``,
#: ``skip_resume``, ``dry_run``): configuration, whatever else the key names
_SWITCH_WORDS = frozenset(
    {"enable", "enabled", "disable", "disabled", "flag", "flags", "toggle", "switch", "feature", "features"}
    | {"skip", "dry", "debug", "allow", "allowed", "should", "use"}
)


@_memoized
def names_a_switch(key: str | None) -> bool:
    """A key naming a feature switch or a mode (``enable_checkpointing``, ``skip_offset_reset``);
    never one that names an external job id (``use_last_run_id`` holds an id)."""
    return not _SWITCH_WORDS.isdisjoint(words(key)) and classify(key) is not KeyKind.JOB_ID


#: last words that make a key the name of a place or a setting (``checkpoint_bucket``,
#: ``offsets_table``, ``cursor_topic``), not a value moved on from run to run
_CONFIGURATION_NOUNS = frozenset(
    {"bucket", "path", "prefix", "dir", "folder", "url", "uri", "table", "schema", "database", "db", "conn"}
    | {"connection", "host", "region", "role", "arn", "queue", "topic", "config", "settings", "setting", "conf"}
    | {"location", "project", "dataset", "endpoint", "env", "environment", "account", "warehouse", "cluster"}
    | {"image", "version", "interval", "timeout", "retries", "email", "emails", "channel", "webhook", "secret"}
    | {"key", "file", "filename", "pattern", "format", "name", "names", "size", "limit", "enabled", "mode"}
)


@_memoized
def names_configuration(key: str | None) -> bool:
    """A key whose last word names a place or a setting (``checkpoint_bucket``): configuration
    a task reads, even when an earlier word names run state."""
    if not key:
        return False
    ws = words(key)
    return bool(ws) and ws[-1] in _CONFIGURATION_NOUNS


_PROGRESS_WORDS_OF_STATE = frozenset({"state", "progress", "position", "pointer", "marker"})


@_memoized
def names_progress(key: str | None) -> bool:
    """A key naming a task's state or progress (``pipeline_state``, ``sync_progress``): run state
    when one task reads it and writes it back, through helpers or not."""
    return bool(key) and not _PROGRESS_WORDS_OF_STATE.isdisjoint(words(key))
