"""pulvezar: an analysis engine for backgammon and Turkish Tavla.

>>> import pulvezar
>>> rules = pulvezar.Rules.international()
>>> len(rules.legal_plays(pulvezar.Position.start(), (3, 1)))
16
"""

from typing import TYPE_CHECKING

from pulvezar.cubeful import CubeState
from pulvezar.errors import (
    AmbiguousPlayError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidIdError,
    InvalidPlayError,
    InvalidPositionError,
    InvalidValueError,
    NotationError,
    PulvezarError,
)
from pulvezar.rules import (
    XGID,
    GameResult,
    LegalPlays,
    MatchId,
    Move,
    Outcome,
    Play,
    Position,
    Rules,
    format_gnubg_id,
    format_play,
    parse_gnubg_id,
    parse_play,
)

if TYPE_CHECKING:
    from pulvezar.cube import CubeDecision
    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.match.game import Game
    from pulvezar.rollouts.stats import RolloutResult
    from pulvezar.search.plies import Candidate

from pulvezar._version import __version__


def default_evaluator() -> "NetEvaluator":
    """The shipped net (see :mod:`pulvezar.eval`); imports PyTorch on first use."""
    from pulvezar.eval.evaluator import default_evaluator as load

    return load()


def hint(
    position: "Position | CubeState | Game", dice: tuple[int, int] | None = None, **options: object
) -> "list[Candidate]":
    """The candidates of a roll, best first (see :func:`pulvezar.search.hint`); imports PyTorch lazily."""
    from pulvezar.search.hint import hint as search_hint

    return search_hint(position, dice, **options)  # type: ignore[arg-type]


def cube_decision(state: CubeState, **options: object) -> "CubeDecision":
    """The cube decision of the player on roll (see :func:`pulvezar.cube.cube_decision`)."""
    from pulvezar.cube import cube_decision as decide

    return decide(state, **options)  # type: ignore[arg-type]


def rollout(position: Position, **options: object) -> "RolloutResult":
    """Roll a position out (see :func:`pulvezar.rollouts.rollout`); imports PyTorch lazily."""
    from pulvezar.rollouts import rollout as run

    return run(position, **options)  # type: ignore[arg-type]


__all__ = [
    "XGID",
    "AmbiguousPlayError",
    "CubeState",
    "GameResult",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidPlayError",
    "InvalidPositionError",
    "InvalidValueError",
    "LegalPlays",
    "MatchId",
    "Move",
    "NotationError",
    "Outcome",
    "Play",
    "Position",
    "PulvezarError",
    "Rules",
    "__version__",
    "cube_decision",
    "default_evaluator",
    "format_gnubg_id",
    "format_play",
    "hint",
    "parse_gnubg_id",
    "parse_play",
    "rollout",
]
