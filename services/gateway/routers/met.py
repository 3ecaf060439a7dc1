"""``/v1/match-equity``: match-winning chances, take points and gammon prices (:mod:`pulvezar.met`)."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, ConfigDict, Field

from pulvezar.met import MatchEquity
from services.gateway.problems import invalid
from services.gateway.security import client

router = APIRouter(prefix="/v1/match-equity", tags=["match equity"], dependencies=[Depends(client)])

Table = Literal["kazaross-xg2", "tavla"]


@cache
def table(name: Table) -> MatchEquity:
    return MatchEquity.tavla() if name == "tavla" else MatchEquity.kazaross_xg2()


class GammonPrices(BaseModel):
    player: float
    opponent: float


class EquityAtScore(BaseModel):
    table: str
    length: int = Field(description="0 = money")
    away: tuple[int, int] = Field(description="points needed: (player, opponent)")
    cube_value: int
    crawford: bool
    post_crawford: bool
    mwc: float | None = Field(description="match-winning chance of the player; none for money")
    take_point: float | None = Field(description="the player's take point of a double; none without one")
    gammon_price: GammonPrices | None
    notes: list[str]


@router.get("", summary="Match-winning chance, take point and gammon prices at a score")
async def match_equity(
    length: Annotated[int, Query(ge=0, le=25, description="match length; 0 = money")] = 7,
    score: Annotated[int, Query(ge=0, le=25, description="the player's score")] = 0,
    opponent_score: Annotated[int, Query(ge=0, le=25)] = 0,
    cube: Annotated[int, Query(ge=1, le=1024, description="cube value, a power of two")] = 1,
    crawford: Annotated[
        bool | None, Query(description="at a 1-away score: true = Crawford game, false = post-Crawford")
    ] = None,
    table_name: Annotated[Table, Query(alias="table")] = "kazaross-xg2",
) -> EquityAtScore:
    if cube & (cube - 1):
        raise invalid("cube", f"the cube value is a power of two, got {cube}")
    met = table(table_name)
    if length > met.length:
        raise invalid("length", f"the {table_name} table covers matches up to {met.length} points")
    for name, value in (("score", score), ("opponent_score", opponent_score)):
        if length and value >= length:
            raise invalid(name, f"a score lies in 0..{length - 1} in a {length}-point match, got {value}")
    s = met.summary(length, score, opponent_score, cube, crawford=crawford)
    gp = s.gammon_price
    return EquityAtScore(
        table=met.name,
        length=s.length,
        away=(s.away_me, s.away_opp),
        cube_value=s.cube_value,
        crawford=s.crawford,
        post_crawford=s.post_crawford,
        mwc=s.mwc,
        take_point=s.take_point,
        gammon_price=GammonPrices(player=gp.me, opponent=gp.opp) if gp else None,
        notes=list(s.notes),
    )


class EquityTable(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "table": "Kazaross-XG2",
                    "length": 3,
                    "pre_crawford": [[0.5, 0.6774, 0.7508], [0.3226, 0.5, 0.5995], [0.2492, 0.4005, 0.5]],
                    "post_crawford": [0.5, 0.512, 0.6774],
                }
            ]
        }
    )

    table: str = Field(description="the table's name")
    length: int = Field(description="the rows and columns: 1- to length-away")
    pre_crawford: list[list[float]] = Field(
        description="pre_crawford[i][j]: the match-winning chance of a player i+1-away against one j+1-away "
        "(a 1-away score: the Crawford game)"
    )
    post_crawford: list[float] | None = Field(
        description="post_crawford[j]: the 1-away player's chance against one j+1-away after the Crawford "
        "game (null for a table without a cube)"
    )


@router.get(
    "/table", summary="The match-equity table up to length-away (as the app's match-equity card shows)"
)
async def equity_table(
    length: Annotated[
        int, Query(ge=1, le=25, description="rows and columns: 1- to length-away", examples=[11])
    ] = 7,
    table_name: Annotated[
        Table, Query(alias="table", description="kazaross-xg2 or tavla", examples=["tavla"])
    ] = "kazaross-xg2",
) -> EquityTable:
    met = table(table_name)
    if length > met.length:
        raise invalid("length", f"the {table_name} table covers matches up to {met.length} points")
    n = range(1, length + 1)
    pre = [[met.mwc(a, b) for b in n] for a in n]
    post = [met.mwc(1, b, post_crawford=True) if b > 1 else 0.5 for b in n] if met.has_cube else None
    return EquityTable(table=met.name, length=length, pre_crawford=pre, post_crawford=post)
