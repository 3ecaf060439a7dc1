"""``/v1/matches``: upload a match file (.mat, .sgf, .xg, .gmd), get it back as JSON with every decision.

An upload is also kept in the durable store for the key that sent it
(:class:`services.store.matches.MatchUploads`): the answer carries its ``id`` (the same file sent again
by the same key is the same upload), ``GET /v1/matches`` lists the key's uploads (newest first, cursor
pagination), ``GET /v1/matches/{id}`` answers as the upload did, ``GET /v1/matches/{id}/file`` returns
the bytes and ``DELETE`` removes it.  Other keys get 404.

Files are read in a parser process (:mod:`services.gateway.uploads`): a file that takes too long or too
much memory to read is a 422 naming ``file``, and the gateway keeps answering meanwhile.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, Response, UploadFile

from services.gateway.links import links
from services.gateway.match_models import Format, MatchOut, UploadList
from services.gateway.routers.params import add_call_routes, download, read_upload
from services.gateway.security import Client, client
from services.gateway.services import matches, ogxm
from services.gateway.services.deps import dependencies
from services.gateway.uploads import parse_pool

router = APIRouter(prefix="/v1/matches", tags=["matches"], dependencies=[Depends(client)])
Who = Annotated[Client, Depends(client)]
KEYS_DOC = (
    "publisher keys (raw Ed25519, hex or base64; at most 16) to check an .ogxm file's signatures against: "
    "repeat the field or separate them by commas or spaces; the answer's `signatures` (none without keys)"
)
UploadId = Annotated[str, Path(min_length=1, max_length=64, description="an upload's id")]
Cursor = Annotated[str | None, Query(max_length=200, description="from the last page's next_cursor")]
_MEDIA = {
    "sgf": "application/x-go-sgf",
    "xg": "application/octet-stream",
    "gmd": "text/plain",
    "ogxm": "application/octet-stream",
}


def shelf(request: Request, who: Who) -> matches.Shelf:
    """The caller's uploads and the app's parser pool."""
    return matches.Shelf(dependencies(request).uploads, who.owner, parse_pool(request))


Shelf = Annotated[matches.Shelf, Depends(shelf)]


@router.post(
    "",
    response_model=MatchOut,
    summary="Parse an uploaded match file into games, decisions and their IDs (and keep it, with the "
    "durable store)",
    responses=links(200, "The match; with the durable store its stored upload's id", "match_id", "/id", {
        "Get": ("GET", "/v1/matches/{match_id}"), "File": ("GET", "/v1/matches/{match_id}/file"),
        "Delete": ("DELETE", "/v1/matches/{match_id}"),
    }),
)  # fmt: skip
async def upload_match(
    request: Request,
    response: Response,
    s: Shelf,
    file: Annotated[UploadFile, File(description="the match file (.mat, .sgf, .xg, .gmd)")],
    format: Annotated[
        Format | None, Form(description="the file's format; default: by name or content")
    ] = None,
    keys: Annotated[list[str] | None, Form(description=KEYS_DOC)] = None,
) -> MatchOut:
    data = await read_upload(request, file, "a match file")
    trusted = ogxm.parse_keys(" ".join(keys)) if keys is not None else None  # 422 naming keys
    out = await matches.upload(s, data, format, file.filename)
    files = [{"data": data, "format": out.format, "filename": None}]
    out.signatures = await ogxm.signatures(files, trusted, parse_pool(request))
    if out.id is not None:
        response.headers["Location"] = f"/v1/matches/{out.id}"
    return out


@router.get("", response_model=UploadList, summary="Your uploaded matches, newest first (cursor pagination)")
async def list_matches(
    s: Shelf,
    limit: Annotated[int, Query(ge=1, le=200, description="matches per page")] = 50,
    cursor: Cursor = None,
) -> UploadList:
    return await matches.listed(s, limit, cursor)


@router.get(
    "/{match_id}/file",
    summary="The uploaded file's bytes",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}, "application/octet-stream": {}}}},
)
async def match_file(match_id: UploadId, s: Shelf) -> Response:
    row, data = await matches.stored_file(s, match_id)
    media_type = _MEDIA.get(row.format, "text/plain; charset=utf-8")
    return download(data, media_type, row.filename or f"{row.id}.{row.format}")


# the upload, as its upload answered, and its removal
add_call_routes(router, {"s": Shelf, "match_id": UploadId}, (
    ("GET", "/{match_id}", "get_match", MatchOut, matches.get, "An uploaded match, as its upload answered"),
    ("DELETE", "/{match_id}", "delete_match", None, matches.delete, "Delete an uploaded match"),
))  # fmt: skip
