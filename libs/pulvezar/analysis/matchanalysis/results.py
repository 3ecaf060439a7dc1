"""Match analysis results: settings, per-decision and per-game records, JSON, statistics."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from pulvezar.analysis.decisions import BLUNDER, ERROR
from pulvezar.analysis.explain import LANGUAGES
from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import Evaluator
from pulvezar.rating import (
    DecisionError,
    error_rate,
    grade,
    performance_rating,
)

ANALYSIS_DEPTHS = ("0ply", "1ply", "2ply", "3ply", "deep")
DEFAULT_ANALYSIS_DEPTH = "2ply"
_DEPTH_PLIES = {"0ply": (0, 0), "1ply": (1, 1), "2ply": (2, 2), "3ply": (3, 2), "deep": (2, 2)}
DecisionKindName = Literal["checker", "double", "take"]


class AnalysisError(PulvezarError):
    """A bad analysis request (unknown level, game index out of range, mixed settings)."""


# ---- settings ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnalysisSettings:
    """How deep a match is analysed.

    ``ply``/``filter``: checker plays (:func:`~pulvezar.search.hint`);
    ``cube_ply``: cube decisions (0..2); ``luck_ply``: the luck of each roll
    (0 by default: the best play of each of the 21 rolls at 0 plies, cubeful
    like the checker plays); ``candidates``: how many are kept per play;
    ``deep``: re-value every checker error with the deep-analysis preset
    (:func:`~pulvezar.rollouts.deep.deep_analysis`: ``deep_ply`` search plus a
    ``deep_trials`` rollout, seeded by ``seed``, truncated after
    ``deep_truncate`` moves where given -- for quick checks only); ``lang``: the language of the
    explanation sentences; ``prune``: the searches at 1 ply or deeper prune their replies
    (:func:`~pulvezar.search.plies.default_prune`; ``False``: the unpruned search).  Settings
    recorded before ``prune`` existed read as unpruned (:meth:`from_json`).
    """

    level: str = DEFAULT_ANALYSIS_DEPTH
    ply: int = 2
    cube_ply: int = 2
    filter: str = "normal"
    luck_ply: int = 0
    candidates: int = 5
    deep: bool = False
    deep_ply: int = 3
    deep_trials: int = 6912
    deep_truncate: int | None = None
    seed: int = 1
    lang: str = "en"
    prune: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.ply <= 3:
            raise AnalysisError(f"ply must be 0..3, got {self.ply}", field="ply")
        if not 0 <= self.cube_ply <= 2:
            raise AnalysisError(f"cube_ply must be 0..2, got {self.cube_ply}", field="cube_ply")
        if not 0 <= self.luck_ply <= 3:
            raise AnalysisError(f"luck_ply must be 0..3, got {self.luck_ply}", field="luck_ply")
        if self.candidates < 1:
            raise AnalysisError("keep at least one candidate", field="candidates")
        if self.lang not in LANGUAGES:
            raise AnalysisError(
                f"unknown language {self.lang!r}; languages: {', '.join(LANGUAGES)}", field="lang"
            )
        if self.deep and (self.deep_trials < 1 or not 0 <= self.deep_ply <= 3):
            raise AnalysisError("deep analysis needs trials >= 1 and a ply 0..3", field="deep_trials")

    @classmethod
    def from_level(cls, level: str = DEFAULT_ANALYSIS_DEPTH, **overrides: Any) -> AnalysisSettings:
        """The settings of a level: ``0ply``, ``1ply``, ``2ply`` (default), ``3ply`` or ``deep``.

        >>> s = AnalysisSettings.from_level("3ply")
        >>> s.ply, s.cube_ply, s.deep
        (3, 2, False)
        >>> AnalysisSettings.from_level("deep").deep
        True
        """
        if level not in _DEPTH_PLIES:
            raise AnalysisError(
                f"unknown level {level!r}; levels: {', '.join(ANALYSIS_DEPTHS)}", field="level"
            )
        ply, cube_ply = _DEPTH_PLIES[level]
        return cls(level=level, ply=ply, cube_ply=cube_ply, deep=level == "deep", **overrides)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnalysisSettings:
        """Settings from :meth:`to_json`; without ``prune`` (recorded before it existed) unpruned.

        >>> AnalysisSettings.from_json({"ply": 2}).prune
        False
        >>> AnalysisSettings.from_json(AnalysisSettings().to_json()).prune
        True
        """
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise AnalysisError(f"unknown settings: {', '.join(sorted(unknown))}", field=sorted(unknown)[0])
        return cls(**{"prune": False, **data})


def engine_info(evaluator: Evaluator | None = None) -> dict[str, Any]:
    """What analysed: :func:`pulvezar.eval.provenance.engine_info`'s JSON (pulvezar's version, the net's
    name and SHA-256); analyses stored before it named the net by its SHA-256 in ``"model"``
    (:meth:`~pulvezar.eval.provenance.EngineInfo.from_json` reads both)."""
    from pulvezar.eval.provenance import engine_info as engine

    return engine(evaluator).to_json()


# ---- results -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateAnalysis:
    """One candidate play: notation, equity (cubeful where the game has a cube), probabilities, loss."""

    notation: str
    equity: float
    cubeless_equity: float
    probs: tuple[float, float, float, float, float]
    loss: float
    ply: int | str  # a search depth, or "deep"


@dataclass(frozen=True)
class LuckAnalysis:
    """The luck of a roll for the player who rolled: EMG (per cube) and points (x the cube)."""

    value: float
    points: float
    mark: str  # "very lucky", "lucky", "", "unlucky", "very unlucky"
    ply: int


@dataclass(frozen=True)
class CubeAnalysis:
    """The cube decision behind a doubling or take/pass decision (the doubler's view, normalised)."""

    nd: float
    dt: float | None
    dp: float | None
    action: str  # the right action, e.g. "Double, take"
    costs: dict[str, float]
    probs: tuple[float, float, float, float, float]
    ply: int
    mwc_nd: float | None = None
    mwc_dt: float | None = None
    mwc_dp: float | None = None
    take_point: float | None = None


@dataclass(frozen=True)
class DecisionAnalysis:
    """One analysed decision.

    ``kind``: ``checker``, ``double`` (the player on turn before rolling:
    doubled or not) or ``take`` (the answer to a double).  ``played`` is the
    play's notation, or ``double``/``no double``, ``take``/``pass``/``beaver``;
    ``best`` the right one.  ``loss`` is in normalised equity (EMG), ``counts``
    as :mod:`~pulvezar.analysis.rating` defines it.  ``mark``: ``""``,
    ``"error"`` or ``"blunder"``; ``symbol`` ``""``, ``"?"`` or ``"!!"``;
    ``category`` names cube mistakes (``missed double``, ``wrong double``,
    ``wrong double (too good)``, ``wrong take``, ``wrong pass``, ``wrong
    beaver``).  ``played_rank`` is the played play's place among all
    candidates (0 = best); ``candidates`` are the best ``settings.candidates``
    plus the played play where it is not among them.
    """

    game: int
    index: int  # into GameRecord.actions
    move: int  # 1-based turn number within the game
    player: int
    kind: DecisionKindName
    position_id: str
    match_id: str
    dice: tuple[int, int] | None
    cube_value: int
    played: str
    best: str
    loss: float
    counts: bool
    forced: bool = False
    mark: str = ""
    symbol: str = ""
    category: str = ""
    candidates: tuple[CandidateAnalysis, ...] = ()
    played_rank: int = 0
    played_equity: float | None = None
    position_type: str = ""
    position_side: str | None = None
    plan: str = ""
    explanation: str = ""
    reasons: tuple[dict[str, Any], ...] = ()
    luck: LuckAnalysis | None = None
    cube: CubeAnalysis | None = None
    deep: bool = False

    @property
    def error(self) -> DecisionError:
        """This decision as :mod:`~pulvezar.analysis.rating` counts it."""
        return DecisionError(self.player, self.kind, self.loss, self.counts)


@dataclass(frozen=True)
class GameAnalysis:
    """The analysis of one game of a record (``index`` into ``record.games``)."""

    index: int
    number: int
    score: tuple[int, int]
    crawford: bool
    winner: int | None
    points: int
    credited: int
    variant: str
    decisions: tuple[DecisionAnalysis, ...]
    settings: AnalysisSettings
    engine: dict[str, Any] = field(default_factory=dict)
    cut_at: str | None = None

    @property
    def errors(self) -> list[DecisionError]:
        return [d.error for d in self.decisions]

    def result_points(self, player: int) -> int:
        """Points ``player`` won in this game minus points lost (as credited to the match score)."""
        if self.winner is None:
            return 0
        return self.credited if self.winner == player else -self.credited

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "number": self.number,
            "score": list(self.score),
            "crawford": self.crawford,
            "winner": self.winner,
            "points": self.points,
            "credited": self.credited,
            "variant": self.variant,
            "cut_at": self.cut_at,
            "settings": self.settings.to_json(),
            "engine": dict(self.engine),
            "players": [player_stats([self], p) for p in (0, 1)],
            "decisions": [_decision_json(d) for d in self.decisions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameAnalysis:
        try:
            return cls(
                index=int(data["index"]),
                number=int(data["number"]),
                score=(int(data["score"][0]), int(data["score"][1])),
                crawford=bool(data["crawford"]),
                winner=data["winner"],
                points=int(data["points"]),
                credited=int(data["credited"]),
                variant=str(data["variant"]),
                cut_at=data.get("cut_at"),
                settings=AnalysisSettings.from_json(data["settings"]),
                engine=dict(data.get("engine", {})),
                decisions=tuple(_decision_from_json(d) for d in data["decisions"]),
            )
        except (KeyError, TypeError, IndexError, ValueError) as e:
            raise AnalysisError(f"not a game analysis: {type(e).__name__}: {e}", field="game") from None


def _decision_json(d: DecisionAnalysis) -> dict[str, Any]:
    # field by field rather than asdict(d): its recursive deep copy of the candidates and the cube,
    # replaced just below, was ~9% of a 0-ply game's analysis (issue 45); the other fields are scalars
    out = {f.name: getattr(d, f.name) for f in fields(d)}
    out["luck"] = asdict(d.luck) if d.luck is not None else None
    out["dice"] = list(d.dice) if d.dice is not None else None
    out["candidates"] = [{**asdict(c), "probs": list(c.probs)} for c in d.candidates]
    out["reasons"] = [dict(r) for r in d.reasons]
    if d.cube is not None:
        out["cube"] = {**asdict(d.cube), "probs": list(d.cube.probs), "costs": dict(d.cube.costs)}
    return out


def _probs5(v: Sequence[float]) -> tuple[float, float, float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]), float(v[3]), float(v[4]))


