"""The players of an API key and their record: statistics, archive, weekly plan, achievements, the daily
calendar and the opening book's "you" row.  Another key's player is a 404."""

from __future__ import annotations

import asyncio
import calendar
import datetime as dt
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi.responses import JSONResponse

from pulvezar.book.model import Book, BookError, book_path, read_book
from services.gateway.durable import store_call
from services.gateway.idempotency import replayed
from services.gateway.learner_models import (
    Achievements,
    Archive,
    DailyCalendar,
    DayResult,
    PlayedMatch,
    Player,
    PlayerList,
    Statistics,
    WeeklyPlan,
    YourOpenings,
)
from services.gateway.problems import ProblemError
from services.gateway.security import Client
from services.gateway.services.paging import page

if TYPE_CHECKING:
    from services.store.player_matches import PlayerMatches
    from services.store.players import PlayerRecords, StoredPlayer


@dataclass(frozen=True)
class Roster:
    """What a call on the caller's players needs: the records, the caller, the request's language."""

    records: PlayerRecords
    who: Client
    lang: str

    @property
    def players(self) -> PlayerRecords:
        return self.records

    @property
    def owner(self) -> str:
        return self.who.owner

    @property
    def matches(self) -> PlayerMatches:
        from services.store.player_matches import PlayerMatches

        return PlayerMatches(self.players.url)


def not_found(player_id: str) -> ProblemError:
    return ProblemError(
        404, f"no player {player_id!r}", kind="not-found", errors=[("player_id", "unknown player")]
    )


def player_out(p: StoredPlayer) -> Player:
    return Player(
        id=p.id, name=p.name, created=p.created_at, updated=p.updated_at, href=f"/v1/players/{p.id}"
    )


def month() -> str:
    return time.strftime("%Y-%m", time.gmtime())


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


# ---- the players ----------------------------------------------------------------------------------
async def create(r: Roster, name: str, key: str | None, fp: str) -> Player | JSONResponse:
    """A player of the caller's key; a request retried with the same ``key`` gets the same player."""
    replay = await replayed(r.players, r.who, key, fp)
    if replay is not None:
        replay.headers["Location"] = replay_href(replay)
        return replay
    idem = (key, fp) if key else None
    p = await store_call(r.players.create, r.owner, name, lambda p: player_out(p).model_dump(), idem)
    return player_out(p)


def replay_href(replay: JSONResponse) -> str:
    import json

    href: str = json.loads(bytes(replay.body))["href"]
    return href


async def listed(r: Roster, limit: int, cursor: str | None) -> PlayerList:
    rows, nxt = await page(r.players.list, r.owner, limit=limit, cursor=cursor)
    return PlayerList(players=[player_out(p) for p in rows], next_cursor=nxt)


async def get(r: Roster, player_id: str) -> Player:
    p = await store_call(r.players.get, r.owner, player_id)
    if p is None:
        raise not_found(player_id)
    return player_out(p)


async def rename(r: Roster, player_id: str, name: str) -> Player:
    p = await store_call(r.players.rename, r.owner, player_id, name)
    if p is None:
        raise not_found(player_id)
    return player_out(p)


async def delete(r: Roster, player_id: str) -> None:
    if not await store_call(r.players.delete, r.owner, player_id):
        raise not_found(player_id)


# ---- the record -----------------------------------------------------------------------------------
async def statistics(r: Roster, player_id: str, reset: bool = False) -> Statistics:
    """A player's statistics (``reset``: started again first; its games and archive stay)."""
    if reset:
        if not await store_call(r.players.reset_statistics, r.owner, player_id):
            raise not_found(player_id)
        counters: dict[str, Any] | None = {}
    else:
        counters = await store_call(r.players.statistics, r.owner, player_id)
    if counters is None:
        raise not_found(player_id)
    recent = await store_call(r.matches.list, r.owner, player_id, limit=5)
    return _statistics(counters, r.lang, recent[0] if recent else [])


async def reset_statistics(r: Roster, player_id: str) -> Statistics:
    """A player's statistics started again (its games and archive stay)."""
    return await statistics(r, player_id, reset=True)


def _statistics(counters: dict[str, Any], lang: str, recent: list[Any]) -> Statistics:
    from pulvezar.play.progress import frequent_mistakes, pr_trend
    from pulvezar.play.statistics import report

    out = report(counters, month(), lang, today())
    out["pr"] = pr_trend(counters)
    out["frequent_mistakes"] = frequent_mistakes(counters, lang)
    out["recent_matches"] = [played(m) for m in recent]
    out["exercises"] = dict(counters.get("exercises") or {})
    return Statistics.model_validate(out)


