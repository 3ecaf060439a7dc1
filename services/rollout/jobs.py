"""Rollout jobs in Redis: submission, progress, results, cancel, extend (:class:`JobStore`).

A job is one position (:meth:`JobStore.submit_rollout`) or many (:meth:`JobStore.submit_batch`);
each position is an *item*, rolled out as a whole, as candidate plays of a roll, or as its cube
decision (``kind: "cube"``: no double and double/take, chunk values ``(2, trials, ...)``).  At submission
every item's trials are cut into chunks on the fixed grid of
:func:`pulvezar.rollouts.chunks.plan_chunks`, and one Celery task per chunk goes to the queue of
the job's priority.  Keys (all expire ``job_ttl_s`` after the last write):

``job:{id}:spec``       JSON: kind, priority, chunk size, the items (normalised parameters)
``job:{id}:chunks``     list, entry ``n`` = JSON ``[item, first_trial, trials]`` of chunk ``n``
``job:{id}:chunk:{n}``  chunk ``n``'s result, written once (``SET NX``) by the worker that ran it
``job:{id}:started``    when a worker first started a chunk
``job:{id}:cancel``     present once the job is cancelled; workers skip and stop its chunks
``job:{id}:error``      why the job failed (a chunk failed after its retries)

There is no chord and no job-level state to keep in step: :meth:`JobStore.status` reads the
chunk keys and merges them, so a chunk that ran twice (a redelivery) is counted once, with the
same numbers either time.
"""

from __future__ import annotations

import base64
import json
import math
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from redis.exceptions import WatchError

from pulvezar import Position, PulvezarError, Rules
from pulvezar.rollouts.chunks import plan_chunks
from pulvezar.rollouts.lockstep import LUCK
from pulvezar.rollouts.stats import RolloutResult, block_se, difference_noise, playable
from pulvezar.rules.notation import parse_play
from pulvezar.rules.xgid import XGID
from services.rollout.settings import QUEUES, RolloutSettings
from services.store.jobs import JobRecords

PRIORITIES = tuple(QUEUES)
_ITEM_KEYS = {
    "position",
    "position_id",
    "xgid",
    "dice",
    "plays",
    "trials",
    "seed",
    "variance_reduction",
    "luck",
    "truncate",
    "rules",
    "ply",
    "cubeful",
    "cube",
    "label",
    "kind",
}
#: what an item rolls out: the position (or candidate plays of a roll), or the cube decision
#: before the roll (no double and double/take with the same dice; :func:`pulvezar.rollouts.rollout_cube`)
ITEM_KINDS = ("position", "cube")
_MAX_SEED = 2**63 - 1
_MAX_TRUNCATE = 10_000
#: the deepest move choice a job may ask for (each ply multiplies a rollout's work many times over)
MAX_JOB_PLY = 2
_CUBE_KEYS = ("value", "owner", "match_length", "score", "opponent_score", "crawford", "jacoby", "beaver")
_MAX_CUBE_VALUE = 2**15


class JobError(Exception):
    """Base of the job store's errors."""


class InvalidJob(JobError, ValueError):
    """Bad job parameters; ``field`` names the parameter (``positions[2].dice``, ``trials``, ...)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class JobNotFound(JobError, KeyError):
    """No job has this id (or it expired)."""

    def __init__(self, job_id: str) -> None:
        super().__init__(job_id)
        self.job_id = job_id

    def __str__(self) -> str:
        return f"no rollout job {self.job_id!r} (unknown or expired)"


class JobStateError(JobError, ValueError):
    """The job's state does not allow this (extending a cancelled job, ...); ``field`` is ``job_id``."""

    field = "job_id"


# ---- keys -----------------------------------------------------------------


def spec_key(job_id: str) -> str:
    return f"job:{job_id}:spec"


def chunks_key(job_id: str) -> str:
    return f"job:{job_id}:chunks"


def chunk_key(job_id: str, n: int) -> str:
    return f"job:{job_id}:chunk:{n}"


def cancel_key(job_id: str) -> str:
    return f"job:{job_id}:cancel"


def started_key(job_id: str) -> str:
    return f"job:{job_id}:started"


def error_key(job_id: str) -> str:
    return f"job:{job_id}:error"


def text(value: bytes | str | None) -> str | None:
    """A Redis reply as text (clients with and without ``decode_responses``)."""
    return value.decode() if isinstance(value, bytes) else value


# ---- parameters -------------------------------------------------------------