def _decision_from_json(d: dict[str, Any]) -> DecisionAnalysis:
    data = dict(d)
    data["dice"] = tuple(d["dice"]) if d.get("dice") is not None else None
    data["candidates"] = tuple(
        CandidateAnalysis(**{**c, "probs": _probs5(c["probs"])}) for c in d.get("candidates", ())
    )
    data["reasons"] = tuple(dict(r) for r in d.get("reasons", ()))
    data["luck"] = LuckAnalysis(**d["luck"]) if d.get("luck") is not None else None
    if d.get("cube") is not None:
        data["cube"] = CubeAnalysis(**{**d["cube"], "probs": _probs5(d["cube"]["probs"])})
    return DecisionAnalysis(**data)


@dataclass(frozen=True)
class MatchAnalysis:
    """Per-game analyses of a match (sorted by game index) and what they add up to."""

    players: tuple[str, str]
    length: int
    variant: str
    games: tuple[GameAnalysis, ...]
    settings: AnalysisSettings
    engine: dict[str, Any] = field(default_factory=dict)
    cut_games: int = 0

    @property
    def decisions(self) -> list[DecisionAnalysis]:
        return [d for g in self.games for d in g.decisions]

    def stats(self, player: int) -> dict[str, Any]:
        """The statistics of ``player`` over the whole match (see :func:`player_stats`)."""
        s = player_stats(self.games, player)
        return {"name": self.players[player], **s}

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [self.stats(0), self.stats(1)],
            "length": self.length,
            "variant": self.variant,
            "cut_games": self.cut_games,
            "settings": self.settings.to_json(),
            "engine": dict(self.engine),
            "games": [g.to_json() for g in self.games],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchAnalysis:
        try:
            return cls(
                players=(str(data["players"][0]["name"]), str(data["players"][1]["name"])),
                length=int(data["length"]),
                variant=str(data["variant"]),
                cut_games=int(data.get("cut_games", 0)),
                settings=AnalysisSettings.from_json(data["settings"]),
                engine=dict(data.get("engine", {})),
                games=tuple(GameAnalysis.from_json(g) for g in data["games"]),
            )
        except (KeyError, TypeError, IndexError, ValueError) as e:
            raise AnalysisError(f"not a match analysis: {type(e).__name__}: {e}", field="analysis") from None


