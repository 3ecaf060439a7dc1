"""``hint``: the candidates of one roll, best first, at a ply or a playing level.

Levels (``noise`` is the standard deviation, in equity, of the deterministic
noise added to each candidate before ordering, so that a level plays weaker):

==========  =====  ======  =====
level       plies  filter  noise
==========  =====  ======  =====
easy        0      --      0.06
medium      0      --      0.02
hard        1      normal  0
master      2      normal  0
==========  =====  ======  =====

The noise is seeded by ``seed``, the board and the play, so the same decision
always gets the same noise (as GNU Backgammon's "deterministic noise").
Without ``ply`` and ``level`` a hint is 0-ply: the net's choice, fast.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np

from pulvezar.eval.evaluator import Evaluator, default_evaluator
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from pulvezar.search.filters import MoveFilter
from pulvezar.search.plies import Candidate, Search


@dataclass(frozen=True, slots=True)
class Level:
    """A playing strength: search depth, move filter and evaluation noise."""

    name: str
    ply: int
    filter: str
    noise: float


LEVELS: dict[str, Level] = {
    "easy": Level("easy", 0, "normal", 0.06),
    "medium": Level("medium", 0, "normal", 0.02),
    "hard": Level("hard", 1, "normal", 0.0),
    "master": Level("master", 2, "normal", 0.0),
}

_SEARCHES: dict[tuple[int, Rules], Search] = {}


def searcher(evaluator: Evaluator | None = None, rules: Rules | None = None) -> Search:
    """The shared :class:`Search` (and cache) of an evaluator and rule set."""
    ev: Evaluator = evaluator if evaluator is not None else default_evaluator()
    rules = rules or Rules.international()
    key = (id(ev), rules)
    s = _SEARCHES.get(key)
    if s is None or s.evaluator is not ev:
        if len(_SEARCHES) >= 8:
            _SEARCHES.pop(next(iter(_SEARCHES)))
        s = _SEARCHES[key] = Search(ev, rules)
    return s


def _noise(seed: int, board: bytes, result: bytes, sigma: float) -> float:
    digest = hashlib.blake2b(board + result, digest_size=8, key=seed.to_bytes(8, "little", signed=True))
    rng = np.random.default_rng(int.from_bytes(digest.digest(), "little"))
    return float(rng.normal(0.0, sigma))


def hint(
    position: Position,
    dice: tuple[int, int],
    *,
    ply: int | None = None,
    level: str | None = None,
    rules: Rules | None = None,
    evaluator: Evaluator | None = None,
    filter: str | MoveFilter | None = None,
    seed: int = 0,
) -> list[Candidate]:
    """The legal plays of ``dice`` ordered by (noisy) equity, best first.

    ``ply`` overrides the level's depth and ``filter`` its move filter.  Each
    :class:`Candidate` has the notation, the cubeless probabilities and equity
    of the player on roll, the ply it was valued at and its loss against the
    best candidate.

    >>> hint(Position.start(), (3, 1))[0].notation
    '8/5 6/5'
    """
    lv: Level | None = None
    if level is not None:
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
        lv = LEVELS[level]
    depth = ply if ply is not None else (lv.ply if lv else 0)
    mf = filter if filter is not None else (lv.filter if lv else None)
    cands = searcher(evaluator, rules).rank(position, dice, depth, mf)
    sigma = lv.noise if lv else 0.0
    if sigma > 0 and len(cands) > 1:
        board = position.board
        cands = [replace(c, noise=_noise(seed, board, c.play.position.board, sigma)) for c in cands]
        cands.sort(key=lambda c: (-c.ply, -c.score))
    return cands
