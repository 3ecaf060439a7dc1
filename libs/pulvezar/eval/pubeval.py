"""PubEval: Tesauro's public linear move evaluator, the field's classic baseline opponent.

It scores the position after each candidate play, seen by the side that just
moved, with one of two weight vectors chosen from the position *before* the
play (race when no contact remains, else contact), and picks the highest
score.  The score is not an equity: it only ranks the plays of one roll.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt

from pulvezar.eval.encoding import contact
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules

_WEIGHTS = json.loads((Path(__file__).resolve().parent / "data" / "pubeval-weights.json").read_text())
RACE = np.asarray(_WEIGHTS["race"], dtype=np.float64)
CONTACT = np.asarray(_WEIGHTS["contact"], dtype=np.float64)


def inputs(results: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """The 122 PubEval inputs of ``(N, 50)`` boards seen by the side that just moved."""
    b = results.astype(np.float64)
    mover = b[:, :24]  # mover's points 1..24
    opp = b[:, 25:49][:, ::-1]  # opponent's count on the mover's points 1..24
    # groups run over the mover's points 24, 23, ..., 1
    n, m = mover[:, ::-1], opp[:, ::-1]
    x = np.zeros((len(b), 122))
    x[:, 0:120:5] = m == 1
    x[:, 1:120:5] = n == 1
    x[:, 2:120:5] = n >= 2
    x[:, 3:120:5] = n == 3
    x[:, 4:120:5] = np.where(n >= 4, (n - 3.0) / 2.0, 0.0)
    x[:, 120] = b[:, 49] / 2.0
    x[:, 121] = (15.0 - b[:, :25].sum(axis=1)) / 15.0
    return x


def scores(before: npt.NDArray[np.uint8], results: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    """PubEval scores of candidate ``results`` of one position ``before`` (shape ``(50,)``)."""
    w = CONTACT if contact(before.reshape(1, 50))[0] else RACE
    s = inputs(results) @ w
    won = results[:, :25].sum(axis=1) == 0
    return np.where(won, 99999999.0, s)


class PubEval:
    """A player that chooses plays by PubEval's score."""

    def best_play(self, position: Position, dice: tuple[int, int], rules: Rules | None = None) -> Play:
        plays = (rules or Rules.international()).legal_plays(position, dice)
        if len(plays) == 1:
            return plays[0]
        before = np.frombuffer(position.board, dtype=np.uint8)
        results = np.frombuffer(b"".join(plays.boards()), dtype=np.uint8).reshape(-1, 50)
        return plays[int(np.argmax(scores(before, results)))]
