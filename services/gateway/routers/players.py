"""The players of an API key (``/v1/players``): the learner's record starts here.

A client app has many people per key; each is a player made with ``POST /v1/players`` and named in what
is recorded for it (``"player"`` in ``POST /v1/games``).  A player belongs to the key that made it: another
key gets 404.  ``DELETE`` removes the player and everything recorded for it.  Needs the durable store.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.gateway.durable import database_url, no_store, store_call
from services.gateway.language import language
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client

router = APIRouter(prefix="/v1/players", tags=["players"])
Who = Annotated[Client, Depends(client)]
PlayerId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$")]


class PlayerIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100, description="how the app shows the player")

    @field_validator("name")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("a name is not only spaces")
        return v.strip()


class Player(BaseModel):
    id: str
    name: str
    created: float = Field(description="seconds since the epoch (UTC)")
    updated: float
    href: str


class PlayerList(BaseModel):
    players: list[Player] = Field(description="newest first")
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last")


def records(request: Request) -> Any:
    url = database_url(request)
    if not url:
        raise no_store("players")
    from services.store.players import PlayerRecords

    return PlayerRecords(url)


def _out(p: Any) -> Player:
    return Player(
        id=p.id, name=p.name, created=p.created_at, updated=p.updated_at, href=f"/v1/players/{p.id}"
    )


def _not_found(player_id: str) -> ProblemError:
    return ProblemError(
        404, f"no player {player_id!r}", kind="not-found", errors=[("player_id", "unknown player")]
    )


@router.post("", status_code=201, response_model=Player, summary="Make a player of your key")
async def create_player(body: PlayerIn, request: Request, who: Who) -> JSONResponse:
    p = await store_call(records(request).create, who.owner, body.name)
    out = _out(p)
    return JSONResponse(out.model_dump(), status_code=201, headers={"Location": out.href})


@router.get("", summary="Your players, newest first (cursor pagination)")
async def list_players(
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=200, description="players per page")] = 50,
    cursor: Annotated[str | None, Query(max_length=200)] = None,
) -> PlayerList:
    try:
        rows, nxt = await store_call(records(request).list, who.owner, limit=limit, cursor=cursor)
    except ValueError as e:
        raise invalid("cursor", str(e)) from None
    return PlayerList(players=[_out(p) for p in rows], next_cursor=nxt)


@router.get("/{player_id}", summary="A player")
async def get_player(player_id: PlayerId, request: Request, who: Who) -> Player:
    p = await store_call(records(request).get, who.owner, player_id)
    if p is None:
        raise _not_found(player_id)
    return _out(p)


@router.patch("/{player_id}", summary="Rename a player")
async def rename_player(player_id: PlayerId, body: PlayerIn, request: Request, who: Who) -> Player:
    p = await store_call(records(request).rename, who.owner, player_id, body.name)
    if p is None:
        raise _not_found(player_id)
    return _out(p)


@router.delete(
    "/{player_id}",
    status_code=204,
    response_class=Response,
    summary="Delete a player and everything recorded for it (its games)",
)
async def delete_player(player_id: PlayerId, request: Request, who: Who) -> Response:
    if not await store_call(records(request).delete, who.owner, player_id):
        raise _not_found(player_id)
    return Response(status_code=204)


class LevelResults(BaseModel):
    games_played: int
    games_won: int
    matches_played: int
    matches_won: int


class Dice(BaseModel):
    counts: list[int] = Field(
        description="how often each number (1..6) fell for the player; doubles count four"
    )
    total: int
    expected: float = Field(description="each number's expected count: total / 6")


class Rank(BaseModel):
    id: str = Field(description="apprentice, journeyman, candidate_master, master or grandmaster")
    name: str = Field(description="in the request's language (Accept-Language: en, de, tr)")


class Rung(BaseModel):
    month: str = Field(description="YYYY-MM")
    rating: float = Field(description="at the month's end")
    games: int = Field(description="games rated in the month")


class Rating(BaseModel):
    value: float = Field(
        description="Elo-like from the games against the bots; 1500 to start (docs/learners.md)"
    )
    rank: Rank
    ladder: list[Rung] = Field(description="the last six months, oldest first")


class DailyResults(BaseModel):
    tried: int = Field(description="puzzles attempted (the first attempt counts)")
    solved: int = Field(description="solved at the first attempt")
    streak: int = Field(description="days in a row solved, up to today or yesterday")
    best_streak: int
    mean_loss: float | None = Field(description="of the first attempts")


class Statistics(BaseModel):
    """What a player's games against the bots add up to (``pulvezar.play.statistics``)."""

    games_played: int
    games_won: int
    win_rate: float | None = Field(description="games won / played; null before the first game")
    matches_played: int = Field(description="matches (not money sessions) played to their end")
    matches_won: int
    match_win_rate: float | None
    gammons_won: int = Field(description="borne off while the loser had borne off none")
    backgammons_won: int = Field(description="Tavla: mars")
    gammons_lost: int
    backgammons_lost: int
    win_streak: int = Field(description="games won in a row, up to the last")
    longest_win_streak: int
    points_won: int
    points_lost: int
    by_level: dict[str, LevelResults] = Field(description="results by bot level")
    rolls: int = Field(description="the player's rolls (the opening die not counted)")
    doubles: int
    dice: Dice
    rated_games: int
    rating: Rating
    daily: dict[str, DailyResults] = Field(
        description="the daily position per rule set (international, tavla), the daily cube decision (cube)"
    )


