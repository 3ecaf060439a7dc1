"""The players of an API key (``/v1/players``): the learner's record starts here.

A client app has many people per key; each is a player made with ``POST /v1/players`` and named in what
is recorded for it (``"player"`` in ``POST /v1/games``).  A player belongs to the key that made it: another
key gets 404.  ``DELETE`` removes the player and everything recorded for it.  Needs the durable store.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from services.gateway.durable import database_url, no_store, store_call
from services.gateway.idempotency import IdempotencyKey, fingerprint, replayed
from services.gateway.language import language
from services.gateway.learner_models import Archive, PlayedMatch, Statistics, WeeklyPlan, YourOpenings
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client

router = APIRouter(prefix="/v1/players", tags=["players"])
Who = Annotated[Client, Depends(client)]
PlayerId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=32,
        pattern=r"^[A-Za-z0-9]+$",
        description="a player's id",
        examples=["p3f0c5e1a2b4c6d8e0f1a2b3c"],
    ),
]


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
    id: str = Field(description="the player's id: name it in what is recorded for it")
    name: str = Field(description="how the app shows the player")
    created: float = Field(description="seconds since the epoch (UTC)")
    updated: float = Field(description="seconds since the epoch (UTC) of the last change")
    href: str = Field(description="the player's URL")


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
async def create_player(
    body: PlayerIn, request: Request, who: Who, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A player of your key; a request retried with the same ``Idempotency-Key`` gets the same player."""
    store = records(request)
    fp = fingerprint(request, body.model_dump())
    replay = await replayed(store, who, idempotency_key, fp)
    if replay is not None:
        replay.headers["Location"] = json.loads(replay.body)["href"]
        return replay
    idem = (idempotency_key, fp) if idempotency_key else None
    p = await store_call(store.create, who.owner, body.name, lambda p: _out(p).model_dump(), idem)
    out = _out(p)
    return JSONResponse(out.model_dump(), status_code=201, headers={"Location": out.href})


@router.get("", summary="Your players, newest first (cursor pagination)")
async def list_players(
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=200, description="players per page")] = 50,
    cursor: Annotated[str | None, Query(max_length=200, description="the last page's next_cursor")] = None,
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


@router.get(
    "/{player_id}/statistics",
    summary="A player's statistics: games, matches, streaks, levels, dice, rating, daily, PR trend, mistakes",
)
async def statistics(player_id: PlayerId, request: Request, who: Who) -> Statistics:
    counters = await store_call(records(request).statistics, who.owner, player_id)
    if counters is None:
        raise _not_found(player_id)
    recent = await store_call(_matches(request).list, who.owner, player_id, limit=5)
    return _statistics(counters, request, recent[0] if recent else [])


@router.post("/{player_id}/statistics/reset", summary="Start a player's statistics again (the games stay)")
async def reset_statistics(player_id: PlayerId, request: Request, who: Who) -> Statistics:
    if not await store_call(records(request).reset_statistics, who.owner, player_id):
        raise _not_found(player_id)
    recent = await store_call(_matches(request).list, who.owner, player_id, limit=5)  # the archive stays
    return _statistics({}, request, recent[0] if recent else [])


def _statistics(counters: dict[str, Any], request: Request, recent: list[Any]) -> Statistics:
    from pulvezar.play.progress import frequent_mistakes, pr_trend
    from pulvezar.play.statistics import report

    lang = language(request)
    out = report(counters, _month(), lang, _today())
    out["pr"] = pr_trend(counters)
    out["frequent_mistakes"] = frequent_mistakes(counters, lang)
    out["recent_matches"] = [_played(m) for m in recent]
    out["exercises"] = dict(counters.get("exercises") or {})
    return Statistics.model_validate(out)


def _matches(request: Request) -> Any:
    from services.store.player_matches import PlayerMatches

    return PlayerMatches(records(request).url)


def _played(m: Any) -> PlayedMatch:
    info = m.info
    return PlayedMatch(
        id=m.id, source=m.source, ref=m.ref, opponent=info.get("opponent"), length=info.get("length"),
        rules=info.get("rules"), filename=info.get("filename"), game_id=info.get("game_id"), won=m.won,
        pr=None if m.pr is None else round(m.pr, 2), analysis=m.analysis, played=m.played_at,
        analysed=m.analysed_at,
    )  # fmt: skip


