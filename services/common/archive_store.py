"""The position archive in Redis, left only for its last user (:mod:`services.jobs.analysis_archive`); the
archive is in the durable store (:mod:`services.store.archive`) and this module goes with that user.

**Archive entries** (:class:`pulvezar.archive.ArchiveEntry`, JSON of ``as_dict``):

========================  ======  ==============================================================
key                       type    what
========================  ======  ==============================================================
``archive:entries``       hash    entry id -> entry JSON
``archive:version``       string  a counter, incremented by every change
``archive:log``           list    the last :data:`LOG_LENGTH` changes, JSON ``{"v": version, "op":
                                  "add" or "del", "ids": [...]}``, oldest first
========================  ======  ==============================================================

Every change (entries, version and log together) is one Lua script, so they always agree.  A gateway
keeps an in-memory index and the version it reflects; when the version moved it applies the logged
changes since (:func:`changes_since`) or, when the log no longer reaches back that far, reloads
everything (:func:`load_index`).

Entry ids: ``match:<match>:<game>:<move>`` for a decision of an analysed match (written again
when the match is analysed again: the newer entry replaces the older), ``lib:<16 hex>`` for a saved
library position, the first 16 hex digits of ``SHA-256("<Position ID>:<Match ID or empty>")``, so
the same position with the same match state is saved once.

:func:`add_match_positions` takes one dict per decision of an analysed match::

    {
        "match": "job-1234",         # required: names the match (a job id, a file name ...)
        "game": 1,                   # required: game number, from 1
        "move": 17,                  # required: move number in the game, from 1
        "position_id": "4HPwATDgc/ABMA",   # required: the player on roll's view, before the roll
        "match_id": "cAkAAAAAAAAA",  # optional: gnubg Match ID of the decision
        "date": "2026-11-29",        # optional: ISO date the match was played
        "play": "8/5 6/5",           # optional: the play (or cube action) made then
        "dice": [3, 1],              # optional: the roll (none for a cube decision)
        "rules": "international",    # optional: Rules.name (default international)
        "kind": "opening", "side": None,   # optional: the position type (computed when left out)
    }

Invalid entries raise :class:`pulvezar.PulvezarError` naming the field (``entries[3].date``)
before anything is written; all valid entries are written in one transaction.

The functions take a redis-py client (``decode_responses`` either way).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any

from pulvezar import PulvezarError
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex

logger = logging.getLogger("pulvezar.archive")

ENTRIES = "archive:entries"
VERSION = "archive:version"
LIBRARY_PREFIX = "lib:"
MATCH_PREFIX = "match:"
LOG = "archive:log"
LOG_LENGTH = 2000
MAX_BATCH = 100_000
#: positions one owner's Redis archive holds at most (the durable store's ``max_archive_entries_per_owner``);
#: beyond it an analysed match's positions are not added (logged) and a library save is a 422
MAX_ENTRIES = int(os.environ.get("PULVEZAR_ARCHIVE_MAX_ENTRIES", "50000"))

_MATCH_FIELDS = {
    "match",
    "game",
    "move",
    "position_id",
    "match_id",
    "date",
    "play",
    "dice",
    "rules",
    "kind",
    "side",
}


def keys(owner: str | None = None) -> tuple[str, str, str]:
    """``(entries, version, log)`` keys of an owner's archive (``None``: the deployment-wide one)."""
    if owner is None:
        return ENTRIES, VERSION, LOG
    return f"archive:{owner}:entries", f"archive:{owner}:version", f"archive:{owner}:log"


def _text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def match_entry(d: Mapping[str, Any], field: str = "entry") -> ArchiveEntry:
    """The archive entry of one decision of an analysed match (see the module for the format)."""
    if not isinstance(d, Mapping):
        raise PulvezarError("an entry is a JSON object", field=field)
    extra = sorted(set(d) - _MATCH_FIELDS)
    if extra:
        raise PulvezarError(f"unknown field {extra[0]!r}", field=f"{field}.{extra[0]}")
    for key in ("match", "game", "move", "position_id"):
        if d.get(key) is None:
            raise PulvezarError(f"{key} is required", field=f"{field}.{key}")
    if not isinstance(d["match"], str) or not d["match"] or len(d["match"]) > 120:
        raise PulvezarError("match is a non-empty string of at most 120 characters", field=f"{field}.match")
    args = dict(d)
    try:
        entry_id = f"{MATCH_PREFIX}{d['match']}:{int(d['game'])}:{int(d['move'])}"
        if args.get("dice") is not None:
            args["dice"] = tuple(args["dice"])
        return ArchiveEntry(id=entry_id, source="match", **args)
    except PulvezarError as e:
        raise PulvezarError(str(e), field=f"{field}.{e.field}" if e.field else field) from None
    except (TypeError, ValueError) as e:
        raise PulvezarError(f"invalid entry: {e}", field=field) from None


