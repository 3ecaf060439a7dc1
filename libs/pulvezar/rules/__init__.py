"""The rules core: positions, rule sets, legal plays, notation and IDs."""

from pulvezar.rules.matchid import MatchId, format_gnubg_id, parse_gnubg_id
from pulvezar.rules.notation import format_play, parse_play
from pulvezar.rules.position import Position
from pulvezar.rules.rules import GameResult, LegalPlays, Move, Outcome, Play, Rules
from pulvezar.rules.xgid import XGID

__all__ = [
    "XGID",
    "GameResult",
    "LegalPlays",
    "MatchId",
    "Move",
    "Outcome",
    "Play",
    "Position",
    "Rules",
    "format_gnubg_id",
    "format_play",
    "parse_gnubg_id",
    "parse_play",
]
