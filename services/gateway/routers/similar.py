"""``/v1/positions/similar`` and ``/v1/library/positions``: similar positions and the position library.

Every API key has its own archive (decisions of the matches it had analysed and the positions it
saved): in the durable store when one is configured (:class:`services.store.archive.SqlArchive`,
``PULVEZAR_DATABASE_URL``), else in Redis (:class:`services.common.archive_store.RedisArchive`,
``PULVEZAR_GATEWAY_REDIS_URL``), so it survives gateway restarts and every replica sees the same one.
Each gateway process keeps an in-memory :class:`pulvezar.archive.ArchiveIndex` per recent owner and
brings it up to date, on the next query, when the owner's version counter has changed (one read per
query): it applies the changes since its version, or reloads every entry when those are not known
any more (a few seconds per 100,000 entries).  Without either store these routes answer 503.
"""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
import logging
from collections import OrderedDict
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from pulvezar import PulvezarError
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex, check_date
from services.common import archive_store
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
from services.gateway.models import parse_position
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client
from services.gateway.services.archive import archive, call

logger = logging.getLogger("pulvezar.gateway")
T = TypeVar("T")

similar_router = APIRouter(prefix="/v1/positions", tags=["archive"], dependencies=[Depends(client)])
library_router = APIRouter(prefix="/v1/library", tags=["archive"], dependencies=[Depends(client)])
routers = (similar_router, library_router)

Who = Annotated[Client, Depends(client)]
EntryId = Annotated[str, Path(min_length=1, max_length=200, description="a library entry id (lib:...)")]


# ---- the index ------------------------------------------------------------------------------------
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


def _cache(request: Request, owner: str) -> IndexCache:
    state = request.app.state
    caches: OrderedDict[str, IndexCache] | None = getattr(state, "archive_indexes", None)
    if caches is None:
        caches = state.archive_indexes = OrderedDict()
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


# ---- similar positions --------------------------------------------------------------------------
@similar_router.post(
    "/similar",
    summary="Similar positions from the archive (analysed matches and the library): at most 12, "
    "similarity at least 60 % by default",
)
async def similar(body: SimilarRequest, request: Request, who: Who) -> SimilarResponse:
    position = parse_position(body.position, "position").position
    rules = body.rules.library().name if body.rules is not None else None
    index = await _cache(request, who.owner).current(archive(request, who))
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


# ---- the library --------------------------------------------------------------------------------
@library_router.post(
    "/positions",
    status_code=201,
    summary="Save a position in the library (once per Position ID and Match ID)",
    responses={200: {"model": LibraryOut, "description": "saved before: the stored entry, unchanged"}},
)
async def save_position(body: LibraryIn, request: Request, response: Response, who: Who) -> LibraryOut:
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
        )
    except PulvezarError as e:
        raise invalid(e.field or "body", str(e)) from None
    stored, created = await call(archive(request, who).save_library_position, entry)
    if not created:
        response.status_code = 200
    response.headers["Location"] = f"/v1/library/positions/{stored.id}"
    return LibraryOut(**entry_out(stored), created=created)


@library_router.get("/positions", summary="The saved library positions: search, rule set, cursor pagination")
async def list_positions(
    request: Request,
    who: Who,
    q: Annotated[
        str | None,
        Query(
            max_length=120, description="only those whose name, a tag, the note, the date or an ID has this"
        ),
    ] = None,
    rules: Annotated[
        Literal["international", "tavla"] | None, Query(description="only this rule set (tavla: any options)")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="positions per page")] = 500,
    cursor: Annotated[str | None, Query(max_length=300, description="the last page's next_cursor")] = None,
) -> LibraryList:
    entries = await call(archive(request, who).library_positions)
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


@library_router.patch("/positions/{entry_id}", summary="Rename a saved position, or change its tags or note")
async def change_position(
    entry_id: EntryId, body: LibraryChange, request: Request, who: Who
) -> ArchiveEntryOut:
    import dataclasses

    if not entry_id.startswith(archive_store.LIBRARY_PREFIX):
        raise _not_found(entry_id)
    store = archive(request, who)
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


@library_router.get("/positions/{entry_id}", summary="One saved library position")
async def get_position(entry_id: EntryId, request: Request, who: Who) -> ArchiveEntryOut:
    if not entry_id.startswith(archive_store.LIBRARY_PREFIX):
        raise _not_found(entry_id)
    e = await call(archive(request, who).get_entry, entry_id)
    if e is None:
        raise _not_found(entry_id)
    return ArchiveEntryOut(**entry_out(e))


@library_router.delete("/positions/{entry_id}", status_code=204, summary="Delete a saved library position")
async def delete_position(entry_id: EntryId, request: Request, who: Who) -> Response:
    if not entry_id.startswith(archive_store.LIBRARY_PREFIX):
        raise _not_found(entry_id)
    if not await call(archive(request, who).delete_entry, entry_id):
        raise _not_found(entry_id)
    return Response(status_code=204)
