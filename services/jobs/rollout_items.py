"""A rollout job's items, checked once: the parameters of one position as the job stores them.

:func:`normalise_item` checks what a client sent (the gateway's request body, a batch entry) and
returns the item in its stored form: pydantic checks the parameters' types and limits (:class:`ItemParams`,
the limits of :mod:`services.common.schemas`), the library reads the position, plays, rules and cube (its
codec: :meth:`pulvezar.Rules.from_dict`, :meth:`pulvezar.CubeState.from_dict`).
:func:`rules_of`, :func:`cube_of` and :func:`cube_state_of` give
the library's objects of a stored item (the worker's side).  Errors are :class:`InvalidJob` naming the
field (``positions[3].dice``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError
from typing_extensions import TypedDict  # pydantic reads the cube of a report (Python < 3.12)

from pulvezar import CubeState, Position, PulvezarError, Rules
from pulvezar.formats.position_text import read_position_text
from pulvezar.rules.notation import parse_play
from pulvezar.rules.ogid import OGID, looks_like_ogid
from pulvezar.rules.xgid import XGID
from services.common.schemas import (
    MAX_LABEL,
    MAX_PLAYS,
    MAX_ROLLOUT_PLY,
    MAX_SEED,
    MAX_TRIALS,
    MAX_TRUNCATE,
)
from services.jobs.errors import InvalidJob
from services.jobs.kind import field_of

# ---- the stored item ---------------------------------------------------------


class CubeSpec(TypedDict):
    """A cubeful item's cube, as the player on roll sees it (:meth:`pulvezar.CubeState.to_dict`); the
    reports show it as stored (:class:`~services.jobs.rollout_models.CubeSetting`)."""

    value: Annotated[int, Field(description="the cube's value (a power of two)")]
    owner: Annotated[Literal["centre", "player", "opponent"], Field(description="who owns the cube")]
    match_length: Annotated[int, Field(description="0: money")]
    score: Annotated[int, Field(description="the player on roll's score (a match)")]
    opponent_score: Annotated[int, Field(description="the opponent's score (a match)")]
    crawford: Annotated[bool, Field(description="this is the Crawford game (a match)")]
    jacoby: Annotated[bool, Field(description="the Jacoby rule (money)")]
    beaver: Annotated[bool, Field(description="beavers allowed (money)")]


class CandidateSpec(TypedDict):
    """A candidate play of an item with dice: its notation and the Position ID after it."""

    play: str
    position_id: str


class StoredItem(TypedDict):
    """One position's item as the job's spec stores it (:func:`normalise_item`).  Items stored before
    ``kind``, ``ply``, ``prune``, ``cubeful`` and ``luck`` existed lack them (:meth:`Item.of` reads them)."""

    kind: NotRequired[Literal["cube"]]
    position: str
    position_id: str
    dice: list[int] | None
    plays: list[CandidateSpec] | None
    trials: int
    seed: int
    variance_reduction: bool
    luck: NotRequired[str]
    truncate: int | None
    rules: dict[str, Any]
    ply: NotRequired[int]
    prune: NotRequired[bool]
    cubeful: NotRequired[bool]
    cube: CubeSpec | None
    label: NotRequired[str]


# ---- parameters -------------------------------------------------------------


def _rules(value: Any, field: str) -> tuple[dict[str, Any], Rules]:
    """The stored form and the library's rule set of a request's ``rules`` (none: international), read by
    the codec (:meth:`pulvezar.Rules.from_dict`, its errors naming the part that was wrong)."""
    try:
        rules = Rules.from_dict("international" if value is None else value, field)
    except PulvezarError as e:
        raise InvalidJob(e.field or field, str(e)) from None
    if rules.variant == "international":  # stored as before the codec: no Tavla options
        return {"variant": "international"}, rules
    return rules.to_dict(), rules


def rules_of(spec: Mapping[str, Any]) -> Rules:
    """The rules of a normalised item's ``rules`` entry."""
    return _rules(spec, "rules")[1]


def _cube(value: Any, field: str, position: Position | None = None, rules: Rules | None = None) -> CubeSpec:
    """The normalised cube of a cubeful item, read by the codec (:meth:`pulvezar.CubeState.from_dict`,
    the shape of the schemas' ``CubeInput``), seen by the player on roll (the player who plays, for
    candidate plays) of ``position`` (default: the cube alone, as of the starting position); none is
    centred money."""
    at = position if position is not None else Position.start()
    try:
        out: CubeSpec = CubeState.from_dict(at, value, rules, field).to_dict()  # type: ignore[assignment]
    except PulvezarError as e:
        raise InvalidJob(_cube_field(e.field or field, value, field), str(e)) from None
    return out