def _int(value: Any, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidJob(field, f"an integer is required, got {value!r}")
    if not lo <= value <= hi:
        raise InvalidJob(field, f"must be between {lo} and {hi}, got {value}")
    return value


def _rules(value: Any, field: str) -> tuple[dict[str, Any], Rules]:
    if value is None or value == "international":
        return {"variant": "international"}, Rules.international()
    if value == "tavla":
        value = {"variant": "tavla"}
    if not isinstance(value, Mapping):
        raise InvalidJob(field, f"'international', 'tavla' or an object with 'variant', got {value!r}")
    unknown = set(value) - {"variant", "hit_and_stop", "must_bear_off"}
    if unknown:
        raise InvalidJob(f"{field}.{sorted(unknown)[0]}", "unknown rules option")
    variant = value.get("variant", "international")
    options = {k: value.get(k, False) for k in ("hit_and_stop", "must_bear_off")}
    for k, v in options.items():
        if not isinstance(v, bool):
            raise InvalidJob(f"{field}.{k}", f"true or false, got {v!r}")
    if variant == "international":
        if any(options.values()):
            raise InvalidJob(field, "hit_and_stop and must_bear_off are Tavla options")
        return {"variant": "international"}, Rules.international()
    if variant == "tavla":
        return {"variant": "tavla", **options}, Rules.tavla(**options)
    raise InvalidJob(f"{field}.variant", f"'international' or 'tavla', got {variant!r}")


def rules_of(spec: Mapping[str, Any]) -> Rules:
    """The rules of a normalised item's ``rules`` entry."""
    return _rules(spec, "rules")[1]


def _cube(value: Any, field: str) -> dict[str, Any]:
    """The normalised cube of a cubeful item: the shape of the gateway's ``CubeInput``, seen by the
    player on roll (the player who plays, for candidate plays); none is centred money."""
    from pulvezar.met import MatchEquity

    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise InvalidJob(field, f"an object with {', '.join(_CUBE_KEYS)}, got {value!r}")
    unknown = sorted(set(value) - set(_CUBE_KEYS))
    if unknown:
        raise InvalidJob(f"{field}.{unknown[0]}", f"unknown cube option (known: {', '.join(_CUBE_KEYS)})")
    cube_value = _int(value.get("value", 1), f"{field}.value", 1, _MAX_CUBE_VALUE)
    if cube_value & (cube_value - 1):
        raise InvalidJob(f"{field}.value", f"the cube is a power of two, got {cube_value}")
    owner = value.get("owner", "centre")
    if owner not in ("centre", "player", "opponent"):
        raise InvalidJob(f"{field}.owner", f"'centre', 'player' or 'opponent', got {owner!r}")
    top = MatchEquity.kazaross_xg2().length
    n = _int(value.get("match_length", 0), f"{field}.match_length", 0, top)
    out: dict[str, Any] = {"value": cube_value, "owner": owner, "match_length": n}
    for name in ("score", "opponent_score"):
        out[name] = _int(value.get(name, 0), f"{field}.{name}", 0, max(0, n - 1))
    for name in ("crawford", "jacoby", "beaver"):
        flag = value.get(name, False)
        if not isinstance(flag, bool):
            raise InvalidJob(f"{field}.{name}", f"true or false, got {flag!r}")
        out[name] = flag
    if n:
        for name in ("jacoby", "beaver"):
            if out[name]:
                raise InvalidJob(f"{field}.{name}", f"{name} is a money option (match_length 0)")
    elif out["crawford"]:
        raise InvalidJob(f"{field}.crawford", "a money game (match_length 0) has no Crawford game")
    try:
        cube_of(out)
    except PulvezarError as e:
        sub = {"score": "score", "crawford": "crawford", "cube_owner": "owner"}.get(e.field or "", "value")
        raise InvalidJob(f"{field}.{sub}", str(e)) from None
    return out


def cube_of(spec: Mapping[str, Any] | None) -> Any:
    """The library's :class:`~pulvezar.cubeful.janowski.Cube` of a normalised ``cube`` entry."""
    from pulvezar.cubeful.janowski import Cube

    if spec is None:
        return Cube()
    n = spec["match_length"]
    away = (n - spec["score"], n - spec["opponent_score"]) if n else None
    return Cube(spec["value"], spec["owner"], away, spec["crawford"], spec["jacoby"], spec["beaver"])


def _position(params: Mapping[str, Any], field: str) -> tuple[Position, str, tuple[int, int] | None]:
    """The position, the text it was given as, and the dice of an XGID that has them."""
    given = [k for k in ("position", "position_id", "xgid") if params.get(k) is not None]
    if len(given) != 1:
        raise InvalidJob(f"{field}position", "give exactly one of position, position_id or xgid")
    key = given[0]
    value = params[key]
    if not isinstance(value, str) or not value.strip():
        raise InvalidJob(f"{field}{key}", f"a Position ID or XGID string is required, got {value!r}")
    value = value.strip()
    is_xgid = key == "xgid" or (key == "position" and (value.startswith("XGID=") or ":" in value))
    try:
        if is_xgid:
            x = XGID.parse(value)
            dice = (int(x.dice[0]), int(x.dice[1])) if x.dice.isdigit() and len(x.dice) == 2 else None
            return x.position, value, dice
        return Position.from_position_id(value), value, None
    except PulvezarError as e:
        raise InvalidJob(f"{field}{key}", str(e)) from None


def _dice(value: Any, field: str) -> tuple[int, int]:
    if isinstance(value, str) and len(value) == 2 and value.isdigit():
        value = [int(value[0]), int(value[1])]
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)
    ):
        raise InvalidJob(field, f'two dice 1..6 (e.g. [3, 1] or "31"), got {value!r}')
    return int(value[0]), int(value[1])


