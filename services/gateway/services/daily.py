"""The daily position and cube decision (``/v1/daily``): read from the durable store
(:class:`services.store.archive.DailyRecords`), with the served net's recheck; a player's attempts at them
(the first counts; :class:`services.store.daily_attempts.DailyAttempts`)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi.responses import JSONResponse

from pulvezar.archive.similar import check_date
from pulvezar.errors import PulvezarError
from services.gateway.daily_models import AttemptIn, AttemptOut, DailyPuzzleOut, DailyRecheckOut
from services.gateway.durable import store_call
from services.gateway.idempotency import replayed
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client
from services.gateway.services.archive import call
from services.jobs.provenance import engine_of

if TYPE_CHECKING:
    from services.store.archive import DailyRecords
    from services.store.daily_attempts import DailyAttempts


@dataclass(frozen=True)
class Almanac:
    """What a call on the daily puzzles needs: the durable store's URL and the attempts' records, the
    caller and the request's language."""

    url: str
    attempts: DailyAttempts
    requests: Any  # where an Idempotency-Key's answers are kept (the games' records)
    who: Client
    lang: str

    def attempts_store(self) -> DailyAttempts:
        return self.attempts

    def puzzles(self) -> DailyRecords:
        from services.store.archive import DailyRecords

        return DailyRecords(self.url)


def today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


async def raw_puzzle(a: Almanac, date: str, rules: str, kind: str) -> dict[str, Any]:
    """The stored puzzle of a date; 404 when it is not produced yet."""
    if kind == "cube" and rules != "international":
        raise invalid("kind", "the daily cube decision is international (Tavla has no cube)")
    raw = await _stored(a, date, rules, kind)
    if raw is None:
        raise ProblemError(
            404,
            f"no daily {kind} for {date} ({rules}) yet",
            kind="not-found",
            errors=[("date", "not produced yet")],
        )
    return raw


async def puzzle(
    a: Almanac, date: str, rules: str, kind: str, player: str | None
) -> tuple[dict[str, Any], str]:
    """The puzzle as a client sees it and its Cache-Control: whole for anyone (cacheable), without its
    answer fields for a player who has not attempted it yet."""
    check_date(date)  # a PulvezarError on "date": 422
    raw = await raw_puzzle(a, date, rules, kind)
    raw = {**raw, "provenance": await call(_provenance, raw)}
    if player is None:  # anonymous: the whole puzzle, cacheable
        cache = "public, max-age=3600" if date < today() else "public, max-age=300"
        raw = {**raw, "recheck": await _recheck(a, raw, date, rules, kind)}
        return DailyPuzzleOut.model_validate(raw).model_dump(exclude={"attempted"}), cache
    from pulvezar.archive.attempts import hidden

    tried = await store_call(a.attempts_store().first, a.who.owner, player, (date, rules, kind))
    if tried is None:
        raise invalid("player", f"no player {player!r} of this key")
    if tried:
        raw = {**raw, "recheck": await _recheck(a, raw, date, rules, kind)}
    out = DailyPuzzleOut.model_validate({**(raw if tried else hidden(raw)), "attempted": tried}).model_dump()
    return out, "private, no-store"


async def attempt(
    a: Almanac, date: str, body: AttemptIn, key: str | None, fp: str
) -> dict[str, Any] | JSONResponse:
    """A player's attempt, judged (the first counts); a retried request's stored answer."""
    from pulvezar.archive.attempts import judge

    check_date(date)
    if date > today():
        raise invalid("date", "a puzzle of a day to come cannot be attempted")
    store = a.attempts_store()
    replay = await replayed(a.requests, a.who, key, fp)
    if replay is not None:
        return replay
    raw = await raw_puzzle(a, date, body.rules, body.kind)
    try:
        judged = judge(raw, body.model_dump())
    except PulvezarError as e:
        raise invalid(e.field or "notation", str(e)) from None

    def respond(n: int) -> dict[str, Any]:
        return AttemptOut(
            player=body.player, date=date, rules=body.rules, kind=body.kind, attempt=n, first_attempt=n == 1,
            correct=judged.correct, loss=round(judged.loss, 6), loss_exact=judged.loss_exact,
            answer=raw["answer"], reason=raw["reason"].get(a.lang, raw["reason"]["en"]),
        ).model_dump()  # fmt: skip

    out: dict[str, Any] | None = await store_call(
        store.attempt, a.who.owner, body.player, (date, body.rules, body.kind), judged.answer,
        (judged.correct, judged.loss), respond, (key, fp) if key else None, raw,
    )  # fmt: skip
    if out is None:
        raise invalid("player", f"no player {body.player!r} of this key")
    return out


async def _stored(a: Almanac, date: str, rules: str, kind: str) -> dict[str, Any] | None:
    """The stored puzzle, or None."""
    return await call(a.puzzles().get, date, rules, kind)


def _served_net() -> str | None:
    """The SHA-256 of the served net (the default net's file, ``PULVEZAR_MODEL`` when set), or None."""
    from pulvezar.eval.evaluator import default_model_path
    from pulvezar.eval.provenance import file_sha256

    try:
        return file_sha256(default_model_path())
    except OSError:
        return None


async def _recheck(
    a: Almanac, raw: dict[str, Any], date: str, rules: str, kind: str
) -> dict[str, Any] | None:
    """The puzzle's recheck by the served net, or None: also when that net
    made the puzzle or nobody can say which net is served."""
    sha = await call(_served_net)
    if sha is None or raw.get("settings", {}).get("model_sha256") == sha:
        return None
    try:
        rc = await call(a.puzzles().get_recheck, date, rules, kind, sha)
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