def played(m: Any) -> PlayedMatch:
    info = m.info
    return PlayedMatch(
        id=m.id, source=m.source, ref=m.ref, opponent=info.get("opponent"), length=info.get("length"),
        rules=info.get("rules"), filename=info.get("filename"), game_id=info.get("game_id"), won=m.won,
        pr=None if m.pr is None else round(m.pr, 2), analysis=m.analysis, played=m.played_at,
        analysed=m.analysed_at,
    )  # fmt: skip


async def archive(r: Roster, player_id: str, limit: int, cursor: str | None) -> Archive:
    found = await page(r.matches.list, r.owner, player_id, limit=limit, cursor=cursor)
    if found is None:
        raise not_found(player_id)
    rows, nxt = found
    return Archive(matches=[played(m) for m in rows], next_cursor=nxt)


async def plan(r: Roster, player_id: str) -> WeeklyPlan:
    from pulvezar.play.progress import TYPE_NAMES

    found = await store_call(r.players.plan, r.owner, player_id, today())
    if found is None:
        raise not_found(player_id)
    for area in found["areas"]:
        names = TYPE_NAMES.get(area["position_type"], {})
        area["name"] = names.get(r.lang) or names.get("en") or area["position_type"]
    return WeeklyPlan.model_validate(found)


async def achievements(r: Roster, player_id: str) -> Achievements:
    from pulvezar.play.statistics import achievements as reached_of

    counters = await store_call(r.players.statistics, r.owner, player_id)
    if counters is None:
        raise not_found(player_id)
    found = reached_of(counters, r.lang)
    return Achievements.model_validate(
        {"achievements": found, "reached": sum(a["reached"] is not None for a in found)}
    )


async def daily_calendar(
    r: Roster, player_id: str, month_: str | None, rules: str, kind: str
) -> DailyCalendar:
    """Every day of a month up to today: solved, missed or not tried."""
    from services.store.daily_attempts import DailyAttempts

    month_ = month_ or month()
    attempts = DailyAttempts(r.players.url)
    found = await store_call(attempts.calendar, r.owner, player_id, month_, rules, kind)
    if found is None:
        raise not_found(player_id)
    year, mon = (int(x) for x in month_.split("-"))
    last = today()
    days = []
    for d in range(1, calendar.monthrange(year, mon)[1] + 1):
        date = dt.date(year, mon, d).isoformat()
        if date > last:
            break
        days.append(DayResult(date=date, state=found.get(date, "not_tried")))
    return DailyCalendar(month=month_, rules=rules, kind=kind, days=days)


# ---- the opening book ------------------------------------------------------------------------------
_BOOKS: dict[str, tuple[float, Book]] = {}


def shipped(variant: str) -> Book:
    """The shipped opening book of ``variant``, read again when its file changes (503 when it is missing
    or damaged)."""
    path: Path = book_path(variant)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        raise ProblemError(503, f"no {variant} opening book is installed", kind="book-unavailable") from None
    cached = _BOOKS.get(variant)
    if cached is None or cached[0] != mtime:
        try:
            cached = (mtime, read_book(path))
        except BookError as e:
            raise ProblemError(
                503, f"the {variant} opening book is damaged: {e}", kind="book-unavailable"
            ) from None
        _BOOKS[variant] = cached
    return cached[1]


async def openings(r: Roster, player_id: str, rules: str, evaluator: Any) -> YourOpenings:
    """The book's "you" row from the player's games against the bots that they opened (not free games); a
    play the book does not hold is valued by a 2-ply search of the roll (its gap at that search)."""
    from pulvezar.book.personal import your_openings as rows_of
    from pulvezar.rules.position import Position
    from pulvezar.rules.rules import Rules

    counters = await store_call(r.players.statistics, r.owner, player_id)
    if counters is None:
        raise not_found(player_id)
    book = shipped(rules)
    book_rules = Rules.tavla() if rules == "tavla" else Rules.international()

    def gap_of(dice: tuple[int, int], position_id: str) -> tuple[float, int] | None:
        """A play's gap at the roll's pruned 2-ply search: one Evaluator ``Hint`` call (ADR 0019)."""
        ranked = evaluator.ranked(Position.from_position_id(book.position_id), dice, 2, book_rules)
        top, top_ply = ranked[0][1], ranked[0][2]
        mine = next((c for c in ranked if c[0] == position_id), None)
        if mine is None:
            return None
        return top - mine[1], min(top_ply, mine[2])

    counts = (counters.get("openings") or {}).get(rules, {})
    rows = await asyncio.to_thread(rows_of, book, counts, gap_of)
    return YourOpenings.model_validate({"rules": rules, "rows": rows})
