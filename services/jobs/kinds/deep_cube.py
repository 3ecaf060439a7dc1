"""The deep analysis of a cube decision (``POST /v1/deep-analyses`` without dice): the part of
:mod:`services.jobs.kinds.deep` that values no double, double/take and double/pass.

As for a checker play, each value is the mean of a search and a rollout: the cube search at the request's
depth (3 ply by default: :data:`pulvezar.cube.decision.MAX_DEEP_CUBE_PLY`, deeper than a request's cube
decision may search) and a cubeful rollout of no double and double/take with the same dice
(:func:`pulvezar.rollouts.rollout_cube`; 6,912 trials in two independent seed halves, cut on the fixed chunk
grid); double/pass is exact.  The decision is taken from the means; the noise bands are half the rollout's
standard errors of DT - ND (the doubler's choice, paired) and of DT (the taker's, against the exact pass); an
action whose cost is inside ``z`` bands
is *playable*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from pulvezar.errors import PulvezarError
from services.jobs.errors import InvalidJob
from services.jobs.rollout_items import CubeSpec, _cube, cube_state_of
from services.jobs.rollout_report import chunk_results, encode_values

_OPTIONS = ("value", "owner", "match_length", "score", "opponent_score", "crawford", "jacoby", "beaver")


class CubeBranch(BaseModel):
    ply_equity: float | None = Field(description="the cube search's value (null until its chunk is done)")
    rollout_equity: float | None = Field(description="the cubeful rollout's value so far")
    rollout_se: float | None = Field(description="its standard error")
    halves: list[float | None] | None = Field(description="the combined value with each seed half alone")
    equity: float | None = Field(description="(search + rollout) / 2, once both are there")


class CubeChoice(BaseModel):
    action: str = Field(description="no double, double (the doubler's); take, pass, beaver (the taker's)")
    cost: float = Field(description="the equity it gives up against the right action (0: right)")
    playable: bool = Field(description="the cost is inside z noise bands")


class DeepCubeOut(BaseModel):
    cube: dict[str, Any] = Field(description="the cube and score, as the player on roll sees them")
    ply: int = Field(description="the cube search's depth")
    no_double: CubeBranch
    double_take: CubeBranch
    double_pass: float = Field(description="exact: the doubler wins the cube (normalised: 1)")
    action: str | None = Field(description="the decision, e.g. 'Double, take' (null until both parts are in)")
    double: bool | None
    response: str | None = Field(description="take, pass or beaver")
    double_noise: float | None = Field(description="standard error of DT - ND, halved (the mean's)")
    take_noise: float | None = Field(description="standard error of DT, halved")
    choices: list[CubeChoice] = Field(description="every action with its cost")
    mwc: dict[str, float | None] | None = Field(description="a match: ND, DT, DP as match-winning chances")


def cube_options(value: Any, position: str) -> CubeSpec:
    """The normalised cube of a request (the rollouts' cube shape): the given one, else an XGID's (a
    Match ID's) own cube and score, else centred money.  Raises :class:`InvalidJob` naming the field."""
    if value is None and ":" in position:
        from pulvezar.formats.position_text import read_position_text, to_position_text
        from pulvezar.rules.xgid import XGID

        x = XGID.parse(to_position_text(read_position_text(position), "xgid"))
        owner = {0: "centre", 1: "player", -1: "opponent"}[x.cube_owner * (1 if x.turn == 1 else -1)]
        me, them = (0, 1) if x.turn == 1 else (1, 0)
        value = {"value": x.cube_value, "owner": owner, "match_length": x.match_length,
                 "score": x.score[me], "opponent_score": x.score[them], "crawford": x.crawford,
                 "jacoby": x.jacoby, "beaver": x.beavers}  # fmt: skip
    return _cube(value, "cube")


def _item(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec as a cube rollout item (what :mod:`services.jobs.rollout_items` reads)."""
    from pulvezar.rules.position import Position
    from services.jobs.kinds.evaluations import _position

    pid: str = _position(spec["position"]).position_id
    Position.from_position_id(pid)
    return {"kind": "cube", "position": spec["position"], "position_id": pid, "rules": spec["rules"],
            "cube": spec["cube"], "plays": None, "dice": None, "seed": spec["seed"],
            "variance_reduction": True, "ply": 0, "cubeful": True}  # fmt: skip


def check(spec: Mapping[str, Any]) -> None:
    """Refuse a cube decision the player on roll cannot take (the cube is the opponent's, Crawford)."""
    try:
        state = cube_state_of(_item(spec))
    except PulvezarError as e:
        raise InvalidJob("cube", str(e)) from None
    if not state.cube.can_double:
        raise InvalidJob("cube", "the player on roll cannot double here (the opponent's cube, or Crawford)")


#: a deep analysis's chunk: ``["ply", i]``, ``["rollout", first, trials]``, ``["cube-ply"]`` or
#: ``["cube-rollout", first, trials]``
DeepChunk = list[str | int]


def compute(spec: Mapping[str, Any], chunk: DeepChunk, evaluator: Any) -> dict[str, Any]:
    from pulvezar.cube.decision import MAX_DEEP_CUBE_PLY, cube_decision
    from pulvezar.rollouts import rollout_cube

    state = cube_state_of(_item(spec))
    if chunk[0] == "cube-ply":
        depth = int(spec["ply"])
        prune = bool(spec.get("prune", False))  # a job stored before pruning existed: unpruned
        d = cube_decision(state, evaluator, ply=depth, max_ply=MAX_DEEP_CUBE_PLY, prune=prune)
        return {"part": "cube-ply", "ply": depth, "nd": d.nd, "dt": d.dt, "dp": d.dp}
    first, trials = int(chunk[1]), int(chunk[2])
    cr = rollout_cube(state, trials=trials, first_trial=first, seed=spec["seed"], evaluator=evaluator)
    branches = [cr.no_double] + ([cr.double_take] if cr.double_take is not None else [])
    values = np.stack([b.values for b in branches])
    cubeful = np.stack([b.cubeful for b in branches if b.cubeful is not None])
    return {"part": "cube-rollout", "first": first, "trials": trials, **encode_values(values),
            "cubeful": encode_values(cubeful)}  # fmt: skip


def _branch(ply: float | None, ro: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"ply_equity": ply, "rollout_equity": None, "rollout_se": None, "halves": None,
                           "equity": None}  # fmt: skip
    if ro is not None:
        out["rollout_equity"], out["rollout_se"] = ro.cubeful_equity, ro.cubeful_noise
        if ply is not None:
            out["equity"] = 0.5 * (ply + ro.cubeful_equity)
            if ro.trials >= 72:  # both seed halves have trials
                out["halves"] = [0.5 * (ply + h.cubeful_equity) if h.trials else None for h in ro.halves]
    return out


def report(spec: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The cube part of the report (``cube``) and the rollout's trials so far."""
    from pulvezar.cube.decision import _decide
    from pulvezar.rollouts.cube import CubeRollout

    item = _item(spec)
    state = cube_state_of(item)
    ply = next((r for r in records if r["part"] == "cube-ply"), None)
    rolled = sorted((r for r in records if r["part"] == "cube-rollout"), key=lambda r: r["first"])
    results = chunk_results(item, rolled) if rolled else []
    cr = CubeRollout.from_results(state, results[0], results[1]) if len(results) == 2 else None
    nd = _branch(None if ply is None else ply["nd"], None if cr is None else cr.no_double)
    dt = _branch(None if ply is None else ply["dt"], None if cr is None else cr.double_take)
    out: dict[str, Any] = {
        "cube": spec["cube"], "ply": int(spec["ply"]), "no_double": nd, "double_take": dt,
        "double_pass": 1.0, "action": None, "double": None, "response": None, "double_noise": None,
        "take_noise": None, "choices": [], "mwc": None,
    }  # fmt: skip
    if cr is not None:
        out["double_noise"], out["take_noise"] = 0.5 * cr.noise, 0.5 * (cr.dt_se or 0.0)
    if nd["equity"] is not None and dt["equity"] is not None and cr is not None:
        label, double, response, costs = _decide(nd["equity"], dt["equity"], 1.0, state.cube.beaver)
        out.update({"action": label, "double": double, "response": response})
        z = float(spec["z"])
        band = {"no double": out["double_noise"], "double": out["double_noise"]}
        out["choices"] = [
            {"action": a, "cost": c, "playable": c <= z * band.get(a, out["take_noise"])}
            for a, c in costs.items()
        ]
        if state.cube.away is not None:
            mwc = cr._mwc
            out["mwc"] = {"nd": mwc(nd["equity"]), "dt": mwc(dt["equity"]), "dp": mwc(1.0)}
    trials = 0 if cr is None else cr.no_double.trials
    return {"cube": out, "trials_done": trials}


__all__ = ["DeepCubeOut", "check", "compute", "cube_options", "report"]
