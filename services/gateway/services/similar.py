"""Similar positions and the position library, over the caller's archive in the durable store
(:class:`services.store.archive.SqlArchive`).  Each gateway process keeps an in-memory
:class:`pulvezar.archive.ArchiveIndex` per recent owner (:class:`IndexCache`), brought up to date on the
next query when the owner's version moved."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import datetime as dt
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from pulvezar import PulvezarError
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex, check_date
from services.gateway.daily_models import (
    ArchiveEntryOut,
    LibraryChange,
    LibraryIn,
    LibraryList,
    LibraryOut,
    SimilarHit,
    SimilarRequest,
    SimilarResponse,
)
from services.gateway.durable import store_call
from services.gateway.models import parse_position
from services.gateway.problems import ProblemError, invalid
from services.gateway.services.archive import call
from services.store.archive import LIBRARY_PREFIX

#: the caller's archive, made when a call needs it (no durable store configured: a 501 then)
Archive = Callable[[], Any]


class IndexCache:
    """The gateway's in-memory index and the archive version it reflects.

    When the version moved, the logged changes since are applied to a copy of the index (queries in
    flight keep the old one), or, when the log does not reach back that far, everything is reloaded.
    """

    def __init__(self) -> None:
        self.version = -1
        self.index = ArchiveIndex()
        self.lock = asyncio.Lock()
        self.reloads = 0

    def _refresh(self, store: Any) -> None:
        changes = store.changes_since(self.version) if self.version >= 0 else None
        if changes is None:
            self.version, self.index = store.load_index()
            self.reloads += 1
            return
        version, added, removed = changes
        if added or removed:
            index = self.index.copy()
            index.remove(removed)
            index.add(added)
            self.index = index
        self.version = version

    async def current(self, store: Any) -> ArchiveIndex:
        v = await call(store.version)
        if v == self.version:
            return self.index
        async with self.lock:
            if v != self.version:
                await call(self._refresh, store)
        return self.index


#: owners whose index a gateway process keeps in memory (the least recently queried goes first)
MAX_CACHED_OWNERS = 64


def index_cache(caches: OrderedDict[str, IndexCache], owner: str) -> IndexCache:
    """The owner's index of a process's ``caches`` (made on first use; the least recently used goes)."""
    c = caches.get(owner)
    if c is None:
        c = caches[owner] = IndexCache()
        while len(caches) > MAX_CACHED_OWNERS:
            caches.popitem(last=False)
    caches.move_to_end(owner)
    return c


def entry_out(e: ArchiveEntry) -> dict[str, Any]:
    d = e.as_dict()
    return {k: d[k] for k in ArchiveEntryOut.model_fields}


async def similar(archive: Archive, cache: IndexCache, body: SimilarRequest) -> SimilarResponse:
    """Similar positions of the caller's archive."""
    position = parse_position(body.position, "position").position
    rules = body.rules.library().name if body.rules is not None else None
    index = await cache.current(archive())
    hits = await asyncio.to_thread(
        index.query, position, body.limit, body.min_similarity, rules=rules, exclude=body.exclude
    )
    from pulvezar.archive.similar import _classify

    t = _classify(position)
    return SimilarResponse(
        position_id=position.position_id,
        kind=t.kind,
        side=t.side,
        archive_size=len(index),
        hits=[
            SimilarHit(**entry_out(h.entry), similarity=round(h.similarity, 4), percent=h.percent)
            for h in hits
        ],
    )


