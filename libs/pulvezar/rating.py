"""Which decisions count, and the performance rating (PR) computed from them.

It sits low in the library (it imports nothing of it), so that both the match analysis
(:mod:`pulvezar.analysis`, which re-exports it as :mod:`pulvezar.analysis.rating`) and the
readers of other programs' stored analyses (:mod:`pulvezar.formats.stored_analysis`) use it.

One definition, shared by pulvezar's own match analysis and by the figures
read back from other programs' stored analyses (so the two are comparable):

* errors are in **normalised equity** (EMG): money equity per unit of the cube
  in play (a single game on the present cube = 1); in a match the
  match-winning chances mapped to that scale (:func:`pulvezar.cubeful.janowski.emg`);
* a **checker play** counts when the roll left a choice: more than one
  distinct resulting position ("non-forced");
* a **doubling decision** (the player on roll, cube available to them) counts
  when the player doubled, when doubling was right (no double was an error),
  or when it was close: the best of double/take and double/pass was within
  :data:`CLOSE_CUBE` of no double;
* a **take/pass decision** (answering a double) always counts.

``PR = 500 x (sum of the counted errors) / (number of counted decisions)``,
XG's scale (mean error per counted decision in EMG x 500).  gnubg's "error
rate" is the same mean in milli-EMG (x 1000) over the same decisions.

A **grade** names a PR band (:data:`GRADES`, XG-like: the lower the better).

>>> ds = [DecisionError(0, "checker", 0.05, True), DecisionError(0, "checker", 0.0, True),
...       DecisionError(0, "checker", 0.3, False), DecisionError(1, "take", 0.1, True)]
>>> performance_rating(ds, 0)
12.5
>>> performance_rating(ds, 1)
50.0
>>> performance_rating([], 0) is None
True
>>> grade(12.5), grade(2.4), grade(None)
('Casual', 'World Class', None)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

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

CLOSE_CUBE = 0.16
GRADES: tuple[tuple[float, str], ...] = (
    (2.5, "World Class"),
    (5.0, "Expert"),
    (7.5, "Advanced"),
    (12.5, "Intermediate"),
    (17.5, "Casual"),
    (25.0, "Beginner"),
    (float("inf"), "Awful"),
)
"""``(upper bound, name)``: a PR below the bound (and not below the previous one) gets the name."""
DecisionKind = Literal["checker", "double", "take"]


@dataclass(frozen=True, slots=True)
class DecisionError:
    """One decision of ``player`` (0 or 1): its kind, the EMG it lost, whether it counts."""

    player: int
    kind: DecisionKind
    error: float
    counts: bool


def cube_counts(doubled: bool, nd: float, best_double: float) -> bool:
    """Whether a doubling decision counts: doubled, double right, or within :data:`CLOSE_CUBE`.

    ``nd`` is the no-double equity, ``best_double`` the better (for the doubler)
    of what doubling gives: min(double/take, double/pass), both normalised.

    >>> cube_counts(False, 0.40, 0.10), cube_counts(False, 0.40, 0.30), cube_counts(True, 0.9, 0.0)
    (False, True, True)
    """
    return doubled or best_double > nd or nd - best_double <= CLOSE_CUBE


def counted(decisions: Iterable[DecisionError], player: int) -> list[DecisionError]:
    """The decisions of ``player`` that count."""
    return [d for d in decisions if d.player == player and d.counts]


def performance_rating(decisions: Iterable[DecisionError], player: int) -> float | None:
    """XG-style PR of ``player``: 500 x mean counted error (``None`` without counted decisions)."""
    ds = counted(decisions, player)
    if not ds:
        return None
    return 500.0 * sum(d.error for d in ds) / len(ds)


def error_rate(decisions: Iterable[DecisionError], player: int) -> float | None:
    """gnubg-style error rate of ``player``: mean counted error in milli-EMG."""
    pr = performance_rating(decisions, player)
    return None if pr is None else 2.0 * pr


def grade(pr: float | None) -> str | None:
    """The :data:`GRADES` name of a PR (``None`` without counted decisions)."""
    if pr is None:
        return None
    return next(name for bound, name in GRADES if pr < bound)
