"""``GET /v1/models``: the nets this pulvezar can load and the one the Evaluator service serves, so that
a result's ``provenance`` (or a stored ``engine``) can be matched to its net."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

import pulvezar
from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.gateway.problems import ProblemError
from services.gateway.security import client

logger = logging.getLogger("pulvezar.gateway")

router = APIRouter(prefix="/v1", tags=["models"], dependencies=[Depends(client)])


class ModelOut(BaseModel):
    """One model file the library can load."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description='the net\'s name, e.g. "pulvezar-v4"')
    sha256: str = Field(description="SHA-256 of its model file")
    encoding_version: int | None = Field(description="the input encoding its nets take")
    nets: list[str] = Field(description="the nets it holds: contact, crashed, race")
    variants: list[str] = Field(description="the rule sets it has nets of its own for")
    default: bool = Field(description="whether the library, the CLI and the workers load it by default")
    served: bool = Field(description="whether the Evaluator service evaluates with it")


class ServedModel(BaseModel):
    """The model the Evaluator service reports it serves."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the name the service reports")
    sha256: str
    device: str = Field(description='where its nets run: "cpu", "cuda:0", ...')
    variants: list[str]


class ModelsResponse(BaseModel):
    """The nets, the default one and the served one."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(description="pulvezar's version")
    models: list[ModelOut]
    served: ServedModel | None = Field(description="the Evaluator service's model; null: it did not answer")


@router.get("/models", summary="The nets pulvezar can load, the default one and the one the service serves")
async def models(request: Request) -> ModelsResponse:
    from pulvezar.eval.provenance import list_models

    up = request.app.state.upstream
    served: ServedModel | None = None
    try:
        r = await up.call(up.evaluator.ModelInfo, epb.ModelInfoRequest())
        served = ServedModel(name=r.name, sha256=r.model, device=r.device, variants=list(r.variants))
    except ProblemError as e:  # the list stands without the service
        logger.warning("GET /v1/models: the evaluator's ModelInfo failed: %s", e)
    listed = await asyncio.to_thread(list_models)
    out = [ModelOut(**m.to_json(), served=served is not None and m.sha256 == served.sha256) for m in listed]
    return ModelsResponse(version=pulvezar.__version__, models=out, served=served)