def parse_match_positions(entries: Iterable[Mapping[str, Any]]) -> list[ArchiveEntry]:
    """The entries of :func:`add_match_positions`, checked (the first bad one raises, naming its field)."""
    parsed = [match_entry(d, f"entries[{i}]") for i, d in enumerate(entries)]
    if len(parsed) > MAX_BATCH:
        raise PulvezarError(f"at most {MAX_BATCH} entries per call", field="entries")
    return parsed


def add_match_positions(redis: Any, entries: Iterable[Mapping[str, Any]], owner: str | None = None) -> int:
    """Add every decision of an analysed match to the archive; returns how many were written."""
    parsed = parse_match_positions(entries)
    if not parsed:
        return 0
    last = {e.id: json.dumps(e.as_dict(), separators=(",", ":")) for e in parsed}
    args = [x for kv in last.items() for x in kv]
    if int(redis.eval(_ADD, 3, *keys(owner), LOG_LENGTH, MAX_ENTRIES, *args)) < 0:
        logger.warning("archive full: %d positions not added (at most %d)", len(parsed), MAX_ENTRIES)
        return 0
    return len(parsed)


def library_id(position_id: str, match_id: str | None) -> str:
    """The id of a library position: the same position and match state give the same id."""
    digest = hashlib.sha256(f"{position_id}:{match_id or ''}".encode()).hexdigest()
    return f"{LIBRARY_PREFIX}{digest[:16]}"


# KEYS: entries, version, log.  The log entry holds the version this change made.
_LOG = """
local function log(op, ids)
  local v = redis.call('INCR', KEYS[2])
  redis.call('RPUSH', KEYS[3], cjson.encode({v = v, op = op, ids = ids}))
  redis.call('LTRIM', KEYS[3], -tonumber(ARGV[1]), -1)
  return v
end
"""
# ARGV[2]: the cap; a write that would take the archive past it writes nothing and answers -1
_FITS = """
local new = 0
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then new = new + 1 end
end
if new > 0 and redis.call('HLEN', KEYS[1]) + new > tonumber(ARGV[2]) then return -1 end
"""
_ADD = (
    _LOG
    + _FITS
    + """
local ids = {}
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  ids[#ids + 1] = ARGV[i]
end
log('add', ids)
return #ids
"""
)
_ADD_ONCE = (
    _LOG
    + _FITS
    + """
if redis.call('HSETNX', KEYS[1], ARGV[3], ARGV[4]) == 1 then
  log('add', {ARGV[3]})
  return 1
end
return 0
"""
)


_REPLACE = (
    _LOG
    + """
if redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  log('add', {ARGV[2]})
  return 1
end
return 0
"""
)


def replace_entry(redis: Any, entry: ArchiveEntry, owner: str | None = None) -> bool:
    """Write ``entry`` over the stored entry with its id (a library position's new name, tags, note);
    False when there is none."""
    data = json.dumps(entry.as_dict(), separators=(",", ":"))
    return bool(redis.eval(_REPLACE, 3, *keys(owner), LOG_LENGTH, entry.id, data))


def library_entry(entry: ArchiveEntry) -> ArchiveEntry:
    """``entry`` under its library id (:func:`library_id`); a source other than ``library`` is refused."""
    if entry.source != "library":
        raise PulvezarError("library positions have source 'library'", field="source")
    d = entry.as_dict()
    d["id"] = library_id(entry.position_id, entry.match_id)
    return ArchiveEntry.from_dict(d)


def save_library_position(
    redis: Any, entry: ArchiveEntry, owner: str | None = None
) -> tuple[ArchiveEntry, bool]:
    """Save a library position once: ``(the stored entry, whether it was new)``.

    ``entry.id`` is replaced by :func:`library_id` of its Position ID and Match ID; when that id
    exists, the stored entry is returned unchanged.
    """
    stored = library_entry(entry)
    data = json.dumps(stored.as_dict(), separators=(",", ":"))
    added = int(redis.eval(_ADD_ONCE, 3, *keys(owner), LOG_LENGTH, MAX_ENTRIES, stored.id, data))
    if added < 0:
        raise PulvezarError(
            f"the archive holds its {MAX_ENTRIES} positions; delete some first", field="archive"
        )
    created = bool(added)
    if created:
        return stored, True
    existing = get_entry(redis, stored.id, owner)
    return (existing or stored), False


def get_entry(redis: Any, entry_id: str, owner: str | None = None) -> ArchiveEntry | None:
    raw = redis.hget(keys(owner)[0], entry_id)
    return None if raw is None else ArchiveEntry.trusted(json.loads(_text(raw)))


