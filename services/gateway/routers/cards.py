"""A player's flash cards (``/v1/players/{id}/cards``): decisions to answer again on a spaced schedule.

Cards are made by themselves from the daily puzzles a player did not solve at the first attempt and from
the blunders of its analysed matches (:mod:`services.store.cards`), or added by hand (``POST .../cards``:
a decision of an analysis, or a library position with dice); ``GET .../cards`` is the deck,
``GET .../cards/due`` a study round (the cards due, without their answers), and
``POST .../cards/{card}/answers`` judges an answer and schedules it (:func:`pulvezar.play.cards.schedule`:
solved, back after 1 day, then 6, then intervals growing by 2.5; missed, tomorrow).  Needs the durable store.
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
from services.gateway.models import Dice
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client, client
from services.gateway.services.plays import upstream
from services.gateway.upstream import Upstream

router = APIRouter(prefix="/v1/players", tags=["cards"])
Who = Annotated[Client, Depends(client)]
PlayerId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$")]
CardId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9]+$")]


class Deck(BaseModel):
    count: int = Field(description="the player's cards")
    due_today: int = Field(description="due today or before")
    next_due: str | None = Field(description="the earliest due date (YYYY-MM-DD); null without cards")
    learned: int = Field(description="cards whose interval reached 21 days")


class CardOut(BaseModel):
    id: str = Field(description="the card's id")
    source: str = Field(description="where it comes from, e.g. daily:2026-12-01:international:position")
    due: str = Field(description="YYYY-MM-DD: when it is due")
    interval: int = Field(description="days between the last answer and due")
    reps: int = Field(description="answers in a row solved")
    lapses: int = Field(description="times it was answered wrong")
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
    card: str = Field(description="the card's id")
    correct: bool = Field(description="whether the answer was the best one")
    loss: float = Field(description="equity lost against the answer (0 when correct)")
    loss_exact: bool = Field(
        description="false: a play the card does not list; loss is the largest listed loss, a lower bound"
    )
    next_due: str = Field(description="YYYY-MM-DD: when the card comes back")
    interval: int = Field(description="days until then")
    answer: dict[str, Any] = Field(
        description="the right answer: the play (play, position_id) or the cube action (double, response, "
        "costs)"
    )
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
        "match_id",
        "position_type",
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


class CardIn(BaseModel):
    """A decision of one of your analyses (``analysis``, ``match``, ``game``, ``index`` as its decisions
    name them) or a position of your library with dice (``position``, ``dice``)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"analysis": "5c0f1e2d3c4b5a6978695a4b", "match": 0, "game": 0, "index": 12},
                {"position": "lib-4HPwATDgc-ABMA", "dice": [3, 1]},
            ]
        },
    )

    analysis: str | None = Field(None, min_length=1, max_length=64, description="an analysis job's id")
    match: int = Field(0, ge=0, le=999, description="the match of the job")
    game: int | None = Field(None, ge=0, le=9999, description="the decision's game (as in the analysis)")
    index: int | None = Field(None, ge=0, le=99999, description="the decision's index (as in the analysis)")
    position: str | None = Field(None, min_length=1, max_length=64, description="a library position's id")
    dice: Dice | None = Field(
        None, description="with a library position: the roll to find the play for (default: its dice)"
    )


@router.post(
    "/{player_id}/cards",
    status_code=201,
    response_model=CardOut,
    summary="Add a card by hand: an analysed decision, or a library position with dice",
    responses={200: {"description": "the player has this card already: it is returned"}},
)
async def add_card(
    player_id: PlayerId,
    body: CardIn,
    request: Request,
    who: Who,
    up: Annotated[Upstream, Depends(upstream)],
) -> JSONResponse:
    cards = _cards(request)
    if (body.analysis is None) == (body.position is None):
        raise invalid("analysis", "give an analysis decision (analysis, game, index) or a position with dice")
    if body.analysis is not None:
        source, puzzle = await _analysed(request, who, body)
    else:
        source, puzzle = await _library(request, who, body, up)
    found = await store_call(cards.add, who.owner, player_id, source, puzzle, _today())
    if found is None:
        raise _not_found("player", player_id)
    card, new = found
    return JSONResponse(_out(card).model_dump(), status_code=201 if new else 200)


async def _analysed(request: Request, who: Client, body: CardIn) -> tuple[str, dict[str, Any]]:
    """The card of a decision of the caller's analysis job (404 for another key's job)."""
    from pulvezar.play.progress import card_source, decision_card
    from services.gateway.services.analyses import analyses, check

    if body.game is None or body.index is None:
        raise invalid("game" if body.game is None else "index", "an analysis decision needs game and index")
    store = analyses(request)
    job_id = str(body.analysis)
    await check(who, store, job_id)
    _, ma = await store.match_analysis(job_id, body.match)
    d = next((d for d in ma.decisions if d.game == body.game and d.index == body.index), None)
    if d is None:
        raise invalid("index", f"match {body.match} of the analysis has no decision {body.game}/{body.index}")
    puzzle = decision_card(d, ma.variant)
    if puzzle is None:
        raise invalid("index", "this decision cannot be a card (a forced play, or no cube analysis)")
    return card_source(f"job:{job_id}:{body.match}", d), puzzle


async def _library(request: Request, who: Client, body: CardIn, up: Any) -> tuple[str, dict[str, Any]]:
    """The card of a library position with dice: its candidates valued by the hint search."""
    from services.gateway.hint_models import HintRequest
    from services.gateway.models import RuleSet
    from services.gateway.services.archive import archive, call
    from services.gateway.services.deps import evaluator
    from services.gateway.services.plays import hint

    entry = await call(archive(request, who).get_entry, str(body.position))
    if entry is None or entry.source != "library":
        raise invalid("position", f"no position {body.position!r} in your library")
    dice = body.dice or entry.dice
    if dice is None:
        raise invalid("dice", "the library position has no dice: give the roll to find the play for")
    rules = RuleSet(variant="tavla" if entry.rules.startswith("tavla") else "international")
    ply = min(2, request.app.state.settings.max_hint_ply)
    asked = HintRequest(position=entry.position_id, dice=dice, rules=rules, ply=ply, limit=1000)
    found = await hint(asked, request.app.state.settings, up, evaluator(request))
    if len(found.candidates) < 2:
        raise invalid("dice", "with these dice the position has one play at most: nothing to learn")
    candidates = [
        {"play": c.notation, "position_id": c.position_id, "loss": round(c.loss, 6)} for c in found.candidates
    ]
    best = candidates[0]
    puzzle = {
        "kind": "position", "rules": entry.rules, "position_id": entry.position_id,
        "match_id": entry.match_id, "dice": list(dice), "cube_value": 1,
        "position_type": {"kind": entry.kind, "side": entry.side}, "candidates": candidates,
        "answer": {"play": best["play"], "position_id": best["position_id"]}, "name": entry.name, "ply": ply,
    }  # fmt: skip
    return f"library:{entry.id}:{dice[0]}{dice[1]}", puzzle


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
