"""``/v1/match-equity``: match-winning chances, take points and gammon prices (:mod:`pulvezar.met`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from services.gateway.met_models import EquityAtScore, EquityTable, Table
from services.gateway.security import client
from services.gateway.services import met

router = APIRouter(prefix="/v1/match-equity", tags=["match equity"], dependencies=[Depends(client)])


@router.get(
    "",
    response_model=EquityAtScore,
    summary="Match-winning chance, take point and gammon prices at a score",
)
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
    return met.at_score(length, score, opponent_score, cube, crawford, table_name)


@router.get(
    "/table",
    response_model=EquityTable,
    summary="The match-equity table up to length-away (as the app's match-equity card shows)",
)
async def equity_table(
    length: Annotated[
        int, Query(ge=1, le=25, description="rows and columns: 1- to length-away", examples=[11])
    ] = 7,
    table_name: Annotated[
        Table, Query(alias="table", description="kazaross-xg2 or tavla", examples=["tavla"])
    ] = "kazaross-xg2",
) -> EquityTable:
    return met.equity_table(length, table_name)
