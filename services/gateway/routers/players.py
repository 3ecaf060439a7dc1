"""The players of an API key (``/v1/players``): the learner's record starts here.

A client app has many people per key; each is a player made with ``POST /v1/players`` and named in what
is recorded for it (``"player"`` in ``POST /v1/games``).  A player belongs to the key that made it: another
key gets 404.  ``DELETE`` removes the player and everything recorded for it.  Needs the durable store.
The work is :mod:`services.gateway.services.players`'.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from services.gateway.idempotency import IdempotencyKey, fingerprint
from services.gateway.language import language
from services.gateway.learner_models import (
    Achievements,
    Archive,
    DailyCalendar,
    Player,
    PlayerIn,
    PlayerList,
    Statistics,
    WeeklyPlan,
    YourOpenings,
)
from services.gateway.routers.params import Who, add_call_routes, short_id
from services.gateway.services import players
from services.gateway.services.deps import dependencies, evaluator

router = APIRouter(prefix="/v1/players", tags=["players"])
PlayerId = Annotated[str, short_id("a player's id", "p3f0c5e1a2b4c6d8e0f1a2b3c")]


def roster(request: Request, who: Who) -> players.Roster:
    return players.Roster(dependencies(request).players, who, language(request))


Players = Annotated[players.Roster, Depends(roster)]


@router.post("", status_code=201, response_model=Player, summary="Make a player of your key")
async def create_player(
    body: PlayerIn, request: Request, r: Players, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A player of your key; a request retried with the same ``Idempotency-Key`` gets the same player."""
    out = await players.create(r, body.name, idempotency_key, fingerprint(request, body.model_dump()))
    if isinstance(out, JSONResponse):
        return out
    return JSONResponse(out.model_dump(), status_code=201, headers={"Location": out.href})


@router.get("", response_model=PlayerList, summary="Your players, newest first (cursor pagination)")
async def list_players(
    r: Players,
    limit: Annotated[int, Query(ge=1, le=200, description="players per page")] = 50,
    cursor: Annotated[str | None, Query(max_length=200, description="the last page's next_cursor")] = None,
) -> PlayerList:
    return await players.listed(r, limit, cursor)


#: the parameters of the routes of one player, in the order of the service's functions
ONE_PLAYER = {"r": Players, "player_id": PlayerId}

# the player, and the routes that answer with one of its records
add_call_routes(router, ONE_PLAYER, (
    ("GET", "/{player_id}", "get_player", Player, players.get, "A player"),
    ("DELETE", "/{player_id}", "delete_player", None, players.delete,
     "Delete a player and everything recorded for it (its games)"),
    ("GET", "/{player_id}/statistics", "statistics", Statistics, players.statistics,
     "A player's statistics: games, matches, streaks, levels, dice, rating, daily, PR trend, mistakes"),
    ("POST", "/{player_id}/statistics/reset", "reset_statistics", Statistics, players.reset_statistics,
     "Start a player's statistics again (the games stay)"),
    ("GET", "/{player_id}/plan", "weekly_plan", WeeklyPlan, players.plan,
     "A player's plan of this week: the two areas where it loses most, with their tasks"),
    ("GET", "/{player_id}/achievements", "player_achievements", Achievements, players.achievements,
     "A player's twenty achievements, reached (with when) or not"),
))  # fmt: skip


@router.patch("/{player_id}", response_model=Player, summary="Rename a player")
async def rename_player(player_id: PlayerId, body: PlayerIn, r: Players) -> Player:
    return await players.rename(r, player_id, body.name)


@router.get(
    "/{player_id}/matches",
    response_model=Archive,
    summary="A player's archive: the matches played here and imported, won or lost, with their PR",
)
async def player_matches(
    player_id: PlayerId,
    r: Players,
    limit: Annotated[int, Query(ge=1, le=200, description="matches per page")] = 50,
    cursor: Annotated[str | None, Query(max_length=200, description="the last page's next_cursor")] = None,
) -> Archive:
    return await players.archive(r, player_id, limit, cursor)


@router.get(
    "/{player_id}/daily",
    response_model=DailyCalendar,
    summary="A player's daily calendar of a month: solved, missed, not tried",
)
async def daily_calendar(
    player_id: PlayerId,
    r: Players,
    month: Annotated[
        str | None, Query(pattern=r"^[1-9]\d{3}-(0[1-9]|1[0-2])$", description="YYYY-MM; this month")
    ] = None,
    rules: Annotated[
        Literal["international", "tavla"], Query(description="the daily's rule set")
    ] = "international",
    kind: Annotated[
        Literal["position", "cube"], Query(description="the daily position or cube decision")
    ] = "position",
) -> DailyCalendar:
    return await players.daily_calendar(r, player_id, month, rules, kind)


@router.get(
    "/{player_id}/openings",
    response_model=YourOpenings,
    summary='The opening book\'s "you" row: your most frequent play with each opening roll, how often, the '
    "win rate, the gap to the book's best",
)
async def your_openings(
    player_id: PlayerId,
    r: Players,
    ev: Annotated[Any, Depends(evaluator)],
    rules: Annotated[
        Literal["international", "tavla"], Query(description="the book's rule set", examples=["tavla"])
    ] = "international",
) -> YourOpenings:
    """From the player's games against the bots that they opened (not free games); a play the book does not
    hold is valued by a 2-ply search of the roll (its gap at that search)."""
    return await players.openings(r, player_id, rules, ev)
