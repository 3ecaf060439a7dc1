"""``/v1/positions``: decode any position ID, and draw the board as SVG."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import Response
from pydantic import Field

from services.gateway.plays_models import PositionInfo
from services.gateway.security import client
from services.gateway.services import positions

router = APIRouter(prefix="/v1/positions", tags=["positions"], dependencies=[Depends(client)])

PositionPath = Annotated[
    str,
    Path(
        min_length=1,
        max_length=200,
        description="Position ID, PositionID:MatchID, XGID or OGID (URL-encode '/' and '+' as %2F and %2B, "
        "or send them as they are; an OGID's ':' may stay)",
        examples=["4HPwATDgc/ABMA"],
    ),
]


@router.get("/{position:path}/board.svg", response_class=Response, summary="The board as an SVG picture")
async def board_svg(
    position: PositionPath,
    cube: Annotated[bool, Query(description="draw the doubling cube", examples=[False])] = True,
    ids: Annotated[
        bool, Query(description="write the position's IDs under the board", examples=[False])
    ] = True,
) -> Response:
    text = positions.picture(position, cube, ids)
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
    data = await asyncio.to_thread(
        positions.png, position, cube, ids, play, dice, rules, tuple(caption or ())
    )
    return Response(data, media_type="image/png", headers={"Cache-Control": "public, max-age=86400"})


@router.get(
    "/{position:path}",
    response_model=PositionInfo,
    summary="Decode a position ID: board, IDs, pip counts, diagram",
)
async def get_position(position: PositionPath) -> PositionInfo:
    return positions.decoded(position)
