"""Analysis: single decisions (luck, play errors, position types, shots, explanations, bots) and matches.

The names below are loaded on first use: most of them need the evaluator (and so
PyTorch), but a position type (:func:`classify`, all that a similar-position query
needs) or the PR definition (:mod:`pulvezar.rating`) does not, and importing
``pulvezar.analysis.classify`` therefore loads no PyTorch.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from pulvezar.analysis.classify import PLANS, PositionType, classify
from pulvezar.rating import DecisionError, error_rate, grade, performance_rating

if TYPE_CHECKING:
    from pulvezar.analysis.bots import Bot
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
    from pulvezar.analysis.shots import Shots, shots

_LAZY = {
    "pulvezar.analysis.bots": ("Bot",),
    "pulvezar.analysis.decisions": (
        "BLUNDER", "ERROR", "LUCKY", "VERY_LUCKY", "Luck", "PlayError", "luck", "play_error", "roll_values",
    ),
    "pulvezar.analysis.explain": ("Explanation", "explain"),
    "pulvezar.analysis.match": (
        "AnalysisSettings", "DecisionAnalysis", "GameAnalysis", "MatchAnalysis", "analyse_game",
        "analyse_match", "annotated_sgf", "summarise",
    ),
    "pulvezar.analysis.shots": ("Shots", "shots"),
}  # fmt: skip
_WHERE = {name: module for module, names in _LAZY.items() for name in names}
# submodules that export a function of their own name: the package attribute is the function
_SAME_NAME = frozenset({"classify", "explain", "shots"})


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """Keeps ``pulvezar.analysis.explain`` (and ``classify``, ``shots``) the function after the
    submodule of that name is imported, as an eagerly importing package would leave it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _SAME_NAME and isinstance(value, types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

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
