"""Analysis of single decisions: luck, play errors, position types, shots, explanations and bots."""

from pulvezar.analysis.bots import Bot
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
from pulvezar.analysis.explain import Explanation, explain
from pulvezar.analysis.shots import Shots, shots

__all__ = [
    "BLUNDER",
    "ERROR",
    "LUCKY",
    "PLANS",
    "VERY_LUCKY",
    "Bot",
    "Explanation",
    "Luck",
    "PlayError",
    "PositionType",
    "Shots",
    "classify",
    "explain",
    "luck",
    "play_error",
    "roll_values",
    "shots",
]
