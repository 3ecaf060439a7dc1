"""Analysis of single decisions: luck, play errors, position types and shots."""

from pulvezar.analysis.classify import PLANS, PositionType, classify
from pulvezar.analysis.decisions import (
    BLUNDER,
    ERROR,
    LUCKY,
    VERY_LUCKY,
    Luck,
    PlayError,
    luck,
    play_error,
    roll_values,
)
from pulvezar.analysis.shots import Shots, shots

__all__ = [
    "BLUNDER",
    "ERROR",
    "LUCKY",
    "PLANS",
    "VERY_LUCKY",
    "Luck",
    "PlayError",
    "PositionType",
    "Shots",
    "classify",
    "luck",
    "play_error",
    "roll_values",
    "shots",
]