@router.get(
    "/{player_id}/matches",
    summary="A player's archive: the matches played here and imported, won or lost, with their PR",
)
async def player_matches(
    player_id: PlayerId,
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=200, description="matches per page")] = 50,
    cursor: Annotated[str | None, Query(max_length=200, description="the last page's next_cursor")] = None,
) -> Archive:
    try:
        found = await store_call(_matches(request).list, who.owner, player_id, limit=limit, cursor=cursor)
    except ValueError as e:
        raise invalid("cursor", str(e)) from None
    if found is None:
        raise _not_found(player_id)
    rows, nxt = found
    return Archive(matches=[_played(m) for m in rows], next_cursor=nxt)


@router.get(
    "/{player_id}/plan",
    summary="A player's plan of this week: the two areas where it loses most, with their tasks",
)
async def weekly_plan(player_id: PlayerId, request: Request, who: Who) -> WeeklyPlan:
    from pulvezar.play.progress import TYPE_NAMES

    plan = await store_call(records(request).plan, who.owner, player_id, _today())
    if plan is None:
        raise _not_found(player_id)
    lang = language(request)
    for area in plan["areas"]:
        names = TYPE_NAMES.get(area["position_type"], {})
        area["name"] = names.get(lang) or names.get("en") or area["position_type"]
    return WeeklyPlan.model_validate(plan)


def _month() -> str:
    return time.strftime("%Y-%m", time.gmtime())


def _today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


class Achievement(BaseModel):
    id: str = Field(description="first_win, ten_wins, ... (docs/learners.md has the table)")
    condition: str = Field(description="in the request's language (Accept-Language: en, de, tr)")
    reached: float | None = Field(description="when (seconds since the epoch, UTC); null: not yet")


class Achievements(BaseModel):
    achievements: list[Achievement] = Field(description="the twenty of the app manual, in its order")
    reached: int = Field(description="how many of the twenty are reached")


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
    date: str = Field(description="YYYY-MM-DD")
    state: Literal["solved", "missed", "not_tried"] = Field(
        description="solved at the first attempt, missed (the first attempt was wrong), or not tried"
    )


class DailyCalendar(BaseModel):
    month: str = Field(description="YYYY-MM")
    rules: str = Field(description="international or tavla")
    kind: str = Field(description="position or cube")
    days: list[DayResult] = Field(description="every day of the month up to today")


@router.get("/{player_id}/daily", summary="A player's daily calendar of a month: solved, missed, not tried")
async def daily_calendar(
    player_id: PlayerId,
    request: Request,
    who: Who,
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


@router.get(
    "/{player_id}/openings",
    summary='The opening book\'s "you" row: your most frequent play with each opening roll, how often, the '
    "win rate, the gap to the book's best",
)
async def your_openings(
    player_id: PlayerId,
    request: Request,
    who: Who,
    rules: Annotated[
        Literal["international", "tavla"], Query(description="the book's rule set", examples=["tavla"])
    ] = "international",
) -> YourOpenings:
    """From the player's games against the bots that they opened (not free games); a play the book does not
    hold is valued by a 2-ply search of the roll (its gap at that search)."""
    import asyncio

    from pulvezar.book.personal import your_openings as rows_of
    from services.gateway.routers.book import shipped
    from services.gateway.routers.games import evaluator

    counters = await store_call(records(request).statistics, who.owner, player_id)
    if counters is None:
        raise _not_found(player_id)
    book = shipped(rules)
    ev = evaluator(request)

    def gap_of(dice: tuple[int, int], position_id: str) -> tuple[float, int] | None:
        from pulvezar.rules.position import Position
        from pulvezar.search.hint import searcher

        ranked = searcher(ev, book_rules).rank(Position.from_position_id(book.position_id), dice, 2)
        top = ranked[0].ply
        mine = next((c for c in ranked if c.play.position.position_id == position_id), None)
        return (
            None if mine is None else (ranked[0].cubeless_equity - mine.cubeless_equity, min(top, mine.ply))
        )

    from pulvezar.rules.rules import Rules

    book_rules = Rules.tavla() if rules == "tavla" else Rules.international()
    counts = (counters.get("openings") or {}).get(rules, {})
    rows = await asyncio.to_thread(rows_of, book, counts, gap_of)
    return YourOpenings(rules=rules, rows=rows)  # type: ignore[arg-type]
