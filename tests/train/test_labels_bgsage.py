"""Open Sage (``bgsage``) as a teacher: its board orientation and ply numbering, checked against gnubg-nn.

Open Sage values a board seen by the player on roll as 26 signed counts and numbers its raw net "1ply";
:func:`pulvezar.train.labels.sage_board` and the ``bgsage-Nply`` teachers convert both.  Two independent
engines agree only roughly, so the checks are the ones a wrong conversion fails by far: a swapped side
or a mirrored board moves the win chance by tens of percent, a bar on the wrong side by more.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pulvezar import Position
from pulvezar.eval.evaluator import boards_of
from pulvezar.rules.rules import Rules
from pulvezar.train.corpus import boards_of_keys, read_npz
from pulvezar.train.labels import sage_board, teach

bgsage = pytest.importorskip("bgsage")
pytest.importorskip("gnubg_nn")

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "positions.npz"
INTL = Rules.international()


def test_starting_position_is_open_sages() -> None:
    from bgsage.board import STARTING_BOARD, flip_board

    start = boards_of([Position.start()])[0]
    assert sage_board(start) == STARTING_BOARD
    p = Position.from_points({2: 2, 3: 2, 4: 3, 25: 1}, {24: 3, 13: 5, 8: 2, 6: 4, 25: 1})
    assert sage_board(boards_of([p.swap()])[0]) == flip_board(sage_board(boards_of([p])[0]))


def test_orientation_against_gnubg() -> None:
    # the player on roll has 7 checkers left in his home board, the opponent 15 far behind
    p = Position.from_points({2: 2, 3: 2, 4: 3}, {24: 3, 13: 5, 8: 2, 6: 5})
    for board in (p, p.swap()):
        b = boards_of([board])
        s, g = teach("bgsage-0ply", b, INTL)[0], teach("gnubg-nn-0ply", b, INTL)[0]
        assert np.abs(s - g).max() < 0.05, (s, g)
    # a checker on each bar: the side that must enter against a 5-point board is the underdog
    theirs = {25: 1, 6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 8: 3, 13: 1}
    q = Position.from_points({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, theirs)
    b = boards_of([q, q.swap()])
    s, g = teach("bgsage-0ply", b, INTL), teach("gnubg-nn-0ply", b, INTL)
    assert np.abs(s[:, 0] - g[:, 0]).max() < 0.08, (s, g)
    assert s[0, 0] < 0.5 < s[1, 0]


@pytest.mark.parametrize("ply", [0, 1])
def test_corpus_agreement_with_gnubg_at_each_ply(ply: int) -> None:
    corpus = read_npz(CORPUS)
    keys = corpus["keys"][corpus["rules"] == 0][:150]
    boards = boards_of_keys(keys)
    s = teach(f"bgsage-{ply}ply", boards, INTL)
    g = teach(f"gnubg-nn-{ply}ply", boards, INTL)

    def equity(p: np.ndarray) -> np.ndarray:
        return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]

    # measured 2026-12-03 on 300 positions: mean |diff| 0.011 / 0.007 (win),
    # equity correlation 0.9989 / 0.9994
    assert np.abs(s - g).mean(axis=0).max() < 0.02
    assert np.corrcoef(equity(s), equity(g))[0, 1] > 0.995


def test_tavla_is_refused() -> None:
    with pytest.raises(ValueError, match="Tavla"):
        teach("bgsage-0ply", boards_of([Position.start()]), Rules.tavla())