async def save(
    archive: Archive, body: LibraryIn, players: Callable[[], Any] | None = None, owner: str | None = None
) -> LibraryOut:
    """A position saved in the library (once per Position ID and Match ID: ``created`` false then); a
    ``player`` must be one of the key's (``players()``: the players' records), else a 422 on ``player``."""
    if body.player is not None:
        found = None if players is None else await store_call(players().get, owner, body.player)
        if found is None:
            raise invalid("player", f"no player {body.player!r} of this key")
    parsed = parse_position(body.position, "position")
    match_id = parsed.match.encode() if parsed.match is not None else None
    dice = body.dice
    if dice is None:
        rolled = parsed.xgid.rolled if parsed.xgid is not None else None
        if rolled is None and parsed.match is not None and parsed.match.dice[0]:
            rolled = parsed.match.dice
        dice = rolled
    date = body.date or dt.datetime.now(dt.UTC).date().isoformat()
    rules = body.rules.library()
    play = body.play
    try:
        if play is not None and dice is not None:  # a checker play of these dice: checked, canonical
            play = rules.legal_plays(parsed.position, dice).find(play).notation
    except PulvezarError as e:
        raise invalid("play", str(e)) from None
    try:
        check_date(date)
        entry = ArchiveEntry(
            id="lib:new",
            position_id=parsed.position.position_id,
            source="library",
            name=body.name,
            date=date,
            play=play,
            dice=dice,
            match_id=match_id,
            rules=rules.name,
            tags=tuple(body.tags),
            note=body.note,
            player=body.player,
        )
    except PulvezarError as e:
        raise invalid(e.field or "body", str(e)) from None
    stored, created = await call(archive().save_library_position, entry)
    return LibraryOut(**entry_out(stored), created=created)


async def listed(
    archive: Archive, q: str | None, rules: str | None, limit: int, cursor: str | None
) -> LibraryList:
    """The saved positions: search, rule set, cursor pagination."""
    entries = await call(archive().library_positions)
    if rules is not None:
        entries = [e for e in entries if e.rules.startswith(rules)]
    if q:
        needle = q.casefold()
        entries = [e for e in entries if any(needle in h.casefold() for h in _haystack(e))]
    if cursor is not None:
        after = _cursor_key(cursor)
        entries = [e for e in entries if ((e.name or "").casefold(), e.id) > after]
    page = entries[:limit]
    nxt = _cursor(page[-1]) if len(entries) > limit else None
    return LibraryList(positions=[ArchiveEntryOut(**entry_out(e)) for e in page], next_cursor=nxt)


def _haystack(e: Any) -> list[str]:
    return [x for x in (e.name, e.note, e.date, e.position_id, e.match_id, e.id, *e.tags) if x]


def _cursor(e: Any) -> str:
    raw = json.dumps([(e.name or "").casefold(), e.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _cursor_key(cursor: str) -> tuple[str, str]:
    try:
        name, entry_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return str(name), str(entry_id)
    except Exception:
        raise invalid("cursor", "not a cursor of this list") from None


async def change(archive: Archive, entry_id: str, body: LibraryChange) -> ArchiveEntryOut:
    """Rename a saved position, or change its tags or note."""
    if not entry_id.startswith(LIBRARY_PREFIX):
        raise _not_found(entry_id)
    store = archive()
    e = await call(store.get_entry, entry_id)
    if e is None:
        raise _not_found(entry_id)
    changes: dict[str, Any] = {}
    if body.name is not None:
        changes["name"] = body.name
    if body.tags is not None:
        changes["tags"] = tuple(body.tags)
    if body.note is not None:
        changes["note"] = body.note or None
    new = dataclasses.replace(e, **changes) if changes else e
    if changes and not await call(store.replace_entry, new):
        raise _not_found(entry_id)  # deleted meanwhile
    return ArchiveEntryOut(**entry_out(new))


def _not_found(entry_id: str) -> ProblemError:
    return ProblemError(
        404, f"no library position {entry_id!r}", kind="not-found", errors=[("entry_id", "unknown entry")]
    )


async def get(archive: Archive, entry_id: str) -> ArchiveEntryOut:
    """One saved position."""
    if not entry_id.startswith(LIBRARY_PREFIX):
        raise _not_found(entry_id)
    e = await call(archive().get_entry, entry_id)
    if e is None:
        raise _not_found(entry_id)
    return ArchiveEntryOut(**entry_out(e))


async def delete(archive: Archive, entry_id: str) -> None:
    """Delete a saved position."""
    if not entry_id.startswith(LIBRARY_PREFIX):
        raise _not_found(entry_id)
    if not await call(archive().delete_entry, entry_id):
        raise _not_found(entry_id)
