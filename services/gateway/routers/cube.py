"""Cube decisions and resignations (Evaluator service: ``CubeDecision`` and ``Resignation``).

Equities are normalised: money per cube (a single game on the present cube = 1), match as EMG
(losing the present cube's points = -1, winning them = +1), with match-winning chances beside.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from services.gateway.cube_models import (
    CubeDecisionRequest,
    CubeDecisionResponse,
    ResignationRequest,
    ResignationResponse,
)
from services.gateway.routers.params import Settings, Up, add_post_routes
from services.gateway.security import client
from services.gateway.services import cube

router = APIRouter(prefix="/v1", tags=["cube"], dependencies=[Depends(client)])


def max_hint_ply(settings: Settings) -> int:
    """The deepest search a request may ask for (``max_hint_ply``)."""
    return settings.max_hint_ply


# the decisions, answered from the request, the upstream services and the deepest search allowed
add_post_routes(router, {"up": Up, "max_ply": Annotated[int, Depends(max_hint_ply)]}, (
    ("/cube-decision", "decide", CubeDecisionRequest, CubeDecisionResponse, cube.decide,
     "No double / double-take / double-pass (Evaluator service)"),
    ("/resignation", "resignation", ResignationRequest, ResignationResponse, cube.resignation,
     "Accept a resignation? Should the player resign? (Evaluator service)"),
))  # fmt: skip
