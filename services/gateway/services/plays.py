"""Plays and hints through the Evaluator service: the hint's candidates, why the best beats the second, and
the position type."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import Request

from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.common.pulvezar_proto.v1 import rules_pb2 as pb
from services.gateway.models import (
    STRENGTHS,
    Board,
    dice_proto,
    evaluation_out,
    parse_position,
    play_out,
    position_ref,
    probabilities_out,
    renamed,
    served_engine,
)
from services.gateway.plays_models import (
    ApplyRequest,
    ApplyResponse,
    BestPlayResponse,
    Candidate,
    EvaluatedPlay,
    EvaluateRequest,
    EvaluateResponse,
    GameResult,
    HintRequest,
    HintResponse,
    PlaysRequest,
    PlaysResponse,
    PositionType,
)
from services.gateway.problems import ProblemError, invalid
from services.gateway.settings import GatewaySettings
from services.gateway.upstream import Upstream

logger = logging.getLogger("pulvezar.gateway")


def upstream(request: Request) -> Upstream:
    """The app's channels to the Rules and Evaluator services (made with the app)."""
    up: Upstream = request.app.state.upstream
    return up


def position_type(position: Any) -> PositionType:
    """:func:`pulvezar.analysis.classify` of a position (the player on roll's view)."""
    from pulvezar.analysis.classify import classify

    t = classify(position)
    return PositionType(kind=t.kind, side=t.side, plan=t.plan)


async def hint(body: HintRequest, settings: GatewaySettings, up: Upstream, evaluator: Any) -> HintResponse:
    """The candidates of a roll ranked by the Evaluator service's search (at most the gateway's plies),
    with why the best beats the second (0-ply values from ``evaluator``)."""
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
        **(await _why(body, resp, evaluator)),
    )


async def _why(body: HintRequest, resp: Any, evaluator: Any) -> dict[str, Any]:
    """Why the best candidate beats the second (:func:`pulvezar.analysis.explain`, its 0-ply values from
    the Evaluator service); nothing with one candidate, or when the explanation fails (logged)."""
    if len(resp.candidates) < 2:
        return {}
    from pulvezar.analysis.explain import LANGUAGES, explain

    position = parse_position(body.position).position
    best, second = resp.candidates[0].play.notation, resp.candidates[1].play.notation
    try:
        e = await asyncio.to_thread(
            explain, position, (body.dice[0], body.dice[1]), best, second, body.rules.library(), evaluator
        )
    except Exception:
        logger.warning("no explanation for the hint", exc_info=True)
        return {}
    return {"why": {lang: e.text(lang) for lang in LANGUAGES}, "reasons": e.as_dicts()}


# ---- the Rules and Evaluator services' plays ------------------------------------------------------
async def legal_plays(body: PlaysRequest, up: Upstream) -> PlaysResponse:
    """Every legal play of a roll (Rules service)."""
    req = pb.LegalPlaysRequest(
        position=position_ref(body.position), dice=dice_proto(body.dice), rules=body.rules.proto()
    )
    resp = await up.call(up.rules.LegalPlays, req)
    return PlaysResponse(count=len(resp.plays), plays=[play_out(p) for p in resp.plays])


async def apply_play(body: ApplyRequest, up: Upstream) -> ApplyResponse:
    """A play given in notation, made (Rules service)."""
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
            outcome=pb.Outcome.Name(g.outcome).removeprefix("OUTCOME_").lower(),
            points=g.points,
        )
    return ApplyResponse(
        play=play_out(resp.play),
        board=Board(mine=list(resp.board.mine), theirs=list(resp.board.theirs)),
        game_result=result,
    )


async def evaluate(body: EvaluateRequest, up: Upstream, limit: int) -> EvaluateResponse:
    """0-ply probabilities and cubeless equity of at most ``limit`` positions (Evaluator service)."""
    if len(body.positions) > limit:
        raise invalid("positions", f"at most {limit} positions per request, got {len(body.positions)}")
    refs = [position_ref(p, f"positions[{i}]") for i, p in enumerate(body.positions)]
    resp = await up.call(up.evaluator.Evaluate, epb.EvaluateRequest(positions=refs, rules=body.rules.proto()))
    return EvaluateResponse(
        evaluations=[evaluation_out(e) for e in resp.evaluations],
        model=resp.model,
        provenance=served_engine(resp.model),
    )


async def best_play(body: PlaysRequest, up: Upstream) -> BestPlayResponse:
    """The 0-ply best play of a roll (Evaluator service)."""
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
