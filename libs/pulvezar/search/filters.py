"""Move filters: which candidates a deeper search looks at.

A search at ``n`` plies evaluates every legal play at 0-ply, then screens the
candidates before each deeper level.  :class:`FilterStage` ``(keep, extra,
threshold)`` keeps the ``keep`` best candidates (at least one) plus up to
``extra`` more whose equity is within ``threshold`` of the best, as GNU
Backgammon's move filters do.  ``MoveFilter.stages[k]`` screens the candidates
valued at ``k`` plies; ``None`` skips the screen at that level (the candidates
go on to the next level unscreened and are not valued at ``k`` plies at all).
Plays screened out keep the value of the last level they reached.

Presets (the screen at 0-ply, none at 1-ply, the screen at 2-ply used by 3-ply
searches):

========  =====================  ======  =====================
name      0-ply (keep/extra/thr)  1-ply   2-ply (keep/extra/thr)
========  =====================  ======  =====================
tiny      1 / 5 / 0.08           --      1 / 2 / 0.02
normal    1 / 8 / 0.16           --      1 / 2 / 0.04
large     1 / 16 / 0.32          --      1 / 4 / 0.08
========  =====================  ======  =====================

1-ply values are skipped by the presets because odd and even plies disagree
systematically (an odd ply ends on the opponent's reply); screening a 2- or
3-ply search on them would compare different biases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True, slots=True)
class FilterStage:
    """Keep the ``keep`` best, plus up to ``extra`` more within ``threshold`` of the best."""

    keep: int = 1
    extra: int = 8
    threshold: float = 0.16

    def __post_init__(self) -> None:
        if self.keep < 1 or self.extra < 0 or self.threshold < 0:
            raise ValueError("a filter stage needs keep >= 1, extra >= 0, threshold >= 0")

    def select(self, equities: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
        """Indices of the kept candidates, best first (ties keep the earlier index)."""
        order = np.argsort(-equities, kind="stable")
        best = equities[order[0]]
        head = order[: self.keep]
        tail = order[self.keep : self.keep + self.extra]
        tail = tail[equities[tail] >= best - self.threshold - 1e-12]
        return np.concatenate([head, tail]).astype(np.intp)


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """Screens per ply: ``stages[k]`` acts on values at ``k`` plies (``None``: no screen)."""

    name: str
    stages: tuple[FilterStage | None, ...]

    def stage(self, ply: int) -> FilterStage | None:
        """The screen at ``ply``; past the last stage there is none."""
        return self.stages[ply] if ply < len(self.stages) else None


FILTERS: dict[str, MoveFilter] = {
    "tiny": MoveFilter("tiny", (FilterStage(1, 5, 0.08), None, FilterStage(1, 2, 0.02))),
    "normal": MoveFilter("normal", (FilterStage(1, 8, 0.16), None, FilterStage(1, 2, 0.04))),
    "large": MoveFilter("large", (FilterStage(1, 16, 0.32), None, FilterStage(1, 4, 0.08))),
}


def move_filter(spec: str | MoveFilter | None = None) -> MoveFilter:
    """A preset by name (``None``: ``"normal"``) or a custom :class:`MoveFilter`."""
    if spec is None:
        return FILTERS["normal"]
    if isinstance(spec, MoveFilter):
        return spec
    try:
        return FILTERS[spec]
    except KeyError:
        raise ValueError(f"unknown move filter {spec!r}; presets: {', '.join(FILTERS)}") from None
