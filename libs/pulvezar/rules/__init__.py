"""The rules core: positions, rule sets, legal plays, notation and IDs."""

from pulvezar.rules.notation import format_play, parse_play
from pulvezar.rules.position import Position
from pulvezar.rules.rules import GameResult, LegalPlays, Move, Outcome, Play, Rules

__all__ = [
    "GameResult",
    "LegalPlays",
    "Move",
    "Outcome",
    "Play",
    "Position",
    "Rules",
    "format_play",
    "parse_play",
]
