"""Which decisions count, and the PR: :mod:`pulvezar.rating`, under its analysis name.

The definition lives in :mod:`pulvezar.rating`, below the match-file readers that
also use it; this module is the same names, so ``pulvezar.analysis.rating`` keeps working.
"""

from pulvezar.rating import (
    CLOSE_CUBE,
    GRADES,
    DecisionError,
    DecisionKind,
    counted,
    cube_counts,
    error_rate,
    grade,
    performance_rating,
)

__all__ = [
    "CLOSE_CUBE",
    "GRADES",
    "DecisionError",
    "DecisionKind",
    "counted",
    "cube_counts",
    "error_rate",
    "grade",
    "performance_rating",
]
