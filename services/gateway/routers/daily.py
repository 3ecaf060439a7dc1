"""``/v1/daily``: the daily position and the daily cube decision, as the workers produced them.

Puzzles are made ahead of time by the rollout workers' scheduled task
(:mod:`services.rollout.daily_tasks`) and read from Redis here, or from the durable store (the system
of record, when configured) when Redis does not have them; a date without its puzzle yet is a 404.
``today`` is the UTC date.  ``rules`` is ``international`` or ``tavla`` (basic rules); the daily cube
decision exists for ``international`` only.  A puzzle made by another net than the served one (the
default net, ``PULVEZAR_MODEL``, as the workers load it) carries the workers' ``recheck`` by the served
net when there is one (:mod:`services.rollout.daily_tasks`), else ``recheck: null``.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse

from pulvezar.archive.similar import check_date
from pulvezar.errors import PulvezarError
from services.common import archive_store
from services.gateway.daily_models import (
    AttemptIn,
    AttemptOut,
    DailyKind,
    DailyPuzzleOut,
    DailyRecheckOut,
    DailyRules,
)
from services.gateway.durable import database_url, no_store, store_call
from services.gateway.idempotency import IdempotencyKey, fingerprint, replayed
from services.gateway.language import language
from services.gateway.problems import Problem, ProblemError, invalid
from services.gateway.security import Client, client
from services.gateway.services.archive import archive_redis, call
from services.jobs.provenance import engine_of

router = APIRouter(prefix="/v1/daily", tags=["daily"], dependencies=[Depends(client)])
Who = Annotated[Client, Depends(client)]
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


async def _raw(request: Request, date: str, rules: str, kind: str) -> dict[str, Any]:
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
    return raw


async def _puzzle(
    request: Request, who: Client, date: str, rules: str, kind: str, player: str | None
) -> JSONResponse:
    raw = await _raw(request, date, rules, kind)
    raw = {**raw, "provenance": await call(_provenance, raw)}
    if player is None:  # anonymous: the whole puzzle, cacheable
        cache = "public, max-age=3600" if date < _today() else "public, max-age=300"
        raw = {**raw, "recheck": await _recheck(request, raw, date, rules, kind)}
        out = DailyPuzzleOut.model_validate(raw).model_dump(exclude={"attempted"})
        return JSONResponse(out, headers={"Cache-Control": cache})
    from pulvezar.archive.attempts import hidden

    tried = await store_call(_attempts(request).first, who.owner, player, (date, rules, kind))
    if tried is None:
        raise invalid("player", f"no player {player!r} of this key")
    if tried:
        raw = {**raw, "recheck": await _recheck(request, raw, date, rules, kind)}
    out = DailyPuzzleOut.model_validate({**(raw if tried else hidden(raw)), "attempted": tried}).model_dump()
    return JSONResponse(out, headers={"Cache-Control": "private, no-store"})


def _attempts(request: Request) -> Any:
    url = database_url(request)
    if not url:
        raise no_store("a player's daily attempts")
    from services.store.daily_attempts import DailyAttempts

    return DailyAttempts(url)


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


def _served_net() -> str | None:
    """The SHA-256 of the served net (the default net's file, ``PULVEZAR_MODEL`` when set), or None."""
    from pulvezar.eval.evaluator import default_model_path
    from pulvezar.eval.provenance import file_sha256

    try:
        return file_sha256(default_model_path())
    except OSError:
        return None


async def _recheck(
    request: Request, raw: dict[str, Any], date: str, rules: str, kind: str
) -> dict[str, Any] | None:
    """The puzzle's recheck by the served net (Redis, else the durable store), or None: also when that net
    made the puzzle or nobody can say which net is served."""
    sha = await call(_served_net)
    if sha is None or raw.get("settings", {}).get("model_sha256") == sha:
        return None
    url = database_url(request)
    try:
        rc = await call(archive_store.get_daily_recheck, archive_redis(request), date, rules, kind, sha)
    except ProblemError:
        if not url:
            return None  # the puzzle is served without it
        rc = None
    if rc is None and url:
        from services.store.archive import DailyRecords

        try:
            rc = await call(DailyRecords(url).get_recheck, date, rules, kind, sha)
        except ProblemError:
            return None  # the puzzle is served without it
    if rc is None:
        return None
    answer = rc["answer"]
    return DailyRecheckOut(
        model=rc.get("model"), model_sha256=sha, answer=str(answer.get("play") or answer.get("action")),
        agrees=bool(rc["agrees"]), checked_at=str(rc["checked_at"]), values=answer,
    ).model_dump()  # fmt: skip


def _provenance(raw: dict[str, Any]) -> dict[str, Any]:
    """The net that made a puzzle: its settings' ``model_sha256`` named by this gateway's model files
    (:func:`pulvezar.eval.provenance.model_name_of`); all null but the version for one without it."""
    sha = (raw.get("settings") or {}).get("model_sha256")
    return engine_of({"model_sha256": sha} if isinstance(sha, str) else None).model_dump()


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


@router.get(
    "/today", summary="Today's (UTC) daily puzzle", response_model=DailyPuzzleOut, responses=NOT_FOUND
)
async def today(
    request: Request,
    who: Who,
    rules: RulesQuery = "international",
    kind: KindQuery = "position",
    player: PlayerQuery = None,
) -> JSONResponse:
    return await _puzzle(request, who, _today(), rules, kind, player)


@router.get(
    "/{date}", summary="The daily puzzle of a date", response_model=DailyPuzzleOut, responses=NOT_FOUND
)
async def by_date(
    date: DatePath,
    request: Request,
    who: Who,
    rules: RulesQuery = "international",
    kind: KindQuery = "position",
    player: PlayerQuery = None,
) -> JSONResponse:
    check_date(date)  # a PulvezarError on "date": 422
    return await _puzzle(request, who, date, rules, kind, player)


@router.post(
    "/{date}/attempts",
    summary="A player's attempt at a daily puzzle: correct or not, the loss, and the answer",
    response_model=AttemptOut,
    responses=NOT_FOUND,
)
async def attempt(
    date: DatePath, body: AttemptIn, request: Request, who: Who, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Only the first attempt of a player at a puzzle counts for the statistics, the streaks and the
    achievements; a request retried with the same ``Idempotency-Key`` is answered as the first was."""
    from pulvezar.archive.attempts import judge

    check_date(date)
    if date > _today():
        raise invalid("date", "a puzzle of a day to come cannot be attempted")
    store = _attempts(request)
    fp = fingerprint(request, body.model_dump())
    from services.store.games import GameRecords

    replay = await replayed(GameRecords(store.url), who, idempotency_key, fp)
    if replay is not None:
        return replay
    raw = await _raw(request, date, body.rules, body.kind)
    try:
        judged = judge(raw, body.model_dump())
    except PulvezarError as e:
        raise invalid(e.field or "notation", str(e)) from None
    lang = language(request)

    def respond(n: int) -> dict[str, Any]:
        return AttemptOut(
            player=body.player, date=date, rules=body.rules, kind=body.kind, attempt=n, first_attempt=n == 1,
            correct=judged.correct, loss=round(judged.loss, 6), loss_exact=judged.loss_exact,
            answer=raw["answer"], reason=raw["reason"].get(lang, raw["reason"]["en"]),
        ).model_dump()  # fmt: skip

    out = await store_call(
        store.attempt, who.owner, body.player, (date, body.rules, body.kind), judged.answer,
        (judged.correct, judged.loss), respond, (idempotency_key, fp) if idempotency_key else None, raw,
    )  # fmt: skip
    if out is None:
        raise invalid("player", f"no player {body.player!r} of this key")
    return JSONResponse(out)
