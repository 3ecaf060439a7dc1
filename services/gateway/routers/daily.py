"""``/v1/daily``: the daily position and the daily cube decision, as the workers produced them.

Puzzles are made ahead of time by the rollout workers' scheduled task
(:mod:`services.rollout.daily_tasks`) and read from Redis here, or from the durable store (the system
of record, when configured) when Redis does not have them; a date without its puzzle yet is a 404.
``today`` is the UTC date.  ``rules`` is ``international`` or ``tavla`` (basic rules); the daily cube
decision exists for ``international`` only.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from pulvezar.archive.similar import check_date
from services.common import archive_store
from services.gateway.daily_models import DailyKind, DailyPuzzleOut, DailyRules
from services.gateway.durable import database_url
from services.gateway.problems import Problem, ProblemError, invalid
from services.gateway.routers.similar import archive_redis, call
from services.gateway.security import client

router = APIRouter(prefix="/v1/daily", tags=["daily"], dependencies=[Depends(client)])

RulesQuery = Annotated[DailyRules, Query(description="international, or tavla (basic rules)")]
KindQuery = Annotated[DailyKind, Query(description="position (checker play) or cube (international only)")]
DatePath = Annotated[
    str, Path(min_length=1, max_length=20, description="YYYY-MM-DD", examples=["2026-11-29"])
]
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "not produced yet for that date"}
}


async def _puzzle(request: Request, date: str, rules: str, kind: str) -> JSONResponse:
    if kind == "cube" and rules != "international":
        raise invalid("kind", "the daily cube decision is international (Tavla has no cube)")
    raw = await _stored(request, date, rules, kind)
    if raw is None:
        raise ProblemError(
            404,
            f"no daily {kind} for {date} ({rules}) yet",
            kind="not-found",
            errors=[("date", "not produced yet")],
        )
    cache = "public, max-age=3600" if date < _today() else "public, max-age=300"
    return JSONResponse(DailyPuzzleOut.model_validate(raw).model_dump(), headers={"Cache-Control": cache})


async def _stored(request: Request, date: str, rules: str, kind: str) -> dict[str, Any] | None:
    """The puzzle from Redis, else from the durable store (and copied back to Redis)."""
    url = database_url(request)
    try:
        raw = await call(archive_store.get_daily, archive_redis(request), date, rules, kind)
    except ProblemError:
        if not url:
            raise
        raw = None  # Redis is down: the durable store still serves
    if raw is None and url:
        from services.store.archive import DailyRecords

        raw = await call(DailyRecords(url).get, date, rules, kind)
        if raw is not None:
            try:
                text = json.dumps(raw)
                await call(archive_store.store_daily, archive_redis(request), date, rules, kind, text)
            except ProblemError:
                pass
    return raw


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


@router.get(
    "/today", summary="Today's (UTC) daily puzzle", response_model=DailyPuzzleOut, responses=NOT_FOUND
)
async def today(
    request: Request, rules: RulesQuery = "international", kind: KindQuery = "position"
) -> JSONResponse:
    return await _puzzle(request, _today(), rules, kind)


@router.get(
    "/{date}", summary="The daily puzzle of a date", response_model=DailyPuzzleOut, responses=NOT_FOUND
)
async def by_date(
    date: DatePath, request: Request, rules: RulesQuery = "international", kind: KindQuery = "position"
) -> JSONResponse:
    check_date(date)  # a PulvezarError on "date": 422
    return await _puzzle(request, date, rules, kind)