@router.get("/{player_id}/statistics", summary="A player's statistics: games, matches, streaks, levels, dice")
async def statistics(player_id: PlayerId, request: Request, who: Who) -> Statistics:
    from pulvezar.play.statistics import report

    counters = await store_call(records(request).statistics, who.owner, player_id)
    if counters is None:
        raise _not_found(player_id)
    return Statistics.model_validate(report(counters, _month(), language(request), _today()))


@router.post("/{player_id}/statistics/reset", summary="Start a player's statistics again (the games stay)")
async def reset_statistics(player_id: PlayerId, request: Request, who: Who) -> Statistics:
    from pulvezar.play.statistics import report

    if not await store_call(records(request).reset_statistics, who.owner, player_id):
        raise _not_found(player_id)
    return Statistics.model_validate(report({}, _month(), language(request), _today()))


def _month() -> str:
    return time.strftime("%Y-%m", time.gmtime())


def _today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


class Achievement(BaseModel):
    id: str
    condition: str = Field(description="in the request's language (Accept-Language: en, de, tr)")
    reached: float | None = Field(description="when (seconds since the epoch, UTC); null: not yet")


class Achievements(BaseModel):
    achievements: list[Achievement] = Field(description="the twenty of the app manual, in its order")
    reached: int


@router.get("/{player_id}/achievements", summary="A player's twenty achievements, reached (with when) or not")
async def player_achievements(player_id: PlayerId, request: Request, who: Who) -> Achievements:
    from pulvezar.play.statistics import achievements

    counters = await store_call(records(request).statistics, who.owner, player_id)
    if counters is None:
        raise _not_found(player_id)
    found = achievements(counters, language(request))
    return Achievements.model_validate(
        {"achievements": found, "reached": sum(a["reached"] is not None for a in found)}
    )


class DayResult(BaseModel):
    date: str
    state: Literal["solved", "missed", "not_tried"] = Field(
        description="solved at the first attempt, missed (the first attempt was wrong), or not tried"
    )


class DailyCalendar(BaseModel):
    month: str
    rules: str
    kind: str
    days: list[DayResult] = Field(description="every day of the month up to today")


@router.get("/{player_id}/daily", summary="A player's daily calendar of a month: solved, missed, not tried")
async def daily_calendar(
    player_id: PlayerId,
    request: Request,
    who: Who,
    month: Annotated[
        str | None, Query(pattern=r"^\d{4}-(0[1-9]|1[0-2])$", description="YYYY-MM; this month")
    ] = None,
    rules: Literal["international", "tavla"] = "international",
    kind: Literal["position", "cube"] = "position",
) -> DailyCalendar:
    import calendar
    import datetime as dt

    from services.store.daily_attempts import DailyAttempts

    month = month or _month()
    found = await store_call(
        DailyAttempts(records(request).url).calendar, who.owner, player_id, month, rules, kind
    )
    if found is None:
        raise _not_found(player_id)
    year, mon = (int(x) for x in month.split("-"))
    today = _today()
    days = []
    for d in range(1, calendar.monthrange(year, mon)[1] + 1):
        date = dt.date(year, mon, d).isoformat()
        if date > today:
            break
        days.append(DayResult(date=date, state=found.get(date, "not_tried")))  # type: ignore[arg-type]
    return DailyCalendar(month=month, rules=rules, kind=kind, days=days)
