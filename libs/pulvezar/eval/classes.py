"""Position classes of the evaluator's routing that need more than one test: GNU Backgammon's crashed test.

The evaluator (:class:`pulvezar.eval.evaluator.NetEvaluator`) sends contact positions with a crashed side
to its crashed net when the model has one; :func:`pulvezar.train.corpus.classify` labels them ``crashed``.
The C flags (:func:`pulvezar.eval.evaluator.board_flags`, ``FLAG_CRASHED``) compute the same test.

>>> from pulvezar import Position
>>> from pulvezar.eval.evaluator import boards_of
>>> start = Position.start()
>>> late = Position.from_points({1: 2, 2: 2, 7: 1}, {20: 1, 13: 5, 8: 4, 6: 5})  # five checkers left
>>> crashed(boards_of([start, late])).tolist()
[False, True]
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["CRASHED_CHECKERS", "crashed"]

CRASHED_CHECKERS = 6
"""gnubg's ``N`` of ``ClassifyPosition``: a side with about this many checkers left in play is crashed."""


def crashed(boards: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """GNU Backgammon's crashed test (``ClassifyPosition``, N = 6), for either side.

    A side is crashed when it has at most 6 checkers in play (not borne off), or more than
    one checker on its ace point and at most 6 others in play, or more than one on each of
    its ace and deuce points and at most 6 in play besides those two points' checkers but
    one, or at most 5 plus its deuce-point checkers in play.  Only meaningful for contact
    positions (the evaluator and :func:`pulvezar.train.corpus.classify` apply it there).
    """
    b = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50).astype(np.int32)
    out = np.zeros(len(b), dtype=bool)
    n = CRASHED_CHECKERS
    for side in (b[:, :25], b[:, 25:]):
        tot = side.sum(axis=1)
        p1, p2 = side[:, 0], side[:, 1]
        c = tot <= n
        many1 = p1 > 1
        c |= many1 & (tot <= n + p1)
        c |= many1 & (tot > n + p1) & (p2 > 1) & (1 + tot - (p1 + p2) <= n)
        c |= ~many1 & (tot <= n + (p2 - 1))
        out |= c
    return out
