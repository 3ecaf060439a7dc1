"""Legal plays, applying a play (Rules service); evaluation, best play and hints (Evaluator service)."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.gateway.models import (
    STRENGTHS,
    Board,
    CubeInput,
    Dice,
    Engine,
    Evaluation,
    PlayOut,
    PositionInput,
    Probabilities,
    RulesField,
    Strength,
    Strict,
    dice_proto,
    evaluation_out,
    parse_position,
    play_out,
    position_ref,
    probabilities_out,
    renamed,
    served_engine,
)
from services.gateway.problems import ProblemError, invalid
from services.gateway.routers.positions import PositionType, position_type
from services.gateway.security import client
from services.gateway.upstream import Upstream

logger = logging.getLogger("pulvezar.gateway")

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


class HintRequest(PlaysRequest):
    ply: int | None = Field(None, ge=0, description="search depth (the gateway caps it); default: level's")
    level: Strength | None = None
    seed: int = Field(0, ge=0, lt=2**63, description="seeds a level's deterministic noise")
    limit: int = Field(20, ge=1, le=1000, description="how many candidates to return, best first")
    cube: CubeInput | None = Field(
        None, description="the cube and score: a cubeful hint (international only)"
    )
    prune: bool = Field(
        True,
        description="at 1 ply or deeper the search prunes the replies (the screening net keeps each "
        "roll's 4 best; the unpruned best play on over 99% of decisions at ~2.5x the speed); false: "
        "the unpruned search",
    )


class Candidate(BaseModel):
    notation: str
    position_id: str = Field(description="the resulting position, mover's view")
    probabilities: Probabilities
    equity: float = Field(
        description="what candidates are compared by, for the player making the play: "
        "cubeful when a cube was given, else cubeless"
    )
    cubeful_equity: float | None = Field(None, description="normalised cubeful equity (with a cube)")
    loss: float = Field(description="the best candidate's equity minus this one's")
    ply: int


class HintResponse(BaseModel):
    candidates: list[Candidate]
    legal_plays: int
    engine: str = Field(description="where the hint was computed")
    provenance: Engine = Field(description="the engine and net that evaluated (GET /v1/models)")
    position_type: PositionType = Field(description="the position type, as analyses name it")
    why: dict[str, str] | None = Field(
        None, description="why the best play beats the second, in en, de and tr (null with one candidate)"
    )
    reasons: list[dict[str, Any]] | None = Field(None, description="the differences behind why, as codes")


@router.post("/hint", summary="Candidate plays ranked by a ply search (Evaluator service)")
async def hint(
    body: HintRequest, request: Request, up: Annotated[Upstream, Depends(upstream)]
) -> HintResponse:
    settings = request.app.state.settings
    if body.ply is not None and body.ply > settings.max_hint_ply:
        raise invalid("ply", f"at most {settings.max_hint_ply} plies, got {body.ply}")
    if body.level == "master" and body.ply is None and settings.max_hint_ply < 2:
        raise invalid("level", f"this gateway searches at most {settings.max_hint_ply} plies")
    req = epb.HintRequest(
        position=position_ref(body.position),
        dice=dice_proto(body.dice),
        rules=body.rules.proto(),
        cube=body.cube.proto() if body.cube is not None else None,
        ply=body.ply,
        level=STRENGTHS[body.level] if body.level else epb.LEVEL_UNSPECIFIED,
        seed=body.seed,
        limit=body.limit,
        no_prune=not body.prune,
    )
    try:
        resp = await up.call(up.evaluator.Hint, req)
    except ProblemError as e:
        raise renamed(e) from None
    return HintResponse(
        candidates=[
            Candidate(
                notation=c.play.notation,
                position_id=c.play.position_id,
                probabilities=probabilities_out(c.probabilities),
                equity=c.equity,
                cubeful_equity=c.cubeful_equity if c.HasField("cubeful_equity") else None,
                loss=c.loss,
                ply=c.ply,
            )
            for c in resp.candidates
        ],
        legal_plays=resp.legal_plays,
        engine=f"Evaluator service, model {resp.model[:12]}",
        provenance=served_engine(resp.model),
        position_type=position_type(parse_position(body.position).position),
        **(await _why(request, body, resp)),
    )


async def _why(request: Request, body: HintRequest, resp: Any) -> dict[str, Any]:
    """Why the best candidate beats the second (:func:`pulvezar.analysis.explain`, its 0-ply values from
    the Evaluator service); nothing with one candidate, or when the explanation fails (logged)."""
    if len(resp.candidates) < 2:
        return {}
    from pulvezar.analysis.explain import LANGUAGES, explain
    from services.gateway.routers.games import evaluator

    position = parse_position(body.position).position
    best, second = resp.candidates[0].play.notation, resp.candidates[1].play.notation
    try:
        e = await asyncio.to_thread(
            explain, position, tuple(body.dice), best, second, body.rules.library(), evaluator(request)
        )
    except Exception:
        logger.warning("no explanation for the hint", exc_info=True)
        return {}
    return {"why": {lang: e.text(lang) for lang in LANGUAGES}, "reasons": e.as_dicts()}
