"""Cube decisions and resignations (Evaluator service: ``CubeDecision`` and ``Resignation``).

Equities are normalised: money per cube (a single game on the present cube = 1), match as EMG
(losing the present cube's points = -1, winning them = +1), with match-winning chances beside.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.gateway.models import (
    STRENGTHS,
    CubeInput,
    Engine,
    PositionInput,
    Probabilities,
    RulesField,
    Strength,
    Strict,
    position_ref,
    probabilities_out,
    renamed,
    served_engine,
)
from services.gateway.problems import ProblemError, invalid
from services.gateway.security import client
from services.gateway.services.plays import upstream
from services.gateway.upstream import Upstream

router = APIRouter(prefix="/v1", tags=["cube"], dependencies=[Depends(client)])
MAX_CUBE_PLY = 2

Resignation = Literal["single", "gammon", "backgammon"]
_RESIGNATIONS = {
    "single": pb.OUTCOME_SINGLE,
    "gammon": pb.OUTCOME_GAMMON,
    "backgammon": pb.OUTCOME_BACKGAMMON,
}
_NAMES = {v: k for k, v in _RESIGNATIONS.items()}


def _cap(request: Request, ply: int | None, level: str | None) -> None:
    top = min(MAX_CUBE_PLY, request.app.state.settings.max_hint_ply)
    if ply is not None and ply > top:
        raise invalid("ply", f"at most {top} plies, got {ply}")
    if ply is None and level == "master" and top < 2:
        raise invalid("level", f"this gateway searches at most {top} plies")


async def _call(up: Upstream, method: object, req: object) -> object:
    try:
        return await up.call(method, req)  # type: ignore[arg-type]
    except ProblemError as e:
        raise renamed(e) from None


def _opt(msg: object, field: str) -> float | None:
    return getattr(msg, field) if msg.HasField(field) else None  # type: ignore[attr-defined]


class CubeDecisionRequest(Strict):
    position: PositionInput = Field(description="the player on roll, before rolling")
    cube: CubeInput = Field(default_factory=CubeInput, description="money, centred cube by default")
    rules: RulesField
    ply: int | None = Field(None, ge=0, le=MAX_CUBE_PLY, description="default: the level's, else 0")
    level: Strength | None = None
    prune: bool = Field(
        True,
        description="at 1 ply or deeper the lookahead prunes the replies (the screening net keeps each "
        "roll's 4 best); false: the unpruned lookahead",
    )


class CubeEquities(BaseModel):
    no_double: float
    double_take: float | None = Field(description="none when the player cannot double")
    double_pass: float | None
    value: float = Field(description="with the right action")


class GammonPrices(BaseModel):
    player: float
    opponent: float


class CubeDecisionResponse(BaseModel):
    action: str = Field(examples=["No double, take", "Double, pass", "Too good to double, pass"])
    double: bool
    taker_response: Literal["take", "pass", "beaver"] | None = Field(description="none without a double")
    equities: CubeEquities = Field(description="normalised")
    mwc: CubeEquities | None = Field(description="match: the same as match-winning chances")
    costs: dict[str, float] = Field(description="equity each action gives up against the right one")
    can_double: bool
    dead_cube: bool
    take_point: float | None = Field(description="the opponent's take point of this double")
    gammon_price: GammonPrices
    probabilities: Probabilities = Field(description="cubeless, at the ply")
    cubeless_equity: float
    cube_efficiency: float
    ply: int
    notes: list[str]
    model: str
    provenance: Engine = Field(description="the engine and net that evaluated (GET /v1/models)")


@router.post("/cube-decision", summary="No double / double-take / double-pass (Evaluator service)")
async def decide(
    body: CubeDecisionRequest, request: Request, up: Annotated[Upstream, Depends(upstream)]
) -> CubeDecisionResponse:
    _cap(request, body.ply, body.level)
    req = epb.CubeDecisionRequest(
        position=position_ref(body.position),
        cube=body.cube.proto(),
        rules=body.rules.proto(),
        ply=body.ply,
        level=STRENGTHS[body.level] if body.level else epb.LEVEL_UNSPECIFIED,
        no_prune=not body.prune,
    )
    r: epb.CubeDecisionResponse = await _call(up, up.evaluator.CubeDecision, req)  # type: ignore[assignment]
    mwc = None
    if r.HasField("mwc_no_double"):
        mwc = CubeEquities(
            no_double=r.mwc_no_double,
            double_take=_opt(r, "mwc_double_take"),
            double_pass=_opt(r, "mwc_double_pass"),
            value=r.mwc_value,
        )
    return CubeDecisionResponse(
        action=r.action,
        double=r.should_double,
        taker_response=r.taker_response or None,  # type: ignore[arg-type]
        equities=CubeEquities(
            no_double=r.no_double,
            double_take=_opt(r, "double_take"),
            double_pass=_opt(r, "double_pass"),
            value=r.value,
        ),
        mwc=mwc,
        costs=dict(r.costs),
        can_double=r.can_double,
        dead_cube=r.dead_cube,
        take_point=_opt(r, "take_point"),
        gammon_price=GammonPrices(player=r.gammon_price.player, opponent=r.gammon_price.opponent),
        probabilities=probabilities_out(r.probabilities),
        cubeless_equity=r.cubeless_equity,
        cube_efficiency=r.cube_efficiency,
        ply=r.ply,
        notes=list(r.notes),
        model=r.model,
        provenance=served_engine(r.model),
    )


class ResignationRequest(Strict):
    position: PositionInput = Field(description="the player on roll, before rolling")
    cube: CubeInput = Field(default_factory=CubeInput, description="money, centred cube by default")
    rules: RulesField
    resignation: Resignation | None = Field(
        None, description="the resignation offered; none: only whether the player on roll should resign"
    )
    resigner: Literal["player", "opponent"] = Field("player", description="who offers it")
    ply: int = Field(
        0, ge=0, le=MAX_CUBE_PLY, description="depth of the cube decision that values playing on"
    )


class ResignationDecision(BaseModel):
    resignation: Resignation
    resigner: Literal["player", "opponent"]
    accept: bool = Field(description="the answer of the side offered it")
    value: float = Field(description="what accepting gives the acceptor (normalised)")
    play_on: float = Field(description="the acceptor's cubeful equity of playing on (normalised)")
    cost: float = Field(description="what the wrong answer loses")
    mwc_value: float | None = None
    mwc_play_on: float | None = None


class ResignationResponse(BaseModel):
    decision: ResignationDecision | None
    should_resign: Resignation | None = Field(description="the level the player on roll should resign now")
    model: str
    provenance: Engine = Field(description="the engine and net that evaluated (GET /v1/models)")


@router.post("/resignation", summary="Accept a resignation? Should the player resign? (Evaluator service)")
async def resignation(
    body: ResignationRequest, request: Request, up: Annotated[Upstream, Depends(upstream)]
) -> ResignationResponse:
    _cap(request, body.ply, None)
    req = epb.ResignationRequest(
        position=position_ref(body.position),
        cube=body.cube.proto(),
        rules=body.rules.proto(),
        resignation=_RESIGNATIONS[body.resignation] if body.resignation else pb.OUTCOME_UNSPECIFIED,
        resigner=epb.SIDE_OPPONENT if body.resigner == "opponent" else epb.SIDE_PLAYER,
        ply=body.ply,
    )
    r: epb.ResignationResponse = await _call(up, up.evaluator.Resignation, req)  # type: ignore[assignment]
    decision = None
    if r.HasField("decision"):
        d = r.decision
        decision = ResignationDecision(
            resignation=_NAMES[d.resignation],  # type: ignore[arg-type]
            resigner="opponent" if d.resigner == epb.SIDE_OPPONENT else "player",
            accept=d.accept,
            value=d.value,
            play_on=d.play_on,
            cost=d.cost,
            mwc_value=_opt(d, "mwc_value"),
            mwc_play_on=_opt(d, "mwc_play_on"),
        )
    return ResignationResponse(
        decision=decision,
        should_resign=_NAMES.get(r.should_resign),  # type: ignore[arg-type]
        model=r.model,
        provenance=served_engine(r.model),
    )
