"""``/v1/matches``: upload a match file (.mat, .sgf, .xg, .gmd), get it back as JSON with every decision.

With the durable store (``PULVEZAR_DATABASE_URL``) an upload is also kept for the key that sent it
(:class:`services.store.matches.MatchUploads`): the answer carries its ``id`` (the same file sent again
by the same key is the same upload), ``GET /v1/matches`` lists the key's uploads (newest first, cursor
pagination), ``GET /v1/matches/{id}`` answers as the upload did, ``GET /v1/matches/{id}/file`` returns
the bytes and ``DELETE`` removes it.  Other keys get 404; without a store the list answers 501.

Files are read in a parser process (:mod:`services.gateway.uploads`): a file that takes too long or too
much memory to read is a 422 naming ``file``, and the gateway keeps answering meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, Response, UploadFile
from pydantic import BaseModel, Field

from pulvezar import XGID, PulvezarError
from pulvezar.formats import MatchRecord, read_gmd, read_mat, read_sgf, read_xg
from services.gateway.durable import database_url, no_store, store_call
from services.gateway.links import links
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client
from services.gateway.uploads import content_disposition, parse

router = APIRouter(prefix="/v1/matches", tags=["matches"], dependencies=[Depends(client)])

Format = Literal["mat", "sgf", "xg", "gmd"]
_READERS: dict[str, Callable[[Any], MatchRecord]] = {
    "mat": read_mat,
    "txt": read_mat,
    "sgf": read_sgf,
    "xg": read_xg,
    "gmd": read_gmd,
}


class ActionOut(BaseModel):
    player: int
    kind: str
    dice: tuple[int, int] | None = None
    notation: str | None = None
    value: int = 0


class GameOut(BaseModel):
    number: int
    score: tuple[int, int]
    crawford: bool
    winner: int | None
    points: int
    cut_at: str | None = Field(description="where replay stopped at an action the rules do not allow")
    notes: list[str]
    actions: list[ActionOut]


class DecisionOut(BaseModel):
    game: int = Field(description="index into games")
    index: int = Field(description="index into the game's actions")
    player: int
    kind: str
    dice: tuple[int, int] | None
    notation: str | None
    position_id: str = Field(description="seen from the player on roll")
    match_id: str
    gnubg_id: str
    xgid: str | None


class MatchOut(BaseModel):
    id: str | None = Field(
        None, description="the stored upload (GET /v1/matches/{id}); null without the durable store"
    )
    format: Format
    filename: str | None
    length: int = Field(description="0 = money session")
    players: tuple[str, str]
    tags: dict[str, str]
    comments: list[str]
    cut_games: int
    games: list[GameOut]
    decisions: list[DecisionOut]


def _format(filename: str | None, data: bytes, given: str | None) -> str:
    if given:
        return given
    ext = (filename or "").rsplit(".", 1)[-1].lower() if filename and "." in filename else ""
    if ext in _READERS:
        return "mat" if ext == "txt" else ext
    head = data[:64].lstrip()
    if head.startswith(b"GMD-"):
        return "gmd"
    if head.startswith(b"(;"):
        return "sgf"
    if data[:4] == b"RGMH":
        return "xg"
    return "mat"


def _xgid(d: Any) -> str | None:
    try:
        return XGID.from_match_id(d.position, d.match_id).encode()
    except PulvezarError:
        return None


def _convert(record: MatchRecord, fmt: str, filename: str | None) -> MatchOut:
    def action(a: Any) -> ActionOut:
        return ActionOut(player=a.player, kind=a.kind, dice=a.dice, notation=a.notation, value=a.value)

    decisions = [
        DecisionOut(
            game=d.game,
            index=d.index,
            player=d.action.player,
            kind=d.action.kind,
            dice=d.match_id.dice if d.match_id.dice[0] else None,
            notation=d.action.notation,
            position_id=d.position.position_id,
            match_id=d.match_id.encode(),
            gnubg_id=d.gnubg_id,
            xgid=_xgid(d),
        )
        for d in record.replay()
    ]
    return MatchOut(
        format=fmt,  # type: ignore[arg-type]
        filename=filename,
        length=record.length,
        players=record.players,
        tags=record.tags,
        comments=record.comments,
        cut_games=record.cut_games,
        games=[
            GameOut(
                number=g.number,
                score=g.score,
                crawford=g.crawford,
                winner=g.winner,
                points=g.points,
                cut_at=g.cut_at,
                notes=g.notes,
                actions=[action(a) for a in g.actions],
            )
            for g in record.games
        ],
        decisions=decisions,
    )


def read_upload(data: bytes, fmt: str, filename: str | None) -> dict[str, Any]:
    """The answer to an upload, as plain data (run in a parser process: :data:`READ_TARGET`);
    :class:`~services.common.sandbox.ParseRejected` naming ``file`` when the file cannot be read."""
    from services.common.sandbox import ParseRejected

    try:
        record = _READERS[fmt](data)
        return _convert(record, fmt, filename).model_dump()
    except PulvezarError as e:
        raise ParseRejected("file", str(e)) from None
    except MemoryError:
        raise
    except Exception as e:  # a reader's failure on a bad file is still the file's problem
        raise ParseRejected("file", f"not a readable .{fmt} file ({type(e).__name__}: {e})") from None


#: what a parser process runs for an upload (tests point it at a deliberately slow reader)
READ_TARGET = f"{__name__}:read_upload"


async def _parse(data: bytes, fmt: str, filename: str | None, request: Request) -> MatchOut:
    return MatchOut.model_validate(await parse(request, READ_TARGET, data, fmt, filename))


@router.post(
    "",
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
    who: Annotated[Client, Depends(client)],
    file: Annotated[UploadFile, File(description="the match file (.mat, .sgf, .xg, .gmd)")],
    format: Annotated[
        Format | None, Form(description="the file's format; default: by name or content")
    ] = None,
) -> MatchOut:
    limit: int = request.app.state.settings.max_upload_bytes
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise ProblemError(
            413,
            f"a match file may have at most {limit} bytes",
            kind="too-large",
            errors=[("file", "too large")],
        )
    if not data:
        raise invalid("file", "the file is empty")
    fmt = _format(file.filename, data, format)
    out = await _parse(data, fmt, file.filename, request)
    if database_url(request):
        row, _ = await store_call(_uploads(request).put, who.owner, data, fmt, file.filename, _summary(out))
        out.id = row.id
        response.headers["Location"] = f"/v1/matches/{row.id}"
    return out


# ---- stored uploads ---------------------------------------------------------------------------------
Who = Annotated[Client, Depends(client)]
UploadId = Annotated[str, Path(min_length=1, max_length=64, description="an upload's id")]
Cursor = Annotated[str | None, Query(max_length=200, description="from the last page's next_cursor")]
_MEDIA = {"sgf": "application/x-go-sgf", "xg": "application/octet-stream", "gmd": "text/plain"}


class UploadSummary(BaseModel):
    id: str
    filename: str | None
    format: Format
    players: tuple[str, str]
    length: int = Field(description="0 = money session")
    games: int
    decisions: int
    created: float = Field(description="seconds since the epoch (UTC)")
    href: str


class UploadList(BaseModel):
    matches: list[UploadSummary] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


def _summary(out: MatchOut) -> dict[str, Any]:
    return {
        "players": list(out.players),
        "length": out.length,
        "games": len(out.games),
        "decisions": len(out.decisions),
    }


def _uploads(request: Request, what: str = "stored matches") -> Any:
    url = database_url(request)
    if not url:
        raise no_store(what)
    from services.store.matches import MatchUploads

    return MatchUploads(url)


def _listed(row: Any) -> UploadSummary:
    return UploadSummary(
        id=row.id,
        filename=row.filename,
        format=row.format,
        players=tuple(row.summary["players"]),  # type: ignore[arg-type]
        length=row.summary["length"],
        games=row.summary["games"],
        decisions=row.summary["decisions"],
        created=row.created_at,
        href=f"/v1/matches/{row.id}",
    )


def _missing(uid: str) -> ProblemError:
    return ProblemError(404, f"no match {uid!r}", kind="not-found", errors=[("match_id", "unknown match")])


@router.get("", summary="Your uploaded matches, newest first (cursor pagination)")
async def list_matches(
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=200, description="matches per page")] = 50,
    cursor: Cursor = None,
) -> UploadList:
    uploads = _uploads(request, "listing matches")
    try:
        rows, nxt = await store_call(uploads.list, who.owner, limit=limit, cursor=cursor)
    except ValueError as e:
        raise invalid("cursor", str(e)) from None
    return UploadList(matches=[_listed(r) for r in rows], next_cursor=nxt)


@router.get("/{match_id}", summary="An uploaded match, as its upload answered")
async def get_match(match_id: UploadId, request: Request, who: Who) -> MatchOut:
    uploads = _uploads(request)
    row = await store_call(uploads.get, who.owner, match_id)
    data = await store_call(uploads.data, who.owner, match_id) if row is not None else None
    if row is None or data is None:
        raise _missing(match_id)
    out = await _parse(data, row.format, row.filename, request)
    out.id = row.id
    return out


@router.get(
    "/{match_id}/file",
    summary="The uploaded file's bytes",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}, "application/octet-stream": {}}}},
)
async def match_file(match_id: UploadId, request: Request, who: Who) -> Response:
    uploads = _uploads(request)
    row = await store_call(uploads.get, who.owner, match_id)
    data = await store_call(uploads.data, who.owner, match_id) if row is not None else None
    if row is None or data is None:
        raise _missing(match_id)
    return Response(
        data,
        media_type=_MEDIA.get(row.format, "text/plain; charset=utf-8"),
        headers={"Content-Disposition": content_disposition(row.filename or f"{row.id}.{row.format}")},
    )


@router.delete("/{match_id}", status_code=204, summary="Delete an uploaded match")
async def delete_match(match_id: UploadId, request: Request, who: Who) -> Response:
    if not await store_call(_uploads(request).delete, who.owner, match_id):
        raise _missing(match_id)
    return Response(status_code=204)