_DELETE = (
    _LOG
    + """
if redis.call('HDEL', KEYS[1], ARGV[2]) == 1 then
  log('del', {ARGV[2]})
  return 1
end
return 0
"""
)


def delete_entry(redis: Any, entry_id: str, owner: str | None = None) -> bool:
    """Remove one entry; whether it existed."""
    return bool(redis.eval(_DELETE, 3, *keys(owner), LOG_LENGTH, entry_id))


def library_positions(redis: Any, owner: str | None = None) -> list[ArchiveEntry]:
    """The saved library positions, by name then id."""
    out = []
    for key, raw in redis.hscan_iter(keys(owner)[0], match=f"{LIBRARY_PREFIX}*", count=1000):
        if _text(key).startswith(LIBRARY_PREFIX):
            out.append(ArchiveEntry.trusted(json.loads(_text(raw))))
    out.sort(key=lambda e: ((e.name or "").casefold(), e.id))
    return out


def version(redis: Any, owner: str | None = None) -> int:
    raw = redis.get(keys(owner)[1])
    return 0 if raw is None else int(_text(raw))


def load_index(redis: Any, owner: str | None = None) -> tuple[int, ArchiveIndex]:
    """``(version, index)`` of every entry, read consistently (one transaction)."""
    entries_key, version_key, _ = keys(owner)
    pipe = redis.pipeline(transaction=True)
    pipe.get(version_key)
    pipe.hgetall(entries_key)
    raw_version, raw = pipe.execute()
    v = 0 if raw_version is None else int(_text(raw_version))
    return v, ArchiveIndex(ArchiveEntry.trusted(json.loads(_text(x))) for x in raw.values())


def changes_since(
    redis: Any, since: int, owner: str | None = None
) -> tuple[int, list[ArchiveEntry], list[str]] | None:
    """The changes after version ``since``: ``(version, added or replaced entries, removed ids)``, in
    order of application (removals first); ``None`` when the log does not reach back to ``since``
    (reload everything with :func:`load_index`)."""
    entries_key, version_key, log_key = keys(owner)
    pipe = redis.pipeline(transaction=True)
    pipe.get(version_key)
    pipe.lrange(log_key, 0, -1)
    raw_version, raw_log = pipe.execute()
    v = 0 if raw_version is None else int(_text(raw_version))
    if v == since:
        return v, [], []
    ops = [json.loads(_text(x)) for x in raw_log]
    newer = [op for op in ops if op["v"] > since]
    if not newer or newer[0]["v"] != since + 1 or newer[-1]["v"] != v:
        return None
    state: dict[str, bool] = {}  # id -> present after the changes
    for op in newer:
        ids = op["ids"] if isinstance(op["ids"], list) else []  # cjson writes an empty table as {}
        for i in ids:
            state.pop(i, None)
            state[i] = op["op"] == "add"
    added = [i for i, present in state.items() if present]
    removed = [i for i, present in state.items() if not present]
    entries: list[ArchiveEntry] = []
    if added:
        raw = redis.hmget(entries_key, added)
        entries = [ArchiveEntry.trusted(json.loads(_text(x))) for x in raw if x is not None]
        removed += [i for i, x in zip(added, raw, strict=True) if x is None]  # deleted again since
    return v, entries, removed


class RedisArchive:
    """One owner's archive in Redis, with the methods of the durable store's
    :class:`services.store.archive.SqlArchive` (the gateway and the workers use either)."""

    def __init__(self, redis: Any, owner: str | None = None) -> None:
        self.redis, self.owner = redis, owner

    def add_match_positions(self, entries: Iterable[Mapping[str, Any]]) -> int:
        return add_match_positions(self.redis, entries, self.owner)

    def save_library_position(self, entry: ArchiveEntry) -> tuple[ArchiveEntry, bool]:
        return save_library_position(self.redis, entry, self.owner)

    def get_entry(self, entry_id: str) -> ArchiveEntry | None:
        return get_entry(self.redis, entry_id, self.owner)

    def delete_entry(self, entry_id: str) -> bool:
        return delete_entry(self.redis, entry_id, self.owner)

    def replace_entry(self, entry: ArchiveEntry) -> bool:
        return replace_entry(self.redis, entry, self.owner)

    def library_positions(self) -> list[ArchiveEntry]:
        return library_positions(self.redis, self.owner)

    def version(self) -> int:
        return version(self.redis, self.owner)

    def load_index(self) -> tuple[int, ArchiveIndex]:
        return load_index(self.redis, self.owner)

    def changes_since(self, since: int) -> tuple[int, list[ArchiveEntry], list[str]] | None:
        return changes_since(self.redis, since, self.owner)
