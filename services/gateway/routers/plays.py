"""Legal plays, applying a play (Rules service); evaluation, best play and hints (Evaluator service)."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.gateway.hint_models import HintRequest, HintResponse, PlaysRequest
from services.gateway.models import (
    Board,
    Engine,
    Evaluation,
    PlayOut,
    PositionInput,
    RulesField,
    Strict,
    dice_proto,
    evaluation_out,
    play_out,
    position_ref,
    served_engine,
)
from services.gateway.problems import invalid
from services.gateway.security import client
from services.gateway.services import plays
from services.gateway.services.deps import evaluator
from services.gateway.services.plays import upstream
from services.gateway.upstream import Upstream

logger = logging.getLogger("pulvezar.gateway")

router = APIRouter(prefix="/v1", tags=["plays"], dependencies=[Depends(client)])


class PlaysResponse(BaseModel):
    count: int
    plays: list[PlayOut]


@router.post("/legal-plays", summary="Every legal play of a roll (Rules service)")
async def legal_plays(body: PlaysRequest, up: Annotated[Upstream, Depends(upstream)]) -> PlaysResponse:
    req = pb.LegalPlaysRequest(
        position=position_ref(body.position), dice=dice_proto(body.dice), rules=body.rules.proto()
    )
    resp = await up.call(up.rules.LegalPlays, req)
    return PlaysResponse(count=len(resp.plays), plays=[play_out(p) for p in resp.plays])


class ApplyRequest(PlaysRequest):
    notation: str = Field(min_length=1, max_length=100, examples=["8/5 6/5"])


class GameResult(BaseModel):
    winner: Literal["player", "opponent"]
    outcome: Literal["single", "gammon", "backgammon"]
    points: int


class ApplyResponse(BaseModel):
    play: PlayOut
    board: Board
    game_result: GameResult | None = None


@router.post("/apply-play", summary="Play a move given in notation (Rules service)")
async def apply_play(body: ApplyRequest, up: Annotated[Upstream, Depends(upstream)]) -> ApplyResponse:
    req = pb.ApplyPlayRequest(
        position=position_ref(body.position),
        dice=dice_proto(body.dice),
        rules=body.rules.proto(),
        notation=body.notation,
    )
    resp = await up.call(up.rules.ApplyPlay, req)
    result = None
    if resp.HasField("game_result"):
        g = resp.game_result
        result = GameResult(
            winner="player" if g.winner == pb.WINNER_PLAYER else "opponent",
            outcome=pb.Outcome.Name(g.outcome).removeprefix("OUTCOME_").lower(),  # type: ignore[arg-type]
            points=g.points,
        )
    return ApplyResponse(
        play=play_out(resp.play),
        board=Board(mine=list(resp.board.mine), theirs=list(resp.board.theirs)),
        game_result=result,
    )


class EvaluateRequest(Strict):
    positions: Annotated[list[PositionInput], Field(min_length=1)]
    rules: RulesField


class EvaluateResponse(BaseModel):
    evaluations: list[Evaluation]
    model: str = Field(description="SHA-256 of the model file")
    provenance: Engine = Field(description="the engine and net that evaluated (GET /v1/models)")


@router.post("/evaluate", summary="0-ply probabilities and cubeless equity (Evaluator service)")
async def evaluate(
    body: EvaluateRequest, request: Request, up: Annotated[Upstream, Depends(upstream)]
) -> EvaluateResponse:
    limit = request.app.state.settings.max_positions
    if len(body.positions) > limit:
        raise invalid("positions", f"at most {limit} positions per request, got {len(body.positions)}")
    refs = [position_ref(p, f"positions[{i}]") for i, p in enumerate(body.positions)]
    resp = await up.call(up.evaluator.Evaluate, epb.EvaluateRequest(positions=refs, rules=body.rules.proto()))
    return EvaluateResponse(
        evaluations=[evaluation_out(e) for e in resp.evaluations],
        model=resp.model,
        provenance=served_engine(resp.model),
    )


class EvaluatedPlay(BaseModel):
    play: PlayOut
    evaluation: Evaluation


class BestPlayResponse(BaseModel):
    best: EvaluatedPlay
    legal_plays: int
    model: str
    provenance: Engine = Field(description="the engine and net that evaluated (GET /v1/models)")


@router.post("/best-play", summary="The 0-ply best play of a roll (Evaluator service)")
async def best_play(body: PlaysRequest, up: Annotated[Upstream, Depends(upstream)]) -> BestPlayResponse:
    req = epb.BestPlayRequest(
        position=position_ref(body.position), dice=dice_proto(body.dice), rules=body.rules.proto()
    )
    resp = await up.call(up.evaluator.BestPlay, req)
    return BestPlayResponse(
        best=EvaluatedPlay(play=play_out(resp.best.play), evaluation=evaluation_out(resp.best.evaluation)),
        legal_plays=resp.legal_plays,
        model=resp.model,
        provenance=served_engine(resp.model),
    )


@router.post("/hint", summary="Candidate plays ranked by a ply search (Evaluator service)")
async def hint(
    body: HintRequest,
    request: Request,
    up: Annotated[Upstream, Depends(upstream)],
    ev: Annotated[Any, Depends(evaluator)],
) -> HintResponse:
    return await plays.hint(body, request.app.state.settings, up, ev)
