"""The archive: positions of analysed matches and the library, similar positions, daily puzzles.

:mod:`~pulvezar.archive.similar` holds the similarity metric and :class:`ArchiveIndex`;
:mod:`~pulvezar.archive.daily` chooses the daily position and cube decision (imports the evaluator).
"""

from pulvezar.archive.similar import (
    DEFAULT_LIMIT,
    DEFAULT_MIN_SIMILARITY,
    WEIGHTS,
    ArchiveEntry,
    ArchiveHit,
    ArchiveIndex,
    similarities,
    similarity,
)

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_MIN_SIMILARITY",
    "WEIGHTS",
    "ArchiveEntry",
    "ArchiveHit",
    "ArchiveIndex",
    "similarities",
    "similarity",
]