def _cube_field(name: str, value: Any, field: str) -> str:
    """The field a cube error names, as before the codec: the option, not the whole cube, for a money
    option in a match; ``opponent_score`` when the opponent's score is the one out of the match."""
    if not isinstance(value, Mapping):
        return name
    if name == field:
        return next((f"{field}.{k}" for k in ("jacoby", "beaver") if value.get(k) is True), name)
    n, score = value.get("match_length", 0), value.get("score", 0)
    if name == f"{field}.score" and isinstance(n, int) and isinstance(score, int) and 0 <= score < max(n, 1):
        return f"{field}.opponent_score"
    return name


def cube_of(spec: CubeSpec | None) -> Any:
    """The library's :class:`~pulvezar.cubeful.janowski.Cube` of a normalised ``cube`` entry."""
    from pulvezar.cubeful.janowski import Cube

    if spec is None:
        return Cube()
    n = spec["match_length"]
    away = (n - spec["score"], n - spec["opponent_score"]) if n else None
    return Cube(spec["value"], spec["owner"], away, spec["crawford"], spec["jacoby"], spec["beaver"])


def _position(params: ItemParams, field: str) -> tuple[Position, str, tuple[int, int] | None]:
    """The position, the text it was given as, and the dice of an ID that has them (XGID, Match ID)."""
    given = [k for k in ("position", "position_id", "xgid") if getattr(params, k) is not None]
    if len(given) != 1:
        raise InvalidJob(f"{field}position", "give exactly one of position, position_id or xgid")
    key = given[0]
    value = getattr(params, key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidJob(f"{field}{key}", f"a Position ID or XGID string is required, got {value!r}")
    value = value.strip()
    try:
        if key == "position":  # any of the four forms (the library's one reader of position text)
            r = read_position_text(value)
            return r.position, value, r.dice
        if key == "xgid":
            if looks_like_ogid(value):  # one the request schema could not read as an XGID: its reason
                OGID.parse(value).to_xgid()
            x = XGID.parse(value)
            return x.position, value, x.rolled
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


class ItemParams(BaseModel):
    """One position's parameters as a job takes them: pydantic checks their types and the schemas' limits
    (strictly: ``true`` is not a number, ``"yes"`` not a flag); the position, dice, plays, rules and cube
    are the library's to read (:func:`normalise_item`)."""

    model_config = ConfigDict(extra="forbid")

    #: what an item rolls out: the position (or candidate plays of a roll), or the cube decision before
    #: the roll (no double and double/take with the same dice; :func:`pulvezar.rollouts.rollout_cube`)
    kind: Literal["position", "cube"] = "position"
    position: Any = None
    position_id: Any = None
    xgid: Any = None
    dice: Any = None  # [3, 1] or "31"
    plays: Annotated[list[StrictStr], Field(min_length=1, max_length=MAX_PLAYS)] | None = None
    trials: Annotated[StrictInt, Field(ge=1, le=MAX_TRIALS)]
    seed: Annotated[StrictInt, Field(ge=0, le=MAX_SEED)] = 1
    variance_reduction: StrictBool = True
    luck: Literal["screened", "full"] = "screened"
    truncate: Annotated[StrictInt, Field(ge=0, le=MAX_TRUNCATE)] | None = None
    rules: Any = None  # the codec's (Rules.from_dict)
    ply: Annotated[StrictInt, Field(ge=0, le=MAX_ROLLOUT_PLY)] = 0
    prune: StrictBool = True
    cubeful: StrictBool = False
    cube: Any = None  # the codec's (CubeState.from_dict)
    label: Annotated[StrictStr, Field(max_length=MAX_LABEL)] | None = None


def item_params(params: Any, field: str = "") -> ItemParams:
    """``params`` checked by pydantic (:class:`InvalidJob` naming the field, prefixed by ``field``)."""
    if not isinstance(params, Mapping):
        raise InvalidJob(field.rstrip(".") or "params", f"an object is required, got {type(params).__name__}")
    try:
        return ItemParams.model_validate(dict(params))
    except ValidationError as e:
        err = e.errors()[0]
        raise InvalidJob(f"{field}{field_of(err['loc'])}", str(err["msg"])) from None


def normalise_item(params: ItemParams | Mapping[str, Any], field: str = "") -> StoredItem:
    """Validate one position's parameters (a dict, or a request pydantic checked already, the kinds'
    :class:`~services.jobs.kinds.rollout.RolloutParams`); returns the item as the spec stores it.

    ``field`` prefixes the names in errors (``positions[3].``).  The limits are the request schemas'
    (:mod:`services.common.schemas`: trials, truncation, ply, seed, label), pydantic's (:class:`ItemParams`);
    here the library reads what they mean: the position, dice, plays, rules and cube.
    """
    p = params if isinstance(params, ItemParams) else item_params(params, field)
    position, given, xgid_dice = _position(p, field)
    rules_spec, rules = _rules(p.rules, f"{field}rules")
    dice = _dice(p.dice, f"{field}dice") if p.dice is not None else xgid_dice
    item: StoredItem = {
        "position": given,
        "position_id": position.position_id,
        "dice": None,
        "plays": None,
        "trials": p.trials,
        "seed": p.seed,
        "variance_reduction": p.variance_reduction,
        "luck": p.luck,
        "truncate": p.truncate,
        "rules": rules_spec,
        "ply": p.ply,
        "cubeful": False,
        "cube": None,
    }
    if p.ply > 0:  # a searching item records its pruning; a 0-ply one never searches and stays as it was
        item["prune"] = p.prune
    if p.kind == "cube":
        _check_cube_item(p, field, xgid_dice, rules)
        cube = _cube(p.cube, f"{field}cube", position, rules)
        item = {"kind": "cube", **item, "cubeful": True, "cube": cube}
    elif p.cubeful:
        if not rules.uses_cube:
            reason = "Tavla is played without a cube: cubeful needs international rules"
            raise InvalidJob(f"{field}cubeful", reason)
        item["cubeful"], item["cube"] = True, _cube(p.cube, f"{field}cube", position, rules)
    elif p.cube is not None:
        raise InvalidJob(f"{field}cube", "a cube is for cubeful rollouts (cubeful: true)")
    if p.label is not None:
        item["label"] = p.label
    if p.kind != "cube" and p.plays is not None and dice is None:
        raise InvalidJob(f"{field}plays", "candidate plays need dice")
    if p.kind != "cube" and dice is not None:
        item["dice"] = list(dice)
        item["plays"] = _candidates(p.plays, dice, position, rules, field)
    return item


def _candidates(
    plays: list[str] | None, dice: tuple[int, int], position: Position, rules: Rules, field: str
) -> list[CandidateSpec]:
    """The candidate plays of ``dice`` as an item stores them (default: every legal play), each read by
    the library's notation."""
    try:
        legal = rules.legal_plays(position, dice)
    except PulvezarError as e:
        raise InvalidJob(f"{field}dice", str(e)) from None
    chosen = list(legal)
    if plays is not None:
        chosen = []
        for i, text in enumerate(plays):
            try:
                chosen.append(parse_play(text, position, dice, rules))
            except PulvezarError as e:
                raise InvalidJob(f"{field}plays[{i}]", str(e)) from None
    if not chosen:
        raise InvalidJob(f"{field}dice", "no legal play")
    ids = [c.position.position_id for c in chosen]
    if len(set(ids)) != len(ids):
        raise InvalidJob(f"{field}plays", "two candidates are the same play")
    return [{"play": c.notation, "position_id": pid} for c, pid in zip(chosen, ids, strict=True)]


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


def _check_cube_item(params: ItemParams, field: str, xgid_dice: tuple[int, int] | None, rules: Rules) -> None:
    """A cube-decision rollout (``kind: "cube"``) is taken before the roll, with a cube: no dice."""
    for key in ("dice", "plays"):
        if getattr(params, key) is not None:
            raise InvalidJob(f"{field}{key}", "a cube decision is taken before the roll: no dice or plays")
    if xgid_dice is not None:
        key = "xgid" if params.xgid is not None else "position"
        raise InvalidJob(
            f"{field}{key}", "the XGID has rolled dice: a cube decision is taken before the roll"
        )
    if not rules.uses_cube:
        raise InvalidJob(
            f"{field}rules", "Tavla is played without a cube: cube rollouts need international rules"
        )


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
