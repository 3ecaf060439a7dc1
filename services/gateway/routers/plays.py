"""Legal plays, applying a play (Rules service), evaluation and best play (Evaluator service), hints.

Hints run the library's :func:`pulvezar.search.hint` in this process (threads, bounded) until the
Evaluator service has a Hint RPC; then they move there.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.gateway.models import (
    Board,
    Dice,
    Evaluation,
    PlayOut,
    PositionInput,
    Probabilities,
    RulesField,
    Strict,
    dice_proto,
    evaluation_out,
    parse_position,
    play_out,
    position_ref,
)
from services.gateway.problems import invalid
from services.gateway.security import client
from services.gateway.upstream import Upstream

router = APIRouter(prefix="/v1", tags=["plays"], dependencies=[Depends(client)])


def upstream(request: Request) -> Upstream:
    return request.app.state.upstream  # type: ignore[no-any-return]


class PlaysRequest(Strict):
    position: PositionInput
    dice: Dice
    rules: RulesField


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


@router.post("/evaluate", summary="0-ply probabilities and cubeless equity (Evaluator service)")
async def evaluate(
    body: EvaluateRequest, request: Request, up: Annotated[Upstream, Depends(upstream)]
) -> EvaluateResponse:
    limit = request.app.state.settings.max_positions
    if len(body.positions) > limit:
        raise invalid("positions", f"at most {limit} positions per request, got {len(body.positions)}")
    refs = [position_ref(p, f"positions[{i}]") for i, p in enumerate(body.positions)]
    resp = await up.call(up.evaluator.Evaluate, epb.EvaluateRequest(positions=refs, rules=body.rules.proto()))
    return EvaluateResponse(evaluations=[evaluation_out(e) for e in resp.evaluations], model=resp.model)


class EvaluatedPlay(BaseModel):
    play: PlayOut
    evaluation: Evaluation


class BestPlayResponse(BaseModel):
    best: EvaluatedPlay
    legal_plays: int
    model: str


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
    )


class HintRequest(PlaysRequest):
    ply: int | None = Field(None, ge=0, description="search depth (the gateway caps it); default: level's")
    level: Literal["easy", "medium", "hard", "master"] | None = None
    seed: int = Field(0, ge=0, lt=2**63, description="seeds a level's deterministic noise")
    limit: int = Field(20, ge=1, le=1000, description="how many candidates to return, best first")


class Candidate(BaseModel):
    notation: str
    position_id: str = Field(description="the resulting position, mover's view")
    probabilities: Probabilities
    equity: float = Field(description="cubeless, for the player making the play")
    loss: float = Field(description="the best candidate's equity minus this one's")
    ply: int


class HintResponse(BaseModel):
    candidates: list[Candidate]
    legal_plays: int
    engine: str = Field(description="where the hint was computed")


@router.post("/hint", summary="Candidate plays ranked by a ply search (in-process library for now)")
async def hint(body: HintRequest, request: Request) -> HintResponse:
    settings = request.app.state.settings
    if body.ply is not None and body.ply > settings.max_hint_ply:
        raise invalid("ply", f"at most {settings.max_hint_ply} plies, got {body.ply}")
    if body.level == "master" and body.ply is None and settings.max_hint_ply < 2:
        raise invalid("level", f"this gateway searches at most {settings.max_hint_ply} plies")
    start = parse_position(body.position).position
    rules = body.rules.library()
    if rules.game_result(start) is not None:
        raise invalid("position", "the game is over: no plays")
    from pulvezar.search.hint import hint as search_hint

    semaphore: asyncio.Semaphore = request.app.state.hint_slots
    async with semaphore:
        cands = await asyncio.to_thread(
            search_hint, start, body.dice, ply=body.ply, level=body.level, rules=rules, seed=body.seed
        )
    return HintResponse(
        candidates=[
            Candidate(
                notation=c.notation,
                position_id=c.play.position.position_id,
                probabilities=Probabilities(**dict(zip(Probabilities.model_fields, c.probs, strict=True))),
                equity=c.equity,
                loss=c.loss,
                ply=c.ply,
            )
            for c in cands[: body.limit]
        ],
        legal_plays=len(cands),
        engine="in-process pulvezar.search.hint (moves to the Evaluator service's Hint RPC when it has one)",
    )
