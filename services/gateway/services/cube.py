"""Cube decisions and resignations through the Evaluator service (``CubeDecision``, ``Resignation``), at most
:data:`~services.gateway.cube_models.MAX_CUBE_PLY` plies and the gateway's hint depth."""

from __future__ import annotations

from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.gateway.cube_models import (
    MAX_CUBE_PLY,
    CubeDecisionRequest,
    CubeDecisionResponse,
    CubeEquities,
    GammonPrices,
    ResignationDecision,
    ResignationRequest,
    ResignationResponse,
)
from services.gateway.models import STRENGTHS, position_ref, probabilities_out, renamed, served_engine
from services.gateway.problems import ProblemError, invalid
from services.gateway.upstream import Upstream

_RESIGNATIONS = {
    "single": pb.OUTCOME_SINGLE,
    "gammon": pb.OUTCOME_GAMMON,
    "backgammon": pb.OUTCOME_BACKGAMMON,
}
_NAMES = {v: k for k, v in _RESIGNATIONS.items()}


def _cap(max_ply: int, ply: int | None, level: str | None) -> None:
    top = min(MAX_CUBE_PLY, max_ply)
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


async def decide(body: CubeDecisionRequest, up: Upstream, max_ply: int) -> CubeDecisionResponse:
    """No double, double-take or double-pass, with the equities, costs and take point."""
    _cap(max_ply, body.ply, body.level)
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
        taker_response=r.taker_response or None,
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


async def resignation(body: ResignationRequest, up: Upstream, max_ply: int) -> ResignationResponse:
    """Whether to accept an offered resignation; at what level the player on roll should resign."""
    _cap(max_ply, body.ply, None)
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
            resignation=_NAMES[d.resignation],
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
        should_resign=_NAMES.get(r.should_resign),
        model=r.model,
        provenance=served_engine(r.model),
    )
