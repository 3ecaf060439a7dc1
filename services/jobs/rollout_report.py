"""A rollout job's chunk records and reports: values without loss in JSON, the merge of an item's
finished chunks into the library's :class:`~pulvezar.rollouts.stats.RolloutResult`, and the report of
an item (what status and result show).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypedDict

import numpy as np

from pulvezar.rollouts.stats import RolloutResult, block_se, difference_noise, playable
from services.jobs.rollout_items import cube_state_of, rules_of

# ---- chunk results ------------------------------------------------------------


class Encoded(TypedDict):
    """Values in a chunk record (``values``, and a cubeful chunk's ``cubeful``)."""

    shape: list[int]
    values: str


def encode_values(values: np.ndarray[Any, Any]) -> Encoded:
    """Float64 values as JSON without loss: shape and little-endian bytes in base64."""
    a = np.ascontiguousarray(values, dtype="<f8")
    return {"shape": list(a.shape), "values": base64.b64encode(a.tobytes()).decode()}


def decode_values(record: Mapping[str, Any]) -> np.ndarray[Any, Any]:
    raw = base64.b64decode(record["values"])
    return np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(record["shape"])


@dataclass(frozen=True)
class Chunk:
    """Chunk ``n`` of a job: trials ``first .. first + trials - 1`` of item ``item`` and, for an item of
    candidate plays cut by candidates too, candidates ``candidates[0] .. candidates[1] - 1`` (None: all).
    Stored as ``[item, first, trials]`` or ``[item, first, trials, c0, c1]``."""

    n: int
    item: int
    first: int
    trials: int
    candidates: tuple[int, int] | None = None

    @classmethod
    def of(cls, n: int, stored: Iterable[int]) -> Chunk:
        item, first, trials, *cands = stored
        return cls(n, item, first, trials, (cands[0], cands[1]) if cands else None)

    def stored(self) -> list[int]:
        return [self.item, self.first, self.trials, *(self.candidates or ())]


def chunk_results(item: Mapping[str, Any], records: Iterable[Mapping[str, Any]]) -> list[RolloutResult]:
    """The merged results of an item's finished chunks: one, or one per candidate play (none until every
    candidate has a finished chunk: chunks cut by candidates finish one group at a time)."""
    rules = rules_of(item["rules"])
    records = list(records)
    ncand = len(item["plays"]) if item["plays"] is not None else 1
    if item.get("kind") == "cube" and records:  # no double (and double/take where one may double)
        ncand = int(records[0]["shape"][0])
    parts: list[list[RolloutResult]] = [[] for _ in range(ncand)]
    for rec in records:
        c0, c1 = rec.get("candidates") or (0, ncand)
        values = decode_values(rec).reshape(c1 - c0, rec["trials"], 5)
        cf_all = decode_values(rec["cubeful"]).reshape(c1 - c0, rec["trials"]) if rec.get("cubeful") else None
        ids = np.arange(rec["first"], rec["first"] + rec["trials"], dtype=np.int64)
        for k in range(c1 - c0):
            cf = None if cf_all is None else cf_all[k]
            vr = item["variance_reduction"]
            parts[c0 + k].append(RolloutResult(ids, values[k], item["seed"], rules, vr, cf))
    return [RolloutResult.merge(p) for p in parts] if all(parts) else []


def cubeful_difference_noise(a: RolloutResult, b: RolloutResult) -> float:
    """Standard error of ``a.cubeful_equity - b.cubeful_equity`` (paired blocks: the same dice)."""
    if np.array_equal(a.trials_run, b.trials_run):
        assert a.cubeful is not None and b.cubeful is not None
        return block_se(a.trials_run, a.cubeful - b.cubeful)
    return math.hypot(a.cubeful_noise, b.cubeful_noise)


def _num(x: float) -> float | None:
    return None if not math.isfinite(x) else round(float(x), 9)


def _summary(r: RolloutResult) -> dict[str, Any]:
    out = {
        "trials": r.trials,
        "equity": _num(r.equity),
        "se": _num(r.noise),
        "probabilities": [_num(p) for p in r.probabilities],
    }
    if r.cubeful is not None:  # normalised to the starting cube (money) or EMG (match)
        out["cubeful_equity"] = _num(r.cubeful_equity)
        out["cubeful_se"] = _num(r.cubeful_noise)
    return out


def _cubeful_full(r: RolloutResult) -> dict[str, Any]:
    if r.cubeful is None:
        return {}
    return {
        "cubeful_equity_se": _num(r.cubeful_se),
        "cubeful_halves": [_num(h.cubeful_equity) if h.trials else None for h in r.halves],
    }


def _cube_summary(item: Mapping[str, Any], results: list[RolloutResult], full: bool) -> dict[str, Any]:
    """A cube item's report: the decision with ND, DT (normalised to the present cube; match: EMG),
    DP, their noise, the costs of the wrong actions and, in a match, the match-winning chances."""
    from pulvezar.rollouts.cube import CubeRollout

    out: dict[str, Any] = {"position": item["position"], "position_id": item["position_id"], "trials": 0}
    if "label" in item:
        out["label"] = item["label"]
    out.update({"kind": "cube", "ply": item["ply"], "cubeful": True, "cube": item["cube"]})
    if item["ply"] > 0:
        out["prune"] = bool(item.get("prune", False))
    if not results:
        return out
    cr = CubeRollout.from_results(cube_state_of(item), results[0], results[1] if len(results) > 1 else None)
    out.update(
        {
            "trials": cr.no_double.trials,
            "action": cr.action,
            "double": cr.double,
            "response": cr.response,
            "nd": _num(cr.nd),
            "nd_se": _num(cr.nd_se),
            "dt": None if cr.dt is None else _num(cr.dt),
            "dt_se": None if cr.dt_se is None else _num(cr.dt_se),
            "dp": cr.dp,
            "noise": _num(cr.noise),
            "costs": {k: _num(v) for k, v in cr.costs.items()},
            "cubeless": _summary(replace(cr.no_double, cubeful=None)),
        }
    )
    if item["cube"]["match_length"]:
        out["mwc"] = {"nd": cr.mwc_nd, "dt": cr.mwc_dt, "dp": cr.mwc_dp}
    if full:
        out["nd_halves"] = [_num(h.cubeful_equity) if h.trials else None for h in cr.no_double.halves]
        if cr.double_take is not None:
            out["dt_halves"] = [_num(h.cubeful_equity) if h.trials else None for h in cr.double_take.halves]
    return out


def summarize(item: Mapping[str, Any], results: list[RolloutResult], full: bool) -> dict[str, Any]:
    """What status and result report for one item (``full``: halves, probability errors, playable)."""
    if item.get("kind") == "cube":
        return _cube_summary(item, results, full)
    out: dict[str, Any] = {"position": item["position"], "position_id": item["position_id"], "trials": 0}
    if "label" in item:
        out["label"] = item["label"]
    out["ply"] = item.get("ply", 0)
    if out["ply"] > 0:  # a searching item's pruning (stored before pruning existed: unpruned)
        out["prune"] = bool(item.get("prune", False))
    out["cubeful"] = item.get("cubeful", False)
    if out["cubeful"]:
        out["cube"] = item["cube"]
    if item["plays"] is None:
        if results:
            r = results[0]
            out.update(_summary(r))
            if full:
                out["equity_se"] = _num(r.equity_se)
                out["probability_se"] = [_num(p) for p in r.probability_se]
                out["halves"] = [_num(h.equity) if h.trials else None for h in r.halves]
                out.update(_cubeful_full(r))
        return out
    out["dice"] = item["dice"]
    cands = []
    best = int(np.argmax([r.equity for r in results])) if results else -1
    cubeful = bool(results) and results[0].cubeful is not None
    best_cf = int(np.argmax([r.cubeful_equity for r in results])) if cubeful else -1
    ok = playable(results) if full and results else [None] * len(results)
    for c, play in enumerate(item["plays"]):
        entry: dict[str, Any] = {"play": play["play"], "position_id": play["position_id"]}
        if results:
            r = results[c]
            entry.update(_summary(r))
            if full:
                entry["equity_se"] = _num(r.equity_se)
                entry["difference"] = _num(r.equity - results[best].equity)
                entry["difference_se"] = _num(difference_noise(results[best], r)) if c != best else 0.0
                entry["playable"] = ok[c]
                if cubeful:
                    b = results[best_cf]
                    entry.update(_cubeful_full(r))
                    entry["cubeful_difference"] = _num(r.cubeful_equity - b.cubeful_equity)
                    entry["cubeful_difference_se"] = (
                        _num(cubeful_difference_noise(b, r)) if c != best_cf else 0.0
                    )
        cands.append(entry)
    out["trials"] = results[0].trials if results else 0
    out["candidates"] = cands
    return out
