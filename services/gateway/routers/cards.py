"""A player's flash cards (``/v1/players/{id}/cards``): decisions to answer again on a spaced schedule.

Cards are made by themselves from the daily puzzles a player did not solve at the first attempt
(:mod:`services.store.cards`); ``GET .../cards`` is the deck, ``GET .../cards/due`` a study round (the
cards due, without their answers), ``POST .../cards/{card}/answers`` judges an answer and schedules the card
(:func:`pulvezar.play.cards.schedule`: solved, back after 1 day, then 6, then intervals growing by 2.5;
missed, tomorrow).  Needs the durable store.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from pulvezar.errors import PulvezarError
from services.gateway.durable import database_url, no_store, store_call
from services.gateway.idempotency import IdempotencyKey, fingerprint, replayed
from services.gateway.language import language
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client

router = APIRouter(prefix="/v1/players", tags=["cards"])
Who = Annotated[Client, Depends(client)]
PlayerId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$")]
CardId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$")]


class Deck(BaseModel):
    count: int
    due_today: int = Field(description="due today or before")
    next_due: str | None = Field(description="the earliest due date (YYYY-MM-DD); null without cards")
    learned: int = Field(description="cards whose interval reached 21 days")


class CardOut(BaseModel):
    id: str
    source: str = Field(description="where it comes from, e.g. daily:2026-12-01:international:position")
    due: str
    interval: int = Field(description="days between the last answer and due")
    reps: int = Field(description="answers in a row solved")
    lapses: int
    decision: dict[str, Any] = Field(
        description="position_id, xgid, dice, rules, kind, candidates (no answer)"
    )


class DueCards(BaseModel):
    cards: list[CardOut] = Field(description="earliest due first; when none is due, the ten due earliest")


class CardAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    notation: str | None = Field(None, max_length=64, description="a play, e.g. 8/5 6/5")
    position_id: str | None = Field(None, max_length=32, description="or the position after the play")
    double: bool | None = Field(None, description="a cube card: whether to double")
    response: Literal["take", "pass"] | None = Field(None, description="a cube card: the right answer to it")


class CardResult(BaseModel):
    card: str
    correct: bool
    loss: float
    loss_exact: bool
    next_due: str
    interval: int
    answer: dict[str, Any]
    reason: str | None = Field(description="why, in the request's language")


def _cards(request: Request) -> Any:
    url = database_url(request)
    if not url:
        raise no_store("flash cards")
    from services.store.cards import Cards

    return Cards(url)


def _today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def _not_found(what: str, ident: str) -> ProblemError:
    return ProblemError(
        404, f"no {what} {ident!r}", kind="not-found", errors=[(f"{what}_id", f"unknown {what}")]
    )


def _out(c: Any) -> CardOut:
    from pulvezar.archive.attempts import hidden

    keep = (
        "position_id",
        "xgid",
        "dice",
        "rules",
        "kind",
        "match_length",
        "score",
        "cube_value",
        "cube_owner",
    )
    decision = {k: v for k, v in hidden(c.puzzle).items() if k in (*keep, "candidates")}
    return CardOut(
        id=c.id,
        source=c.source,
        due=c.due,
        interval=c.interval,
        reps=c.reps,
        lapses=c.lapses,
        decision=decision,
    )


@router.get("/{player_id}/cards", summary="A player's deck: cards, due today, next due, learned")
async def deck(player_id: PlayerId, request: Request, who: Who) -> Deck:
    from pulvezar.play.cards import LEARNED_DAYS

    found = await store_call(_cards(request).deck, who.owner, player_id, _today(), LEARNED_DAYS)
    if found is None:
        raise _not_found("player", player_id)
    return Deck.model_validate(found)


@router.get("/{player_id}/cards/due", summary="A study round: the cards due, without their answers")
async def due(
    player_id: PlayerId,
    request: Request,
    who: Who,
    limit: Annotated[int, Query(ge=1, le=100, description="at most this many")] = 20,
) -> DueCards:
    found = await store_call(_cards(request).due, who.owner, player_id, _today(), limit)
    if found is None:
        raise _not_found("player", player_id)
    return DueCards(cards=[_out(c) for c in found])


@router.post(
    "/{player_id}/cards/{card_id}/answers",
    summary="Answer a card: correct or not, the loss, and when it is due again",
    response_model=CardResult,
)
async def answer(
    player_id: PlayerId,
    card_id: CardId,
    body: CardAnswer,
    request: Request,
    who: Who,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    from pulvezar.archive.attempts import judge
    from services.store.games import GameRecords

    cards = _cards(request)
    fp = fingerprint(request, body.model_dump())
    replay = await replayed(GameRecords(cards.url), who, idempotency_key, fp)
    if replay is not None:
        return replay
    card = await store_call(cards.get, who.owner, player_id, card_id)
    if card is None:
        raise _not_found("card", card_id)
    try:
        judged = judge(card.puzzle, body.model_dump())
    except PulvezarError as e:
        raise invalid(e.field or "notation", str(e)) from None
    lang = language(request)
    reason = card.puzzle.get("reason") or {}

    def respond(c: Any) -> dict[str, Any]:
        return CardResult(
            card=c.id, correct=judged.correct, loss=round(judged.loss, 6), loss_exact=judged.loss_exact,
            next_due=c.due, interval=c.interval, answer=c.puzzle["answer"],
            reason=reason.get(lang, reason.get("en")),
        ).model_dump()  # fmt: skip

    out = await store_call(
        cards.answered, who.owner, player_id, card_id, judged.correct, _today(), respond,
        (idempotency_key, fp) if idempotency_key else None,
    )  # fmt: skip
    if out is None:
        raise _not_found("card", card_id)
    return JSONResponse(out)
