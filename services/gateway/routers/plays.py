"""Legal plays, applying a play (Rules service); evaluation, best play and hints (Evaluator service)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

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
from services.gateway.routers.params import Up
from services.gateway.security import client
from services.gateway.services import plays
from services.gateway.services.deps import evaluator

router = APIRouter(prefix="/v1", tags=["plays"], dependencies=[Depends(client)])


@router.post(
    "/legal-plays", response_model=PlaysResponse, summary="Every legal play of a roll (Rules service)"
)
async def legal_plays(body: PlaysRequest, up: Up) -> PlaysResponse:
    return await plays.legal_plays(body, up)


@router.post(
    "/apply-play", response_model=ApplyResponse, summary="Play a move given in notation (Rules service)"
)
async def apply_play(body: ApplyRequest, up: Up) -> ApplyResponse:
    return await plays.apply_play(body, up)


@router.post(
    "/evaluate",
    response_model=EvaluateResponse,
    summary="0-ply probabilities and cubeless equity (Evaluator service)",
)
async def evaluate(body: EvaluateRequest, request: Request, up: Up) -> EvaluateResponse:
    return await plays.evaluate(body, up, request.app.state.settings.max_positions)


@router.post(
    "/best-play", response_model=BestPlayResponse, summary="The 0-ply best play of a roll (Evaluator service)"
)
async def best_play(body: PlaysRequest, up: Up) -> BestPlayResponse:
    return await plays.best_play(body, up)


@router.post(
    "/hint", response_model=HintResponse, summary="Candidate plays ranked by a ply search (Evaluator service)"
)
async def hint(
    body: HintRequest, request: Request, up: Up, ev: Annotated[Any, Depends(evaluator)]
) -> HintResponse:
    return await plays.hint(body, request.app.state.settings, up, ev)
