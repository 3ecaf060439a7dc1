"""Cube decisions and resignations (Evaluator service: ``CubeDecision`` and ``Resignation``).

Equities are normalised: money per cube (a single game on the present cube = 1), match as EMG
(losing the present cube's points = -1, winning them = +1), with match-winning chances beside.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from services.gateway.cube_models import (
    CubeDecisionRequest,
    CubeDecisionResponse,
    ResignationRequest,
    ResignationResponse,
)
from services.gateway.routers.params import Up
from services.gateway.security import client
from services.gateway.services import cube

router = APIRouter(prefix="/v1", tags=["cube"], dependencies=[Depends(client)])


@router.post(
    "/cube-decision",
    response_model=CubeDecisionResponse,
    summary="No double / double-take / double-pass (Evaluator service)",
)
async def decide(body: CubeDecisionRequest, request: Request, up: Up) -> CubeDecisionResponse:
    return await cube.decide(body, up, request.app.state.settings.max_hint_ply)


@router.post(
    "/resignation",
    response_model=ResignationResponse,
    summary="Accept a resignation? Should the player resign? (Evaluator service)",
)
async def resignation(body: ResignationRequest, request: Request, up: Up) -> ResignationResponse:
    return await cube.resignation(body, up, request.app.state.settings.max_hint_ply)
