"""Match equity (:mod:`pulvezar.met`: the Kazaross-XG2 and Tavla tables) and the nets this pulvezar can load
beside the one the Evaluator service serves (:func:`pulvezar.eval.provenance.list_models`)."""

from __future__ import annotations

import asyncio
import logging
from functools import cache

import pulvezar
from pulvezar.met import MatchEquity
from services.common.pulvezar_proto.v1 import evaluator_pb2 as epb
from services.gateway.met_models import (
    EquityAtScore,
    EquityTable,
    GammonPrices,
    ModelOut,
    ModelsResponse,
    ServedModel,
    Table,
)
from services.gateway.problems import ProblemError, invalid
from services.gateway.upstream import Upstream

logger = logging.getLogger("pulvezar.gateway")


@cache
def table(name: Table) -> MatchEquity:
    return MatchEquity.tavla() if name == "tavla" else MatchEquity.kazaross_xg2()


def at_score(
    length: int, score: int, opponent_score: int, cube: int, crawford: bool | None, table_name: Table
) -> EquityAtScore:
    """Match-winning chance, take point and gammon prices at a score (422 naming what does not fit)."""
    if cube & (cube - 1):
        raise invalid("cube", f"the cube value is a power of two, got {cube}")
    met = table(table_name)
    if length > met.length:
        raise invalid("length", f"the {table_name} table covers matches up to {met.length} points")
    for name, value in (("score", score), ("opponent_score", opponent_score)):
        if length and value >= length:
            raise invalid(name, f"a score lies in 0..{length - 1} in a {length}-point match, got {value}")
    s = met.summary(length, score, opponent_score, cube, crawford=crawford)
    gp = s.gammon_price
    return EquityAtScore(
        table=met.name,
        length=s.length,
        away=(s.away_me, s.away_opp),
        cube_value=s.cube_value,
        crawford=s.crawford,
        post_crawford=s.post_crawford,
        mwc=s.mwc,
        take_point=s.take_point,
        gammon_price=GammonPrices(player=gp.me, opponent=gp.opp) if gp else None,
        notes=list(s.notes),
    )


def equity_table(length: int, table_name: Table) -> EquityTable:
    """The match-equity table up to ``length``-away."""
    met = table(table_name)
    if length > met.length:
        raise invalid("length", f"the {table_name} table covers matches up to {met.length} points")
    n = range(1, length + 1)
    pre = [[met.mwc(a, b) for b in n] for a in n]
    post = [met.mwc(1, b, post_crawford=True) if b > 1 else 0.5 for b in n] if met.has_cube else None
    return EquityTable(table=met.name, length=length, pre_crawford=pre, post_crawford=post)


async def models(up: Upstream) -> ModelsResponse:
    """The nets, the default one and the one the Evaluator service serves (null when it does not answer)."""
    from pulvezar.eval.provenance import list_models

    served: ServedModel | None = None
    try:
        r = await up.call(up.evaluator.ModelInfo, epb.ModelInfoRequest())
        served = ServedModel(name=r.name, sha256=r.model, device=r.device, variants=list(r.variants))
    except ProblemError as e:  # the list stands without the service
        logger.warning("GET /v1/models: the evaluator's ModelInfo failed: %s", e)
    listed = await asyncio.to_thread(list_models)
    out = [ModelOut(**m.to_json(), served=served is not None and m.sha256 == served.sha256) for m in listed]
    return ModelsResponse(version=pulvezar.__version__, models=out, served=served)
