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

__version__ = "0.1.0"

__all__ = [
    "XGID",
    "AmbiguousPlayError",
    "GameResult",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidPlayError",
    "InvalidPositionError",
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
    "format_gnubg_id",
    "format_play",
    "parse_gnubg_id",
    "parse_play",
]
