"""``/v1/positions``: decode any position ID, and draw the board as SVG."""

from __future__ import annotations

import asyncio
import functools
from typing import Annotated, Literal
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from pulvezar import XGID, PulvezarError, format_gnubg_id
from pulvezar.rules.diagram import ascii_board
from services.gateway import svg
from services.gateway.models import Board, MatchState, Parsed, Pips, match_state, parse_position
from services.gateway.plays_models import PositionType, Side
from services.gateway.problems import invalid
from services.gateway.security import client
from services.gateway.services.plays import position_type

router = APIRouter(prefix="/v1/positions", tags=["positions"], dependencies=[Depends(client)])

PositionPath = Annotated[
    str,
    Path(
        min_length=1,
        max_length=200,
        description="Position ID, PositionID:MatchID or XGID (URL-encode '/' and '+' as %2F and %2B, or "
        "send them as they are)",
        examples=["4HPwATDgc/ABMA"],
    ),
]


class PositionInfo(BaseModel):
    kind: str = Field(description="which form was given: position_id, gnubg_id or xgid")
    position_id: str
    xgid: str
    gnubg_id: str | None = Field(None, description="PositionID:MatchID when the match state is known")
    board: Board
    pips: Pips
    off: Side
    bar: Side
    match: MatchState | None = None
    dice: tuple[int, int] | None = Field(None, description="the rolled dice, when the ID says")
    race: bool = Field(description="no contact left")
    diagram: str = Field(description="an ASCII diagram (the player on roll is X)")
    board_svg: str = Field(description="where the SVG picture is")
    position_type: PositionType = Field(description="the position type, as analyses name it")


def _xgid(parsed: Parsed) -> XGID:
    if parsed.xgid is not None:
        return parsed.xgid
    if parsed.match is not None:
        try:
            return XGID.from_match_id(parsed.position, parsed.match)
        except PulvezarError:
            pass
    return XGID.from_position(parsed.position)


def _dice(parsed: Parsed) -> tuple[int, int] | None:
    if parsed.xgid is not None:
        return parsed.xgid.rolled
    if parsed.match is not None and parsed.match.dice[0]:
        return parsed.match.dice
    return None


def _cube(parsed: Parsed) -> tuple[int, str | None]:
    """Cube value and owner: "player" (on roll), "opponent" or None (centred)."""
    if parsed.xgid is not None:
        x = parsed.xgid
        owner = None if x.cube_owner == 0 else ("player" if x.cube_owner == x.turn else "opponent")
        return x.cube_value, owner
    if parsed.match is not None:
        m = parsed.match
        if m.cube_owner is None:
            return m.cube_value, None
        return m.cube_value, "player" if m.cube_owner == m.turn else "opponent"
    return 1, None


def _gnubg_id(parsed: Parsed) -> str | None:
    if parsed.match is None:
        return None
    return format_gnubg_id(parsed.position, parsed.match)


def _picture(
    position: str,
    cube: bool,
    ids: bool,
    play: str | None = None,
    dice: str | None = None,
    rules: str = "international",
    caption: list[str] | None = None,
) -> str:
    """The SVG of a position: the board, and for a picture to share a play's arrows, the score and a
    caption; a 422 naming ``position``, ``dice`` or ``play`` for what does not fit."""
    parsed = parse_position(position, "position")
    labels: list[tuple[str, str]] = []
    if ids:
        labels = [("Position ID", parsed.position.position_id), ("XGID", _xgid(parsed).encode())]
        gid = _gnubg_id(parsed)
        if gid:
            labels.append(("GNUbg ID", gid))
    rolled = _dice(parsed)
    if dice is not None:
        rolled = (int(dice[0]), int(dice[1]))
    arrows: list[tuple[int, int]] = []
    if play:
        try:
            arrows = svg.arrows_of(play)
            if rolled is not None:  # a play of these dice: it must be legal
                from pulvezar import Rules
                from pulvezar.rules.notation import parse_play

                parse_play(
                    play,
                    parsed.position,
                    rolled,
                    Rules.tavla() if rules == "tavla" else Rules.international(),
                )
        except (ValueError, PulvezarError) as e:
            raise invalid("play", str(e)) from None
    value, owner = _cube(parsed)
    return svg.board_svg(
        parsed.position, ids=labels, dice=rolled, cube_value=value, cube_owner=owner, show_cube=cube,
        arrows=arrows, score=_score(parsed), caption=caption or [],
    )  # fmt: skip