def normalise_item(params: Mapping[str, Any], settings: RolloutSettings, field: str = "") -> dict[str, Any]:
    """Validate one position's parameters; returns the item as the spec stores it.

    ``field`` prefixes the names in errors (``positions[3].``).
    """
    if not isinstance(params, Mapping):
        raise InvalidJob(field.rstrip(".") or "params", f"an object is required, got {type(params).__name__}")
    unknown = sorted(set(params) - _ITEM_KEYS)
    if unknown:
        raise InvalidJob(
            f"{field}{unknown[0]}", f"unknown parameter (known: {', '.join(sorted(_ITEM_KEYS))})"
        )
    kind = params.get("kind", "position")
    if kind not in ITEM_KINDS:
        raise InvalidJob(f"{field}kind", f"one of {', '.join(ITEM_KINDS)}, got {kind!r}")
    position, given, xgid_dice = _position(params, field)
    rules_spec, rules = _rules(params.get("rules"), f"{field}rules")
    if "trials" not in params:
        raise InvalidJob(f"{field}trials", "the number of trials is required")
    trials = _int(params["trials"], f"{field}trials", 1, settings.max_trials)
    seed = _int(params.get("seed", 1), f"{field}seed", 0, _MAX_SEED)
    vr = params.get("variance_reduction", True)
    if not isinstance(vr, bool):
        raise InvalidJob(f"{field}variance_reduction", f"true or false, got {vr!r}")
    luck = params.get("luck", "screened")
    if luck not in LUCK:
        raise InvalidJob(f"{field}luck", f"one of {', '.join(LUCK)}, got {luck!r}")
    truncate = params.get("truncate")
    if truncate is not None:
        truncate = _int(truncate, f"{field}truncate", 0, _MAX_TRUNCATE)
    dice = _dice(params["dice"], f"{field}dice") if params.get("dice") is not None else xgid_dice
    ply = _int(params.get("ply", 0), f"{field}ply", 0, MAX_JOB_PLY)
    cubeful = params.get("cubeful", False)
    if not isinstance(cubeful, bool):
        raise InvalidJob(f"{field}cubeful", f"true or false, got {cubeful!r}")
    label = params.get("label")
    if label is not None and (not isinstance(label, str) or len(label) > 200):
        raise InvalidJob(f"{field}label", "a label is a string of at most 200 characters")
    if kind == "cube":
        base = {"position": given, "position_id": position.position_id, "trials": trials, "seed": seed}
        base.update(
            {"variance_reduction": vr, "luck": luck, "truncate": truncate, "rules": rules_spec, "ply": ply}
        )
        return _cube_item(params, field, base, xgid_dice, rules, label)
    cube = None
    if cubeful:
        if not rules.uses_cube:
            reason = "Tavla is played without a cube: cubeful needs international rules"
            raise InvalidJob(f"{field}cubeful", reason)
        cube = _cube(params.get("cube"), f"{field}cube")
    elif params.get("cube") is not None:
        raise InvalidJob(f"{field}cube", "a cube is for cubeful rollouts (cubeful: true)")
    item: dict[str, Any] = {
        "position": given,
        "position_id": position.position_id,
        "dice": None,
        "plays": None,
        "trials": trials,
        "seed": seed,
        "variance_reduction": vr,
        "luck": luck,
        "truncate": truncate,
        "rules": rules_spec,
        "ply": ply,
        "cubeful": cubeful,
        "cube": cube,
    }
    if label is not None:
        item["label"] = label
    plays = params.get("plays")
    if plays is not None and dice is None:
        raise InvalidJob(f"{field}plays", "candidate plays need dice")
    if dice is not None:
        try:
            legal = rules.legal_plays(position, dice)
        except PulvezarError as e:
            raise InvalidJob(f"{field}dice", str(e)) from None
        if plays is None:
            chosen = list(legal)
        else:
            if not isinstance(plays, list | tuple) or not plays:
                raise InvalidJob(f"{field}plays", 'a non-empty list of plays in notation (e.g. "8/5 6/5")')
            chosen = []
            for i, p in enumerate(plays):
                if not isinstance(p, str):
                    raise InvalidJob(f"{field}plays[{i}]", f"a play in notation, got {p!r}")
                try:
                    chosen.append(parse_play(p, position, dice, rules))
                except PulvezarError as e:
                    raise InvalidJob(f"{field}plays[{i}]", str(e)) from None
        if not chosen:
            raise InvalidJob(f"{field}dice", "no legal play")
        ids = [p.position.position_id for p in chosen]
        if len(set(ids)) != len(ids):
            raise InvalidJob(f"{field}plays", "two candidates are the same play")
        item["dice"] = list(dice)
        item["plays"] = [{"play": p.notation, "position_id": pid} for p, pid in zip(chosen, ids, strict=True)]
    return item


