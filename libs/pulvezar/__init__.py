"""pulvezar: an analysis engine for backgammon and Turkish Tavla.

>>> import pulvezar
>>> rules = pulvezar.Rules.international()
>>> len(rules.legal_plays(pulvezar.Position.start(), (3, 1)))
16
"""

from pulvezar.errors import (
    AmbiguousPlayError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidIdError,
    InvalidPlayError,
    InvalidPositionError,
    NotationError,
    PulvezarError,
)
from pulvezar.rules import (
    GameResult,
    LegalPlays,
    Move,
    Outcome,
    Play,
    Position,
    Rules,
    format_play,
    parse_play,
)

__version__ = "0.1.0"

__all__ = [
    "AmbiguousPlayError",
    "GameResult",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidPlayError",
    "InvalidPositionError",
    "LegalPlays",
    "Move",
    "NotationError",
    "Outcome",
    "Play",
    "Position",
    "PulvezarError",
    "Rules",
    "__version__",
    "format_play",
    "parse_play",
]
