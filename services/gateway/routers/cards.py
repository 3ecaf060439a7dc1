"""A player's flash cards (``/v1/players/{id}/cards``): decisions to answer again on a spaced schedule.

Cards are made by themselves from the daily puzzles a player did not solve at the first attempt and from
the blunders of its analysed matches (:mod:`services.store.cards`), or added by hand (``POST .../cards``:
a decision of an analysis, or a library position with dice); ``GET .../cards`` is the deck,
``GET .../cards/due`` a study round (the cards due, without their answers), and
``POST .../cards/{card}/answers`` judges an answer and schedules it (:func:`pulvezar.play.cards.schedule`:
solved, back after 1 day, then 6, then intervals growing by 2.5; missed, tomorrow).  Needs the durable store.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from services.gateway.idempotency import IdempotencyKey, fingerprint
from services.gateway.language import language
from services.gateway.learner_models import CardAnswer, CardIn, CardOut, CardResult, Deck, DueCards
from services.gateway.routers.params import Who, add_call_route, short_id
from services.gateway.services import cards
from services.gateway.services.analyses import analyses
from services.gateway.services.archive import archive
from services.gateway.services.deps import dependencies, evaluator
from services.gateway.services.plays import hint, upstream

__all__ = ["CardIn", "router"]  # the request body (tests read its examples)

router = APIRouter(prefix="/v1/players", tags=["cards"])
PlayerId = Annotated[str, short_id()]
CardId = Annotated[str, short_id()]


def desk(request: Request, who: Who) -> cards.Desk:
    """A player's cards, with what acting on them needs (a call without the durable store: 501)."""
    deps = dependencies(request)
    return cards.Desk(deps.cards, who, language(request), deps.games)


Desk = Annotated[cards.Desk, Depends(desk)]


add_call_route(
    router, "GET", "/{player_id}/cards", cards.deck, {"d": Desk, "player_id": PlayerId}, name="deck",
    response_model=Deck, summary="A player's deck: cards, due today, next due, learned",
)  # fmt: skip


@router.post(
    "/{player_id}/cards",
    status_code=201,
    response_model=CardOut,
    summary="Add a card by hand: an analysed decision, or a library position with dice",
    responses={200: {"description": "the player has this card already: it is returned"}},
)
async def add_card(player_id: PlayerId, body: CardIn, request: Request, d: Desk) -> JSONResponse:
    settings = request.app.state.settings
    sources = cards.Sources(
        analyses(request),
        lambda: archive(request, d.who),
        lambda asked: hint(asked, settings, upstream(request), evaluator(request)),
        min(2, settings.max_hint_ply),
    )
    card, new = await cards.add(d, player_id, body, sources)
    return JSONResponse(card.model_dump(), status_code=201 if new else 200)


@router.get(
    "/{player_id}/cards/due",
    response_model=DueCards,
    summary="A study round: the cards due, without their answers",
)
async def due(
    player_id: PlayerId,
    d: Desk,
    limit: Annotated[int, Query(ge=1, le=100, description="at most this many")] = 20,
) -> DueCards:
    return await cards.due(d, player_id, limit)


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
    d: Desk,
    idempotency_key: IdempotencyKey = None,
) -> JSONResponse:
    fp = fingerprint(request, body.model_dump())
    out = await cards.answer(d, player_id, card_id, body, idempotency_key, fp)
    return out if isinstance(out, JSONResponse) else JSONResponse(out)
