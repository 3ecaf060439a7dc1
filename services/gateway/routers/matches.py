"""``/v1/matches``: upload a match file (.mat, .sgf, .xg, .gmd), get it back as JSON with every decision."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Form, Request, UploadFile
from pydantic import BaseModel, Field

from pulvezar import XGID, PulvezarError
from pulvezar.formats import MatchRecord, read_gmd, read_mat, read_sgf, read_xg
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import client

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


def _parse(data: bytes, fmt: str, filename: str | None) -> MatchOut:
    try:
        record = _READERS[fmt](data)
        return _convert(record, fmt, filename)
    except PulvezarError as e:
        raise invalid("file", str(e)) from None
    except Exception as e:  # a reader's failure on a bad file is still the file's problem
        raise invalid("file", f"not a readable .{fmt} file ({type(e).__name__}: {e})") from None


@router.post("", summary="Parse an uploaded match file into games, decisions and their IDs")
async def upload_match(
    request: Request,
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
    return await asyncio.to_thread(_parse, data, fmt, file.filename)
