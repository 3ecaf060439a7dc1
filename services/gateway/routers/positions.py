"""``/v1/positions``: decode any position ID, and draw the board as SVG."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from pulvezar import XGID, PulvezarError, format_gnubg_id
from pulvezar.rules.diagram import ascii_board
from services.gateway import svg
from services.gateway.models import Board, MatchState, Parsed, Pips, match_state, parse_position
from services.gateway.security import client

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


class Side(BaseModel):
    player: int = Field(description="the player on roll")
    opponent: int


class PositionType(BaseModel):
    kind: str = Field(description="opening, race, bear-off, blitz, backgame, prime, holding or contact")
    side: str | None = Field(description="whose type it is: player (on roll), opponent; null for the others")
    plan: str = Field(description="the game plan of the type, in a sentence")


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


def position_type(position: Any) -> PositionType:
    """:func:`pulvezar.analysis.classify` of a position (the player on roll's view)."""
    from pulvezar.analysis.classify import classify

    t = classify(position)
    return PositionType(kind=t.kind, side=t.side, plan=t.plan)


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


@router.get("/{position:path}/board.svg", response_class=Response, summary="The board as an SVG picture")
async def board_svg(
    position: PositionPath,
    cube: Annotated[bool, Query(description="draw the doubling cube")] = True,
    ids: Annotated[bool, Query(description="write the position's IDs under the board")] = True,
) -> Response:
    parsed = parse_position(position, "position")
    labels: list[tuple[str, str]] = []
    if ids:
        labels = [("Position ID", parsed.position.position_id), ("XGID", _xgid(parsed).encode())]
        gid = _gnubg_id(parsed)
        if gid:
            labels.append(("GNUbg ID", gid))
    value, owner = _cube(parsed)
    text = svg.board_svg(
        parsed.position, ids=labels, dice=_dice(parsed), cube_value=value, cube_owner=owner, show_cube=cube
    )
    return Response(text, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


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
