"""Analysis: single decisions (luck, play errors, position types, shots, explanations, bots) and matches."""

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
from pulvezar.analysis.match import (
    AnalysisSettings,
    DecisionAnalysis,
    GameAnalysis,
    MatchAnalysis,
    analyse_game,
    analyse_match,
    annotated_sgf,
    summarise,
)
from pulvezar.analysis.rating import DecisionError, error_rate, grade, performance_rating
from pulvezar.analysis.shots import Shots, shots

__all__ = [
    "BLUNDER",
    "ERROR",
    "LUCKY",
    "PLANS",
    "VERY_LUCKY",
    "AnalysisSettings",
    "Bot",
    "DecisionAnalysis",
    "DecisionError",
    "Explanation",
    "GameAnalysis",
    "Luck",
    "MatchAnalysis",
    "PlayError",
    "PositionType",
    "Shots",
    "analyse_game",
    "analyse_match",
    "annotated_sgf",
    "classify",
    "error_rate",
    "explain",
    "grade",
    "luck",
    "performance_rating",
    "play_error",
    "roll_values",
    "shots",
    "summarise",
]