def _score(parsed: Parsed) -> str | None:
    m = parsed.match
    if m is None or not m.match_length:
        return None
    me = m.turn if m.dice == (0, 0) else m.dice_owner
    return f"Score {m.score[me]}-{m.score[1 - me]}, {m.match_length}-point match" + (
        " (Crawford)" if m.crawford else ""
    )


@router.get("/{position:path}/board.svg", response_class=Response, summary="The board as an SVG picture")
async def board_svg(
    position: PositionPath,
    cube: Annotated[bool, Query(description="draw the doubling cube", examples=[False])] = True,
    ids: Annotated[
        bool, Query(description="write the position's IDs under the board", examples=[False])
    ] = True,
) -> Response:
    text = _picture(position, cube, ids)
    return Response(text, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


Caption = Annotated[
    # no control character: XML (the picture is SVG) has no place for them
    list[Annotated[str, Field(max_length=120, pattern=r"^[^\x00-\x1f\x7f\ufffe\uffff]*$")]] | None,
    Query(
        max_length=2,
        description="up to two lines of explanation under the board",
        examples=[["Slot the 5-point: a blot now, a point later."]],
    ),
]


@router.get(
    "/{position:path}/board.png",
    response_class=Response,
    summary="The board as a PNG picture to share: a play's arrows, dice, cube, score and a caption",
    responses={200: {"content": {"image/png": {}}}},
)
async def board_png(
    position: PositionPath,
    play: Annotated[
        str | None,
        Query(max_length=60, description="a play drawn as arrows, e.g. 8/5 6/5", examples=["8/5 6/5"]),
    ] = None,
    dice: Annotated[
        str | None,
        Query(pattern="^[1-6]{2}$", description="the roll, e.g. 31 (default: the ID's)", examples=["31"]),
    ] = None,
    rules: Annotated[
        Literal["international", "tavla"], Query(description="the play's rule set", examples=["tavla"])
    ] = "international",
    caption: Caption = None,
    cube: Annotated[bool, Query(description="draw the doubling cube", examples=[False])] = True,
    ids: Annotated[
        bool, Query(description="write the position's IDs under the board", examples=[True])
    ] = False,
) -> Response:
    data = await asyncio.to_thread(_png, position, cube, ids, play, dice, rules, tuple(caption or ()))
    return Response(data, media_type="image/png", headers={"Cache-Control": "public, max-age=86400"})


@functools.lru_cache(maxsize=256)
def _png(
    position: str,
    cube: bool,
    ids: bool,
    play: str | None,
    dice: str | None,
    rules: str,
    caption: tuple[str, ...],
) -> bytes:
    """The PNG of :func:`_picture`, rendered once per request form (the recent ones are kept)."""
    return svg.png(_picture(position, cube, ids, play, dice, rules, list(caption)))


@router.get("/{position:path}", summary="Decode a position ID: board, IDs, pip counts, diagram")
async def get_position(position: PositionPath) -> PositionInfo:
    parsed = parse_position(position, "position")
    p = parsed.position
    pips, off, bar = p.pips(), p.off(), p.bar()
    return PositionInfo(
        kind=parsed.kind,
        position_id=p.position_id,
        xgid=_xgid(parsed).encode(),
        gnubg_id=_gnubg_id(parsed),
        board=Board(mine=list(p.mine), theirs=list(p.theirs)),
        pips=Pips(player=pips[0], opponent=pips[1]),
        off=Side(player=off[0], opponent=off[1]),
        bar=Side(player=bar[0], opponent=bar[1]),
        match=match_state(parsed.match) if parsed.match is not None else None,
        dice=_dice(parsed),
        race=p.is_race(),
        diagram=ascii_board(p),
        board_svg=f"/v1/positions/{quote(position.strip(), safe='/:=+')}/board.svg",
        position_type=position_type(p),
    )
