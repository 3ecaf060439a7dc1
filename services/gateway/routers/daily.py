"""``/v1/daily``: the daily position and the daily cube decision, as the workers produced them.

Puzzles are made ahead of time by the rollout workers' scheduled task
(:mod:`services.rollout.daily_tasks`) and read from the durable store here; a date without its puzzle
yet is a 404.
``today`` is the UTC date.  ``rules`` is ``international`` or ``tavla`` (basic rules); the daily cube
decision exists for ``international`` only.  A puzzle made by another net than the served one (the
default net, ``PULVEZAR_MODEL``, as the workers load it) carries the workers' ``recheck`` by the served
net when there is one (:mod:`services.rollout.daily_tasks`), else ``recheck: null``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from services.gateway.daily_models import AttemptIn, AttemptOut, DailyKind, DailyPuzzleOut, DailyRules
from services.gateway.idempotency import IdempotencyKey, fingerprint
from services.gateway.language import language
from services.gateway.problems import Problem
from services.gateway.routers.params import Who
from services.gateway.security import client
from services.gateway.services import daily
from services.gateway.services.deps import dependencies

router = APIRouter(prefix="/v1/daily", tags=["daily"], dependencies=[Depends(client)])
PlayerQuery = Annotated[
    str | None,
    Query(max_length=32, description="a player: no answer fields until this player has attempted the puzzle"),
]

RulesQuery = Annotated[DailyRules, Query(description="international, or tavla (basic rules)")]
KindQuery = Annotated[DailyKind, Query(description="position (checker play) or cube (international only)")]
DatePath = Annotated[
    str, Path(min_length=1, max_length=20, description="YYYY-MM-DD", examples=["2026-11-29"])
]
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "not produced yet for that date"}
}


def almanac(request: Request, who: Who) -> daily.Almanac:
    """The daily puzzles' stores and the caller."""
    deps = dependencies(request)
    return daily.Almanac(deps.url, deps.daily_attempts, deps.games, who, language(request))


Almanac = Annotated[daily.Almanac, Depends(almanac)]


async def _puzzle(a: daily.Almanac, date: str, rules: str, kind: str, player: str | None) -> JSONResponse:
    out, cache = await daily.puzzle(a, date, rules, kind, player)
    return JSONResponse(out, headers={"Cache-Control": cache})


@router.get(
    "/today", summary="Today's (UTC) daily puzzle", response_model=DailyPuzzleOut, responses=NOT_FOUND
)
async def today(
    a: Almanac,
    rules: RulesQuery = "international",
    kind: KindQuery = "position",
    player: PlayerQuery = None,
) -> JSONResponse:
    return await _puzzle(a, daily.today(), rules, kind, player)


@router.get(
    "/{date}", summary="The daily puzzle of a date", response_model=DailyPuzzleOut, responses=NOT_FOUND
)
async def by_date(
    date: DatePath,
    a: Almanac,
    rules: RulesQuery = "international",
    kind: KindQuery = "position",
    player: PlayerQuery = None,
) -> JSONResponse:
    return await _puzzle(a, date, rules, kind, player)


@router.post(
    "/{date}/attempts",
    summary="A player's attempt at a daily puzzle: correct or not, the loss, and the answer",
    response_model=AttemptOut,
    responses=NOT_FOUND,
)
async def attempt(
    date: DatePath, body: AttemptIn, request: Request, a: Almanac, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Only the first attempt of a player at a puzzle counts for the statistics, the streaks and the
    achievements; a request retried with the same ``Idempotency-Key`` is answered as the first was."""
    out = await daily.attempt(a, date, body, idempotency_key, fingerprint(request, body.model_dump()))
    return out if isinstance(out, JSONResponse) else JSONResponse(out)
