"""``/v1/positions/similar`` and ``/v1/library/positions``: similar positions and the position library.

The archive (decisions of analysed matches and saved library positions) lives in Redis
(:mod:`services.common.archive_store`, ``PULVEZAR_GATEWAY_REDIS_URL``), so it survives gateway
restarts and every replica sees the same one.  Each gateway process keeps an in-memory
:class:`pulvezar.archive.ArchiveIndex` and brings it up to date, on the next query, when the archive's
version counter has changed (one ``GET`` per query): it applies the changes logged since its
version, or reloads every entry when the log no longer reaches back that far (a few seconds per
100,000 entries).  Without Redis these routes answer 503.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Path, Request, Response

from pulvezar import PulvezarError
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex, check_date
from services.common import archive_store
from services.gateway.daily_models import (
    ArchiveEntryOut,
    LibraryIn,
    LibraryList,
    LibraryOut,
    SimilarHit,
    SimilarRequest,
    SimilarResponse,
)
from services.gateway.models import parse_position
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import client

logger = logging.getLogger("pulvezar.gateway")
T = TypeVar("T")

similar_router = APIRouter(prefix="/v1/positions", tags=["archive"], dependencies=[Depends(client)])
library_router = APIRouter(prefix="/v1/library", tags=["archive"], dependencies=[Depends(client)])
routers = (similar_router, library_router)

EntryId = Annotated[str, Path(min_length=1, max_length=200, description="a library entry id (lib:...)")]


# ---- Redis and the index ------------------------------------------------------------------------
def archive_redis(request: Request) -> Any:
    """The app's Redis client for the archive and the daily puzzles (made on first use)."""
    state = request.app.state
    r = getattr(state, "archive_redis", None)
    if r is None:
        url = state.settings.redis_url
        if not url:
            raise ProblemError(
                503, "the archive is not configured on this gateway (no Redis)", kind="archive-unavailable"
            )
        import redis

        r = state.archive_redis = redis.Redis.from_url(url, decode_responses=True)
    return r


async def call(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking Redis call in a thread; Redis failures are 503 problems."""
    try:
        return await asyncio.to_thread(fn, *args)
    except (ProblemError, PulvezarError):
        raise
    except Exception as e:
        logger.exception("archive store call failed")
        raise ProblemError(
            503,
            f"the archive store is unavailable ({type(e).__name__})",
            kind="archive-unavailable",
            headers={"Retry-After": "1"},
        ) from None


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

    def _refresh(self, r: Any) -> None:
        changes = archive_store.changes_since(r, self.version) if self.version >= 0 else None
        if changes is None:
            self.version, self.index = archive_store.load_index(r)
            self.reloads += 1
            return
        version, added, removed = changes
        if added or removed:
            index = self.index.copy()
            index.remove(removed)
            index.add(added)
            self.index = index
        self.version = version

    async def current(self, r: Any) -> ArchiveIndex:
        v = await call(archive_store.version, r)
        if v == self.version:
            return self.index
        async with self.lock:
            if v != self.version:
                await call(self._refresh, r)
        return self.index


def _cache(request: Request) -> IndexCache:
    state = request.app.state
    c = getattr(state, "archive_index", None)
    if c is None:
        c = state.archive_index = IndexCache()
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
async def similar(body: SimilarRequest, request: Request) -> SimilarResponse:
    position = parse_position(body.position, "position").position
    rules = body.rules.library().name if body.rules is not None else None
    index = await _cache(request).current(archive_redis(request))
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
async def save_position(body: LibraryIn, request: Request, response: Response) -> LibraryOut:
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
    stored, created = await call(archive_store.save_library_position, archive_redis(request), entry)
    if not created:
        response.status_code = 200
    response.headers["Location"] = f"/v1/library/positions/{stored.id}"
    return LibraryOut(**entry_out(stored), created=created)


@library_router.get("/positions", summary="The saved library positions")
async def list_positions(request: Request) -> LibraryList:
    entries = await call(archive_store.library_positions, archive_redis(request))
    return LibraryList(positions=[ArchiveEntryOut(**entry_out(e)) for e in entries])


def _not_found(entry_id: str) -> ProblemError:
    return ProblemError(
        404, f"no library position {entry_id!r}", kind="not-found", errors=[("entry_id", "unknown entry")]
    )


@library_router.get("/positions/{entry_id}", summary="One saved library position")
async def get_position(entry_id: EntryId, request: Request) -> ArchiveEntryOut:
    if not entry_id.startswith(archive_store.LIBRARY_PREFIX):
        raise _not_found(entry_id)
    e = await call(archive_store.get_entry, archive_redis(request), entry_id)
    if e is None:
        raise _not_found(entry_id)
    return ArchiveEntryOut(**entry_out(e))


@library_router.delete("/positions/{entry_id}", status_code=204, summary="Delete a saved library position")
async def delete_position(entry_id: EntryId, request: Request) -> Response:
    if not entry_id.startswith(archive_store.LIBRARY_PREFIX):
        raise _not_found(entry_id)
    if not await call(archive_store.delete_entry, archive_redis(request), entry_id):
        raise _not_found(entry_id)
    return Response(status_code=204)