def _cube_item(
    params: Mapping[str, Any],
    field: str,
    base: dict[str, Any],
    xgid_dice: tuple[int, int] | None,
    rules: Rules,
    label: str | None,
) -> dict[str, Any]:
    """The normalised item of a cube-decision rollout (``kind: "cube"``): always cubeful, no dice."""
    for key in ("dice", "plays"):
        if params.get(key) is not None:
            raise InvalidJob(f"{field}{key}", "a cube decision is taken before the roll: no dice or plays")
    if xgid_dice is not None:
        key = "xgid" if params.get("xgid") is not None else "position"
        raise InvalidJob(
            f"{field}{key}", "the XGID has rolled dice: a cube decision is taken before the roll"
        )
    if not rules.uses_cube:
        raise InvalidJob(
            f"{field}rules", "Tavla is played without a cube: cube rollouts need international rules"
        )
    cube = _cube(params.get("cube"), f"{field}cube")
    item: dict[str, Any] = {
        "kind": "cube",
        **base,
        "dice": None,
        "plays": None,
        "cubeful": True,
        "cube": cube,
    }
    try:
        cube_state_of(item)
    except PulvezarError as e:
        raise InvalidJob(f"{field}cube", str(e)) from None
    if label is not None:
        item["label"] = label
    return item


def cube_state_of(item: Mapping[str, Any]) -> Any:
    """The library's :class:`~pulvezar.cube.decision.CubeState` of a normalised cube item."""
    from pulvezar.cube.decision import CubeState

    c = item["cube"]
    return CubeState(
        Position.from_position_id(item["position_id"]),
        cube_value=c["value"],
        cube_owner=c["owner"],
        match_length=c["match_length"],
        score=(c["score"], c["opponent_score"]),
        crawford=c["crawford"],
        jacoby=c["jacoby"],
        beaver=c["beaver"],
        rules=rules_of(item["rules"]),
    )


# ---- chunk results ------------------------------------------------------------


def encode_values(values: np.ndarray[Any, Any]) -> dict[str, Any]:
    """Float64 values as JSON without loss: shape and little-endian bytes in base64."""
    a = np.ascontiguousarray(values, dtype="<f8")
    return {"shape": list(a.shape), "values": base64.b64encode(a.tobytes()).decode()}


def decode_values(record: Mapping[str, Any]) -> np.ndarray[Any, Any]:
    raw = base64.b64decode(record["values"])
    return np.frombuffer(raw, dtype="<f8").astype(np.float64).reshape(record["shape"])


@dataclass(frozen=True)
class Chunk:
    """Chunk ``n`` of a job: trials ``first .. first + trials - 1`` of item ``item``."""

    n: int
    item: int
    first: int
    trials: int


def chunk_results(item: Mapping[str, Any], records: Iterable[Mapping[str, Any]]) -> list[RolloutResult]:
    """The merged results of an item's finished chunks: one, or one per candidate play."""
    rules = rules_of(item["rules"])
    records = list(records)
    ncand = len(item["plays"]) if item["plays"] is not None else 1
    if item.get("kind") == "cube" and records:  # no double (and double/take where one may double)
        ncand = int(records[0]["shape"][0])
    parts: list[list[RolloutResult]] = [[] for _ in range(ncand)]
    for rec in records:
        values = decode_values(rec).reshape(ncand, rec["trials"], 5)
        cubeful = decode_values(rec["cubeful"]).reshape(ncand, rec["trials"]) if rec.get("cubeful") else None
        ids = np.arange(rec["first"], rec["first"] + rec["trials"], dtype=np.int64)
        for c in range(ncand):
            cf = None if cubeful is None else cubeful[c]
            vr = item["variance_reduction"]
            parts[c].append(RolloutResult(ids, values[c], item["seed"], rules, vr, cf))
    return [RolloutResult.merge(p) for p in parts] if parts[0] else []


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


