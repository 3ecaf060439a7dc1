"""Search: N-ply lookahead with move filters and a cache, and ``hint``.

>>> from pulvezar import Position
>>> [c.notation for c in hint(Position.start(), (6, 5))][:1]
['24/13']
"""

from pulvezar.search.cache import CachedEvaluator, EvalCache
from pulvezar.search.filters import FILTERS, FilterStage, MoveFilter, move_filter
from pulvezar.search.hint import STRENGTHS, Strength, hint, searcher
from pulvezar.search.plies import (
    MAX_PLY,
    PRUNE_KEEP,
    ROLL_WEIGHTS,
    ROLLS,
    Candidate,
    Prune,
    Search,
    default_prune,
    pruning,
)

__all__ = [
    "FILTERS",
    "MAX_PLY",
    "PRUNE_KEEP",
    "ROLLS",
    "ROLL_WEIGHTS",
    "STRENGTHS",
    "CachedEvaluator",
    "Candidate",
    "EvalCache",
    "FilterStage",
    "MoveFilter",
    "Prune",
    "Search",
    "Strength",
    "default_prune",
    "hint",
    "move_filter",
    "pruning",
    "searcher",
]
