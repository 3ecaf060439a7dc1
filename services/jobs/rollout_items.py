"""A rollout job's items, checked once: the parameters of one position as the job stores them.

:func:`normalise_item` checks what a client sent (the gateway's request body, a batch entry) and
returns the item in its stored form; :func:`rules_of`, :func:`cube_of` and :func:`cube_state_of` give
the library's objects of a stored item (the worker's side).  Errors are :class:`InvalidJob` naming the
field (``positions[3].dice``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pulvezar import Position, PulvezarError, Rules
from pulvezar.rollouts.lockstep import LUCK
from pulvezar.rules.notation import parse_play
from pulvezar.rules.xgid import XGID
from services.jobs.errors import InvalidJob
from services.jobs.settings import QUEUES, RolloutSettings

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
    "prune",
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


# ---- parameters -------------------------------------------------------------


def integer(value: Any, field: str, lo: int, hi: int) -> int:
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
    cube_value = integer(value.get("value", 1), f"{field}.value", 1, _MAX_CUBE_VALUE)
    if cube_value & (cube_value - 1):
        raise InvalidJob(f"{field}.value", f"the cube is a power of two, got {cube_value}")
    owner = value.get("owner", "centre")
    if owner not in ("centre", "player", "opponent"):
        raise InvalidJob(f"{field}.owner", f"'centre', 'player' or 'opponent', got {owner!r}")
    top = MatchEquity.kazaross_xg2().length
    n = integer(value.get("match_length", 0), f"{field}.match_length", 0, top)
    out: dict[str, Any] = {"value": cube_value, "owner": owner, "match_length": n}
    for name in ("score", "opponent_score"):
        out[name] = integer(value.get(name, 0), f"{field}.{name}", 0, max(0, n - 1))
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
    trials = integer(params["trials"], f"{field}trials", 1, settings.max_trials)
    seed = integer(params.get("seed", 1), f"{field}seed", 0, _MAX_SEED)
    vr = params.get("variance_reduction", True)
    if not isinstance(vr, bool):
        raise InvalidJob(f"{field}variance_reduction", f"true or false, got {vr!r}")
    luck = params.get("luck", "screened")
    if luck not in LUCK:
        raise InvalidJob(f"{field}luck", f"one of {', '.join(LUCK)}, got {luck!r}")
    truncate = params.get("truncate")
    if truncate is not None:
        truncate = integer(truncate, f"{field}truncate", 0, _MAX_TRUNCATE)
    dice = _dice(params["dice"], f"{field}dice") if params.get("dice") is not None else xgid_dice
    ply = integer(params.get("ply", 0), f"{field}ply", 0, MAX_JOB_PLY)
    prune = params.get("prune", True)
    if not isinstance(prune, bool):
        raise InvalidJob(f"{field}prune", f"true or false, got {prune!r}")
    # a searching (ply >= 1) item records its pruning; a 0-ply one never searches and stays as it was
    pruning = {"prune": prune} if ply > 0 else {}
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
        base.update(pruning)
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
        **pruning,
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


#: seconds a half-move of one trial of one candidate takes on one core, by (ply, variance reduction):
#: a whole 0-ply trial with variance reduction 25 ms (bench/scaling.py); measured here without it about 6.5
#: times less, at 1 ply about 150 times more without it and 700 times more with it (each of its half-moves
#: values the 21 rolls at 1 ply); 2 ply about 20 times 1 ply
HALF_MOVE_SECONDS = {
    (0, True): 0.025 / 60,
    (0, False): 0.004 / 60,
    (1, True): 0.3,
    (1, False): 0.015,
    (2, True): 6.0,
    (2, False): 0.3,
}
#: the half-moves of a whole game, for truncated trials' share
GAME_HALF_MOVES = 60


def trial_seconds(item: Mapping[str, Any]) -> float:
    """The estimated seconds of one trial of one candidate (or of the position) of ``item`` on one core,
    from its ply, variance reduction and truncation; a cube decision simulates two lines (no double,
    double/take)."""
    half_moves = max(1, min(int(item.get("truncate") or GAME_HALF_MOVES), GAME_HALF_MOVES))
    lines = 2 if item.get("kind") == "cube" else 1
    ply = min(int(item.get("ply") or 0), 2)
    return HALF_MOVE_SECONDS[ply, bool(item.get("variance_reduction", True))] * half_moves * lines


def item_cost(item: Mapping[str, Any], trials: int | None = None) -> float:
    """The estimated core-seconds of ``trials`` trials (default: the item's) of a checked item: every
    candidate (or the position, or a cube decision's two lines) at :func:`trial_seconds` a trial; what
    admission charges a job (:mod:`services.gateway.security`)."""
    plays = item.get("plays") if item.get("kind") != "cube" else None
    candidates = len(plays) if plays else 1
    n = int(item["trials"] if trials is None else trials)
    return trial_seconds(item) * n * candidates


def chunk_cut(
    item: Mapping[str, Any], trials: int, seconds: float
) -> tuple[int, list[tuple[int, int]] | None]:
    """How a range of ``trials`` trials of ``item`` is cut so that each piece takes about ``seconds`` on
    one core: ``(trials per piece, candidate groups)``, groups None when the candidates stay together.

    Candidates are grouped first (all that fit the whole range); a candidate, or a position, that alone
    does not fit is cut into shorter runs of trials (1 ply: :data:`HALF_MOVE_SECONDS`)."""
    cost = trial_seconds(item)
    plays = item.get("plays") if item.get("kind") != "cube" else None
    candidates = len(plays) if plays else 1
    if cost * trials * candidates <= seconds:
        return trials, None
    if cost * trials <= seconds:  # whole range, several candidates a piece
        group = int(seconds / (cost * trials) + 1e-9)
        return trials, [(c, min(c + group, candidates)) for c in range(0, candidates, group)]
    step = min(trials, max(1, int(seconds / cost + 1e-9)))
    return step, ([(c, c + 1) for c in range(candidates)] if plays else None)


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


@dataclass(frozen=True)
class Item:
    """A stored item read once into the library's objects: what a worker computes and a report merges.

    Items of jobs stored before ``ply``, ``cubeful`` and ``luck`` existed are 0-ply, cubeless and value
    the 21 rolls' every play (``luck="full"``), so that a resumed job stays one estimator; searching items
    stored before ``prune`` existed are unpruned (``prune`` matters at ``ply >= 1`` only).
    """

    stored: Mapping[str, Any]
    kind: str
    position: Position
    rules: Rules
    seed: int
    variance_reduction: bool
    truncate: int | None
    ply: int
    luck: str
    cube: Any  # the library's Cube of a cubeful item, else None
    dice: tuple[int, int] | None
    plays: tuple[Position, ...] | None
    prune: bool = False  # the search of a ply >= 1 item prunes its replies (stored before: unpruned)

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Item:
        """The item of a stored (normalised) item."""
        cubeful = stored.get("kind") == "cube" or bool(stored.get("cubeful"))
        dice = stored.get("dice")
        plays = stored.get("plays")
        return cls(
            stored=stored,
            kind=stored.get("kind", "position"),
            position=Position.from_position_id(stored["position_id"]),
            rules=rules_of(stored["rules"]),
            seed=stored["seed"],
            variance_reduction=stored["variance_reduction"],
            truncate=stored["truncate"],
            ply=stored.get("ply", 0),
            prune=bool(stored.get("prune", False)),
            luck=stored.get("luck", "full"),
            cube=cube_of(stored.get("cube")) if cubeful else None,
            dice=(dice[0], dice[1]) if dice is not None else None,
            plays=tuple(Position.from_position_id(p["position_id"]) for p in plays) if plays else None,
        )

    @property
    def candidates(self) -> int:
        """How many results a chunk of a position item holds: one per candidate play, else one."""
        return len(self.plays) if self.plays is not None else 1

    def cube_state(self) -> Any:
        """The library's :class:`~pulvezar.cube.decision.CubeState` of a cube item."""
        return cube_state_of(self.stored)

    def options(self, evaluator: Any) -> dict[str, Any]:
        """The library options of the item (as :func:`pulvezar.rollouts.rollout` takes them)."""
        opts: dict[str, Any] = {
            "seed": self.seed,
            "variance_reduction": self.variance_reduction,
            "truncate": self.truncate,
            "rules": self.rules,
            "evaluator": evaluator,
            "ply": self.ply,
            "luck": self.luck,
            "prune": self.prune,
        }
        if self.cube is not None and self.kind != "cube":
            opts["cubeful"] = True
            opts["cube"] = self.cube
        return opts