# ---- the store ------------------------------------------------------------------


class JobStore:
    """Rollout jobs kept in Redis; chunks are run by the Celery workers of :mod:`services.rollout.tasks`.

    ``redis_client`` is a ``redis.Redis`` (with or without ``decode_responses``) on the Redis
    that the workers use; ``app`` the Celery app to send chunk tasks with (default: the one of
    :mod:`services.rollout.celery_app`, configured from ``PULVEZAR_ROLLOUT_*``).
    """

    def __init__(
        self,
        redis_client: Any,
        app: Any = None,
        settings: RolloutSettings | None = None,
        records: JobRecords | None = None,
    ) -> None:
        self.redis = redis_client
        self.settings = settings or RolloutSettings()
        #: the durable store (system of record): a job is written there before its chunks are queued,
        #: and read from there when Redis has lost it (None: Redis only)
        self.records = records
        if app is None:
            from services.rollout.celery_app import app as default_app

            app = default_app
        self.app = app
        self.chunk_size = self.settings.chunk_size

    # ---- submission ----------------------------------------------------
    def submit_rollout(
        self, params: dict[str, Any], priority: str = "interactive", owner: str | None = None
    ) -> str:
        """Queue a rollout of one position; returns the job id.

        ``params``: exactly one of ``position`` (Position ID or XGID), ``position_id``, ``xgid``;
        ``trials`` (required); optional ``seed`` (1), ``variance_reduction`` (true), ``luck``
        (``"screened"`` or ``"full"``: how variance reduction values the 21 rolls), ``truncate``
        (half-moves, none), ``rules`` (``"international"``, ``"tavla"`` or
        ``{"variant": "tavla", "hit_and_stop": bool, "must_bear_off": bool}``), ``dice`` ([3, 1] or
        "31"; an XGID's own dice count when absent) and ``plays`` (notation; with dice and no plays,
        every legal play is a candidate), ``ply`` (0..2: how each trial's plays are chosen, 0) and
        ``cubeful`` (false; true plays the cube in the trials and reports ``cubeful_equity``, per
        cube normalised to the starting cube, EMG in a match) with ``cube`` (``{"value",
        "owner": centre|player|opponent, "match_length" (0 = money), "score", "opponent_score",
        "crawford", "jacoby", "beaver"}`` as the player on roll sees it; centred money by
        default).  ``kind: "cube"`` rolls out the cube decision of the position before the roll
        instead (no dice or plays; ``cube`` as above; always cubeful): the report gives the action,
        ``nd``, ``dt``, ``dp``, their noise and the costs.  Raises :class:`InvalidJob`.
        """
        item = normalise_item(params, self.settings)
        return self._submit("rollout", [item], priority, owner)

    def submit_batch(
        self,
        positions: list[dict[str, Any]],
        priority: str = "batch",
        defaults: dict[str, Any] | None = None,
        owner: str | None = None,
    ) -> str:
        """Queue rollouts of many positions as one job; results come per position, in order.

        Each entry of ``positions`` takes the parameters of :meth:`submit_rollout`; ``defaults``
        fills the ones an entry leaves out (e.g. ``{"trials": 1296, "truncate": 11}``).
        """
        if not isinstance(positions, list | tuple) or not positions:
            raise InvalidJob("positions", "a non-empty list of positions is required")
        if len(positions) > self.settings.max_positions:
            raise InvalidJob("positions", f"at most {self.settings.max_positions} positions per batch")
        base = dict(defaults or {})
        items = []
        for i, p in enumerate(positions):
            if not isinstance(p, Mapping):
                raise InvalidJob(f"positions[{i}]", f"an object is required, got {type(p).__name__}")
            merged = {**base, **p}
            if any(k in p for k in ("position", "position_id", "xgid")):
                for k in ("position", "position_id", "xgid"):
                    if k not in p:
                        merged.pop(k, None)
            items.append(normalise_item(merged, self.settings, f"positions[{i}]."))
        return self._submit("batch", items, priority, owner)

    def _submit(self, kind: str, items: list[dict[str, Any]], priority: str, owner: str | None = None) -> str:
        if priority not in QUEUES:
            raise InvalidJob("priority", f"one of {', '.join(PRIORITIES)}, got {priority!r}")
        chunks = [
            (i, first, n)
            for i, item in enumerate(items)
            for first, n in plan_chunks(item["trials"], self.chunk_size)
        ]
        if len(chunks) > self.settings.max_chunks:
            raise InvalidJob(
                "trials", f"the job would have {len(chunks)} chunks, at most {self.settings.max_chunks}"
            )
        job_id = secrets.token_hex(12)
        spec = {
            "id": job_id,
            "kind": kind,
            "priority": priority,
            "chunk_size": self.chunk_size,
            "created": time.time(),
            "items": items,
        }
        if self.records is not None:  # accepted once it is in the system of record (StoreUnavailable: 503)
            self.records.create(
                job_id, kind, spec, owner=owner, priority=priority, chunk_list=chunks, created=spec["created"]
            )
        self.restore(job_id, spec, [Chunk(n, *c) for n, c in enumerate(chunks)], {})
        self._enqueue(job_id, priority, range(len(chunks)))
        return job_id

    def restore(
        self, job_id: str, spec: dict[str, Any], chunks: list[Chunk], records: Mapping[int, Mapping[str, Any]]
    ) -> None:
        """Write a job's keys to Redis: its spec, chunk list and the finished chunks' records (a new job,
        or one that Redis lost, from the durable store)."""
        ttl = self.settings.job_ttl_s
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(spec_key(job_id), json.dumps(spec), ex=ttl)
        pipe.delete(chunks_key(job_id))
        pipe.rpush(chunks_key(job_id), *(json.dumps([c.item, c.first, c.trials]) for c in chunks))
        pipe.expire(chunks_key(job_id), ttl)
        for n, record in records.items():
            pipe.set(chunk_key(job_id, n), json.dumps(record), ex=ttl, nx=True)
        pipe.execute()

    def _enqueue(self, job_id: str, priority: str, numbers: Iterable[int]) -> None:
        from services.rollout.celery_app import CHUNK_TASK

        queue = QUEUES[priority]
        for n in numbers:
            self.app.send_task(CHUNK_TASK, args=[job_id, n], queue=queue)

    # ---- reading -------------------------------------------------------
    def spec(self, job_id: str) -> dict[str, Any]:
        raw = text(self.redis.get(spec_key(job_id)))
        if raw is None:
            row = self.records.get(job_id) if self.records is not None else None
            if row is None or row.kind not in ("rollout", "batch"):
                raise JobNotFound(job_id)
            return dict(row.spec)
        spec: dict[str, Any] = json.loads(raw)
        return spec

    def chunks(self, job_id: str) -> list[Chunk]:
        raw = self.redis.lrange(chunks_key(job_id), 0, -1)
        return [Chunk(n, *json.loads(text(r) or "null")) for n, r in enumerate(raw)]

    def _records(self, job_id: str, chunks: list[Chunk]) -> list[dict[str, Any] | None]:
        if not chunks:
            return []
        raw = self.redis.mget([chunk_key(job_id, c.n) for c in chunks])
        return [None if r is None else json.loads(text(r) or "null") for r in raw]

    def _gather(self, job_id: str) -> tuple[dict[str, Any], list[Chunk], list[dict[str, Any] | None]]:
        raw = text(self.redis.get(spec_key(job_id)))
        if raw is None:  # expired or lost in Redis: the durable store's copy
            return self._gather_durable(job_id)
        spec = json.loads(raw)
        chunks = self.chunks(job_id)
        return spec, chunks, self._records(job_id, chunks)

    def _gather_durable(self, job_id: str) -> tuple[dict[str, Any], list[Chunk], list[dict[str, Any] | None]]:
        row = self.records.get(job_id) if self.records is not None else None
        if row is None or row.kind not in ("rollout", "batch") or self.records is None:
            raise JobNotFound(job_id)
        chunks = [Chunk(n, *c) for n, c in enumerate(row.chunk_list or [])]
        stored = self.records.chunks(job_id)
        return dict(row.spec), chunks, [stored.get(c.n) for c in chunks]

    def owner(self, job_id: str) -> str | None:
        """The owner the durable store recorded for a job (None: none recorded, or no store)."""
        if self.records is None:
            return None
        row = self.records.get(job_id)
        return row.owner if row is not None else None

    def rollout_results(self, job_id: str) -> list[list[RolloutResult]]:
        """The library's results of the finished chunks, per item: ``[result]`` or one per candidate."""
        spec, chunks, records = self._gather(job_id)
        return [
            chunk_results(item, [r for c, r in zip(chunks, records, strict=True) if r and c.item == i])
            for i, item in enumerate(spec["items"])
        ]

    def _state(self, job_id: str, done: int, total: int) -> tuple[str, str | None]:
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(error_key(job_id))
        pipe.exists(cancel_key(job_id))
        pipe.exists(started_key(job_id))
        pipe.exists(spec_key(job_id))
        error, cancelled, started, in_redis = pipe.execute()
        if not in_redis and self.records is not None:  # Redis lost or dropped it: the durable state
            row = self.records.get(job_id)
            if row is not None and row.state in ("failed", "cancelled"):
                return row.state, row.error
        if error is not None:
            return "failed", text(error)
        if cancelled:
            return "cancelled", None
        if done == total:
            return "done", None
        return ("running" if started or done else "queued"), None

    def status(self, job_id: str) -> dict[str, Any]:
        """State, progress, ETA and the results so far.

        ``{"job_id", "kind", "priority", "state": queued|running|done|cancelled|failed, "error",
        "trials_done", "trials_total", "chunks_done", "chunks_total", "progress" (0..1),
        "eta_s" (None until a chunk is done, 0 when finished), "elapsed_s", "results": [per
        position: {"position", "position_id", "trials", "equity", "se", "probabilities"} or, with
        dice, {..., "dice", "candidates": [{"play", "position_id", "trials", "equity", "se", ...}]}]}``
        """
        spec, chunks, records = self._gather(job_id)
        return self._report(job_id, spec, chunks, records, full=False)

    def result(self, job_id: str) -> dict[str, Any] | None:
        """The final report (as :meth:`status`, with halves, per-probability errors and, for
        candidate plays, each one's difference to the best with its noise and whether it is
        ``playable``), or None while the job is not done (also when cancelled or failed)."""
        spec, chunks, records = self._gather(job_id)
        if not chunks or any(r is None for r in records):
            return None
        report = self._report(job_id, spec, chunks, records, full=True)
        return report if report["state"] == "done" else None

    def _report(
        self,
        job_id: str,
        spec: dict[str, Any],
        chunks: list[Chunk],
        records: list[dict[str, Any] | None],
        full: bool,
    ) -> dict[str, Any]:
        finished = [(c, r) for c, r in zip(chunks, records, strict=True) if r is not None]
        trials_total = sum(c.trials for c in chunks)
        trials_done = sum(c.trials for c, _ in finished)
        state, error = self._state(job_id, len(finished), len(chunks))
        eta: float | None = None
        elapsed: float | None = None
        if finished:
            starts = [r["started"] for _, r in finished]
            ends = [r["finished"] for _, r in finished]
            busy = sum(r["seconds"] for _, r in finished)
            span = max(ends) - min(starts)
            workers = max(1.0, busy / span) if span > 0 else 1.0
            per_trial = busy / trials_done
            eta = 0.0 if trials_done == trials_total else (trials_total - trials_done) * per_trial / workers
            elapsed = max(ends) - min(starts)
        if state in ("cancelled", "failed"):
            eta = None
        results = []
        for i, item in enumerate(spec["items"]):
            mine = [r for c, r in finished if c.item == i]
            results.append(summarize(item, chunk_results(item, mine), full))
        return {
            "job_id": job_id,
            "kind": spec["kind"],
            "priority": spec["priority"],
            "state": state,
            "error": error,
            "trials_done": trials_done,
            "trials_total": trials_total,
            "chunks_done": len(finished),
            "chunks_total": len(chunks),
            "progress": trials_done / trials_total if trials_total else 0.0,
            "eta_s": None if eta is None else round(eta, 3),
            "elapsed_s": None if elapsed is None else round(elapsed, 3),
            "positions": len(spec["items"]),
            "created": spec["created"],
            "results": results,
        }

    # ---- changing --------------------------------------------------------
    def cancel(self, job_id: str) -> bool:
        """Ask the workers to stop the job: queued chunks are skipped, running ones stop at their
        next evaluator call.  True when the job was cancelled now; False when it had already
        finished, failed or been cancelled.  Raises :class:`JobNotFound`."""
        _spec, chunks, records = self._gather(job_id)
        state, _ = self._state(job_id, sum(r is not None for r in records), len(chunks))
        if state in ("done", "failed", "cancelled"):
            return False
        if self.records is not None:
            self.records.set_state(job_id, "cancelled")
        self.redis.set(cancel_key(job_id), str(time.time()), nx=True, ex=self.settings.job_ttl_s)
        return True

    def delete(self, job_id: str) -> bool:
        """Remove a finished job's stored results (Redis and the durable store); False while it runs."""
        _spec, chunks, records = self._gather(job_id)
        state, _ = self._state(job_id, sum(r is not None for r in records), len(chunks))
        if state not in ("done", "failed", "cancelled"):
            return False
        keys = [spec_key(job_id), chunks_key(job_id), cancel_key(job_id), started_key(job_id)]
        keys += [error_key(job_id), *(chunk_key(job_id, c.n) for c in chunks)]
        self.redis.delete(*keys)
        if self.records is not None:
            self.records.delete(job_id)
        return True

    def rehydrate(self, job_id: str) -> int:
        """Put a job that Redis lost back from the durable store and queue its unfinished chunks again
        (the fixed chunk grid gives them the same bits); how many were queued."""
        row = self.records.get(job_id) if self.records is not None else None
        if row is None or self.records is None:
            raise JobNotFound(job_id)
        chunks = [Chunk(n, *c) for n, c in enumerate(row.chunk_list or [])]
        stored = self.records.chunks(job_id)
        self.restore(job_id, dict(row.spec), chunks, stored)
        ttl = self.settings.job_ttl_s
        if row.state == "cancelled":
            self.redis.set(cancel_key(job_id), str(time.time()), ex=ttl)
            return 0
        if row.state == "failed":
            self.redis.set(error_key(job_id), row.error or "failed", ex=ttl)
            return 0
        todo = [c.n for c in chunks if c.n not in stored]
        self._enqueue(job_id, row.priority or row.spec.get("priority", "batch"), todo)
        return len(todo)

    def sync(self, job_id: str) -> str:
        """Copy a job's finished chunks and end state from Redis to the durable store (what a worker
        could not write there); the job's state."""
        if self.records is None:
            raise JobNotFound(job_id)
        _spec, chunks, records = self._gather(job_id)
        have = self.records.chunk_numbers(job_id)
        missing = {c.n: r for c, r in zip(chunks, records, strict=True) if r is not None and c.n not in have}
        if missing:
            self.records.add_chunks(job_id, missing)
        state, error = self._state(job_id, sum(r is not None for r in records), len(chunks))
        if state in ("done", "failed", "cancelled"):
            self.records.set_state(job_id, state, error)
        return state

    def extend(self, job_id: str, more_trials: int) -> None:
        """Add ``more_trials`` trials to every position of the job, continuing its trial numbers
        (trial ``T`` onwards after ``T`` trials), and queue their chunks.  A finished job becomes
        running again; a cancelled or failed one cannot be extended (:class:`JobStateError`)."""
        more = _int(more_trials, "more_trials", 1, self.settings.max_trials)
        if self.records is not None and not self.redis.exists(spec_key(job_id)):
            self.rehydrate(job_id)  # Redis lost it: back first, so that the new chunks follow the old
        spec = self.spec(job_id)
        if self.redis.exists(cancel_key(job_id)) or self.redis.exists(error_key(job_id)):
            raise JobStateError(f"job {job_id} was cancelled or failed; it cannot be extended")
        key = chunks_key(job_id)
        with self.redis.pipeline(transaction=True) as pipe:
            while True:  # optimistic: retry if another extend changed the chunk list meanwhile
                try:
                    pipe.watch(key)
                    existing = [
                        Chunk(n, *json.loads(text(r) or "null"))
                        for n, r in enumerate(pipe.lrange(key, 0, -1))
                    ]
                    ends = [0] * len(spec["items"])
                    for c in existing:
                        ends[c.item] = max(ends[c.item], c.first + c.trials)
                    if max(e for e in ends) + more > self.settings.max_trials:
                        raise InvalidJob(
                            "more_trials", f"a position has at most {self.settings.max_trials} trials"
                        )
                    new = [
                        (i, first, n)
                        for i in range(len(spec["items"]))
                        for first, n in plan_chunks(more, spec["chunk_size"], ends[i])
                    ]
                    if len(existing) + len(new) > self.settings.max_chunks:
                        raise InvalidJob(
                            "more_trials", f"the job would have more than {self.settings.max_chunks} chunks"
                        )
                    pipe.multi()
                    pipe.rpush(key, *(json.dumps(list(c)) for c in new))
                    pipe.expire(key, self.settings.job_ttl_s)
                    pipe.expire(spec_key(job_id), self.settings.job_ttl_s)
                    pipe.execute()
                    break
                except WatchError:
                    continue
        if self.records is not None:  # the longer chunk list is accepted once it is stored
            self.records.reopen(
                job_id, [[c.item, c.first, c.trials] for c in existing] + [list(c) for c in new]
            )
        self._enqueue(job_id, spec["priority"], range(len(existing), len(existing) + len(new)))
