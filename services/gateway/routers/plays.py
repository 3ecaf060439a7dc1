"""Legal plays, applying a play (Rules service); evaluation, best play and hints (Evaluator service)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from services.gateway.plays_models import (
    ApplyRequest,
    ApplyResponse,
    BestPlayResponse,
    EvaluateRequest,
    EvaluateResponse,
    HintRequest,
    HintResponse,
    PlaysRequest,
    PlaysResponse,
)
from services.gateway.routers.params import Settings, Up, add_post_routes
from services.gateway.security import client
from services.gateway.services import plays
from services.gateway.services.deps import evaluator

router = APIRouter(prefix="/v1", tags=["plays"], dependencies=[Depends(client)])


# the Rules service's answers, and the Evaluator's best play
add_post_routes(router, {"up": Up}, (
    ("/legal-plays", "legal_plays", PlaysRequest, PlaysResponse, plays.legal_plays,
     "Every legal play of a roll (Rules service)"),
    ("/apply-play", "apply_play", ApplyRequest, ApplyResponse, plays.apply_play,
     "Play a move given in notation (Rules service)"),
    ("/best-play", "best_play", PlaysRequest, BestPlayResponse, plays.best_play,
     "The 0-ply best play of a roll (Evaluator service)"),
))  # fmt: skip


@router.post(
    "/evaluate",
    response_model=EvaluateResponse,
    summary="0-ply probabilities and cubeless equity (Evaluator service)",
)
async def evaluate(body: EvaluateRequest, up: Up, settings: Settings) -> EvaluateResponse:
    return await plays.evaluate(body, up, settings.max_positions)


@router.post(
    "/hint", response_model=HintResponse, summary="Candidate plays ranked by a ply search (Evaluator service)"
)
async def hint(
    body: HintRequest, settings: Settings, up: Up, ev: Annotated[Any, Depends(evaluator)]
) -> HintResponse:
    return await plays.hint(body, settings, up, ev)
