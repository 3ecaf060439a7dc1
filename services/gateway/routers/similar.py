"""``/v1/positions/similar`` and ``/v1/library/positions``: similar positions and the position library.

Every API key has its own archive (decisions of the matches it had analysed and the positions it
saved) in the durable store (:class:`services.store.archive.SqlArchive`, ``PULVEZAR_DATABASE_URL``), so
it survives gateway restarts and every replica sees the same one.
Each gateway process keeps an in-memory :class:`pulvezar.archive.ArchiveIndex` per recent owner and
brings it up to date, on the next query, when the owner's version counter has changed (one read per
query): it applies the changes since its version, or reloads every entry when those are not known
any more (a few seconds per 100,000 entries).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from services.gateway.daily_models import (
    ArchiveEntryOut,
    LibraryChange,
    LibraryIn,
    LibraryList,
    LibraryOut,
    SimilarRequest,
    SimilarResponse,
)
from services.gateway.routers.params import Who, add_call_route, add_call_routes
from services.gateway.security import client
from services.gateway.services import similar as archives
from services.gateway.services.archive import archive
from services.gateway.services.deps import player_records
from services.gateway.services.similar import IndexCache

__all__ = ["IndexCache", "routers"]  # the index cache (tests follow its reloads)

similar_router = APIRouter(prefix="/v1/positions", tags=["archive"], dependencies=[Depends(client)])
library_router = APIRouter(prefix="/v1/library", tags=["archive"], dependencies=[Depends(client)])
routers = (similar_router, library_router)

EntryId = Annotated[str, Path(min_length=1, max_length=200, description="a library entry id (lib:...)")]


def mine(request: Request, who: Who) -> archives.Archive:
    """The caller's archive, made when the call needs it."""
    return lambda: archive(request, who)


Mine = Annotated[archives.Archive, Depends(mine)]


def _cache(request: Request, owner: str) -> IndexCache:
    state = request.app.state
    caches: OrderedDict[str, IndexCache] | None = getattr(state, "archive_indexes", None)
    if caches is None:
        caches = state.archive_indexes = OrderedDict()
    return archives.index_cache(caches, owner)


@similar_router.post(
    "/similar",
    response_model=SimilarResponse,
    summary="Similar positions from the archive (analysed matches and the library): at most 12, "
    "similarity at least 60 % by default",
)
async def similar(body: SimilarRequest, request: Request, who: Who, store: Mine) -> SimilarResponse:
    return await archives.similar(store, _cache(request, who.owner), body)


@library_router.post(
    "/positions",
    status_code=201,
    response_model=LibraryOut,
    summary="Save a position in the library (once per Position ID and Match ID)",
    responses={200: {"model": LibraryOut, "description": "saved before: the stored entry, unchanged"}},
)
async def save_position(
    body: LibraryIn, response: Response, store: Mine, request: Request, who: Who
) -> LibraryOut:
    """With ``player``, one of the key's players (else a 422 on ``player``): who saved it."""
    out = await archives.save(store, body, lambda: player_records(request), who.owner)
    if not out.created:
        response.status_code = 200
    response.headers["Location"] = f"/v1/library/positions/{out.id}"
    return out


@library_router.get(
    "/positions",
    response_model=LibraryList,
    summary="The saved library positions: search, rule set, cursor pagination",
)
async def list_positions(
    store: Mine,
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
    return await archives.listed(store, q, rules, limit, cursor)


#: the parameters of the routes of one saved position, in the order of the service's functions
ONE_ENTRY = {"store": Mine, "entry_id": EntryId}

add_call_route(
    library_router, "PATCH", "/positions/{entry_id}", archives.change, {**ONE_ENTRY, "body": LibraryChange},
    name="change_position", response_model=ArchiveEntryOut,
    summary="Rename a saved position, or change its tags or note",
)  # fmt: skip
add_call_routes(library_router, ONE_ENTRY, (
    ("GET", "/positions/{entry_id}", "get_position", ArchiveEntryOut, archives.get,
     "One saved library position"),
    ("DELETE", "/positions/{entry_id}", "delete_position", None, archives.delete,
     "Delete a saved library position"),
))  # fmt: skip