# ---- statistics ----------------------------------------------------------------------------


def _mistake_json(d: DecisionAnalysis) -> dict[str, Any]:
    return {
        "game": d.game,
        "move": d.move,
        "kind": d.kind,
        "dice": list(d.dice) if d.dice else None,
        "played": d.played,
        "best": d.best,
        "loss": d.loss,
        "category": d.category,
        "position_id": d.position_id,
        "match_id": d.match_id,
    }


def _part(ds: list[DecisionAnalysis], player: int) -> dict[str, Any]:
    errs = [d.error for d in ds]
    counted = [d for d in ds if d.counts and d.player == player]
    return {
        "decisions": len(counted),
        "errors": sum(ERROR <= d.loss < BLUNDER for d in counted),
        "blunders": sum(d.loss >= BLUNDER for d in counted),
        "error_total": sum(d.loss for d in counted),
        "pr": performance_rating(errs, player),
    }


_PLURAL = {
    "missed double": "missed_doubles",
    "wrong double": "wrong_doubles",
    "wrong take": "wrong_takes",
    "wrong pass": "wrong_passes",
}


def player_stats(games: Iterable[GameAnalysis], player: int) -> dict[str, Any]:
    """Statistics of ``player`` over ``games``: PR, error rate, counts, luck, grade.

    ``errors`` counts the errors that are not blunders (0.02 <= loss < 0.08),
    ``blunders`` those >= 0.08.  Luck is in EMG (per cube) and in points (luck
    x the cube value at the roll); ``net`` is the player's luck minus the
    opponent's.  ``result_points``: points won minus points lost as credited
    to the match score; ``luck_adjusted``: ``result_points`` minus the net luck
    in points.
    """
    games = list(games)
    ds = [d for g in games for d in g.decisions]
    mine = [d for d in ds if d.player == player]
    errs = [d.error for d in ds]
    counted = [d for d in mine if d.counts]
    checker = _part([d for d in ds if d.kind == "checker"], player)
    cube = _part([d for d in ds if d.kind != "checker"], player)
    cats = [d.category for d in mine if d.kind != "checker" and d.category]
    for name in _PLURAL:
        cube[_PLURAL[name]] = sum(c.startswith(name) for c in cats)
    cube["too_good_doubles"] = sum(c == "wrong double (too good)" for c in cats)

    def luck_of(p: int) -> tuple[float, float, list[DecisionAnalysis]]:
        rolls = [d for d in ds if d.player == p and d.luck is not None]
        return (
            sum(d.luck.value for d in rolls if d.luck),
            sum(d.luck.points for d in rolls if d.luck),
            rolls,
        )

    own, own_pts, rolls = luck_of(player)
    other, other_pts, _ = luck_of(1 - player)
    marks = [d.luck.mark for d in rolls if d.luck]
    luckiest = max(rolls, key=lambda d: d.luck.value if d.luck else 0.0, default=None)
    unluckiest = min(rolls, key=lambda d: d.luck.value if d.luck else 0.0, default=None)

    def roll_json(d: DecisionAnalysis | None) -> dict[str, Any] | None:
        if d is None or d.luck is None:
            return None
        return {"game": d.game, "move": d.move, "dice": list(d.dice or ()), "luck": d.luck.value}

    result = sum(g.result_points(player) for g in games)
    biggest = max(counted, key=lambda d: d.loss, default=None)
    pr = performance_rating(errs, player)
    return {
        "pr": pr,
        "error_rate": error_rate(errs, player),
        "decisions": len(counted),
        "errors": checker["errors"] + cube["errors"],
        "blunders": checker["blunders"] + cube["blunders"],
        "checker": checker,
        "cube": cube,
        "luck": {
            "total": own,
            "total_points": own_pts,
            "net": own - other,
            "net_points": own_pts - other_pts,
            "very_lucky": marks.count("very lucky"),
            "lucky": marks.count("lucky"),
            "unlucky": marks.count("unlucky"),
            "very_unlucky": marks.count("very unlucky"),
            "luckiest": roll_json(luckiest),
            "unluckiest": roll_json(unluckiest),
        },
        "result_points": result,
        "luck_adjusted": result - (own_pts - other_pts),
        "grade": grade(pr),
        "biggest_mistake": _mistake_json(biggest) if biggest is not None and biggest.loss > 0 else None,
    }
