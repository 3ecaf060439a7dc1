"""A player's flash cards (:mod:`services.store.cards`): the deck, a study round, a card added by hand (a
decision of an analysis, or a library position with dice valued by the hint search) and an answer judged
and scheduled (:func:`pulvezar.play.cards.schedule`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi.responses import JSONResponse

from pulvezar.errors import PulvezarError
from services.gateway.durable import store_call
from services.gateway.idempotency import replayed
from services.gateway.learner_models import CardAnswer, CardIn, CardOut, CardResult, Deck, DueCards
from services.gateway.models import RuleSet
from services.gateway.plays_models import HintRequest, HintResponse
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import Client
from services.gateway.services.analyses import AnalysisJobs, check

if TYPE_CHECKING:
    from services.store.cards import Cards, StoredCard

#: what a card shows before it is answered (and its candidates)
_SHOWN = (
    "position_id", "xgid", "dice", "rules", "kind", "match_length", "score", "cube_value", "cube_owner",
    "match_id", "position_type", "candidates",
)  # fmt: skip


@dataclass(frozen=True)
class Desk:
    """What a call on a player's cards needs: the cards' records, the caller, the request's language."""

    store: Cards
    who: Client
    lang: str
    requests: Any = None  # where an Idempotency-Key's answers are kept (the games' records)

    @property
    def cards(self) -> Cards:
        return self.store


@dataclass(frozen=True)
class Sources:
    """Where a card added by hand comes from: the caller's analyses, its library (made when asked) and
    the hint search with its depth."""

    analyses: AnalysisJobs
    library: Callable[[], Any]
    hint: Callable[[HintRequest], Awaitable[HintResponse]]
    ply: int


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def not_found(what: str, ident: str) -> ProblemError:
    return ProblemError(
        404, f"no {what} {ident!r}", kind="not-found", errors=[(f"{what}_id", f"unknown {what}")]
    )


def card_out(c: StoredCard) -> CardOut:
    from pulvezar.archive.attempts import hidden

    decision = {k: v for k, v in hidden(c.puzzle).items() if k in _SHOWN}
    return CardOut(
        id=c.id, source=c.source, due=c.due, interval=c.interval, reps=c.reps, lapses=c.lapses,
        decision=decision,
    )  # fmt: skip


async def deck(d: Desk, player_id: str) -> Deck:
    from pulvezar.play.cards import LEARNED_DAYS

    found = await store_call(d.cards.deck, d.who.owner, player_id, today(), LEARNED_DAYS)
    if found is None:
        raise not_found("player", player_id)
    return Deck.model_validate(found)


async def due(d: Desk, player_id: str, limit: int) -> DueCards:
    found = await store_call(d.cards.due, d.who.owner, player_id, today(), limit)
    if found is None:
        raise not_found("player", player_id)
    return DueCards(cards=[card_out(c) for c in found])


async def add(d: Desk, player_id: str, body: CardIn, sources: Sources) -> tuple[CardOut, bool]:
    """The card (and whether it is new: the player may have it already)."""
    cards = d.cards
    if (body.analysis is None) == (body.position is None):
        raise invalid("analysis", "give an analysis decision (analysis, game, index) or a position with dice")
    if body.analysis is not None:
        source, puzzle = await _analysed(d.who, body, sources.analyses)
    else:
        source, puzzle = await _library(body, sources)
    found = await store_call(cards.add, d.who.owner, player_id, source, puzzle, today())
    if found is None:
        raise not_found("player", player_id)
    card, new = found
    return card_out(card), new


async def _analysed(who: Client, body: CardIn, store: AnalysisJobs) -> tuple[str, dict[str, Any]]:
    """The card of a decision of the caller's analysis job (404 for another key's job)."""
    from pulvezar.play.progress import card_source, decision_card

    if body.game is None or body.index is None:
        raise invalid("game" if body.game is None else "index", "an analysis decision needs game and index")
    job_id = str(body.analysis)
    await check(who, store, job_id)
    _, ma = await store.match_analysis(job_id, body.match)
    found = next((x for x in ma.decisions if x.game == body.game and x.index == body.index), None)
    if found is None:
        raise invalid("index", f"match {body.match} of the analysis has no decision {body.game}/{body.index}")
    puzzle = decision_card(found, ma.variant, ma.settings.lang)
    if puzzle is None:
        raise invalid("index", "this decision cannot be a card (a forced play, or no cube analysis)")
    return card_source(f"job:{job_id}:{body.match}", found), puzzle


async def _library(body: CardIn, sources: Sources) -> tuple[str, dict[str, Any]]:
    """The card of a library position with dice: its candidates valued by the hint search."""
    from services.gateway.services.archive import call

    entry = await call(sources.library().get_entry, str(body.position))
    if entry is None or entry.source != "library":
        raise invalid("position", f"no position {body.position!r} in your library")
    dice = body.dice or entry.dice
    if dice is None:
        raise invalid("dice", "the library position has no dice: give the roll to find the play for")
    rules = RuleSet(variant="tavla" if entry.rules.startswith("tavla") else "international")
    asked = HintRequest(position=entry.position_id, dice=dice, rules=rules, ply=sources.ply, limit=1000)
    found = await sources.hint(asked)
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
        "answer": {"play": best["play"], "position_id": best["position_id"]}, "name": entry.name,
        "ply": sources.ply,
    }  # fmt: skip
    return f"library:{entry.id}:{dice[0]}{dice[1]}", puzzle


async def answer(
    d: Desk, player_id: str, card_id: str, body: CardAnswer, key: str | None, fp: str
) -> dict[str, Any] | JSONResponse:
    """Judge an answer and schedule the card; a retried request's stored answer."""
    from pulvezar.archive.attempts import judge

    cards = d.cards
    replay = await replayed(d.requests, d.who, key, fp)
    if replay is not None:
        return replay
    card = await store_call(cards.get, d.who.owner, player_id, card_id)
    if card is None:
        raise not_found("card", card_id)
    try:
        judged = judge(card.puzzle, body.model_dump())
    except PulvezarError as e:
        raise invalid(e.field or "notation", str(e)) from None
    reason = card.puzzle.get("reason") or {}

    def respond(c: Any) -> dict[str, Any]:
        return CardResult(
            card=c.id, correct=judged.correct, loss=round(judged.loss, 6), loss_exact=judged.loss_exact,
            next_due=c.due, interval=c.interval, answer=c.puzzle["answer"],
            reason=reason.get(d.lang, reason.get("en")),
        ).model_dump()  # fmt: skip

    out: dict[str, Any] | None = await store_call(
        cards.answered, d.who.owner, player_id, card_id, judged.correct, today(), respond,
        (key, fp) if key else None,
    )  # fmt: skip
    if out is None:
        raise not_found("card", card_id)
    return out
