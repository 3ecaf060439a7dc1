"""``GET /v1/models``: the nets this pulvezar can load and the one the Evaluator service serves, so that
a result's ``provenance`` (or a stored ``engine``) can be matched to its net."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from services.gateway.met_models import ModelsResponse
from services.gateway.routers.params import Up
from services.gateway.security import client
from services.gateway.services import met

router = APIRouter(prefix="/v1", tags=["models"], dependencies=[Depends(client)])


@router.get(
    "/models",
    response_model=ModelsResponse,
    summary="The nets pulvezar can load, the default one and the one the service serves",
)
async def models(up: Up) -> ModelsResponse:
    return await met.models(up)
