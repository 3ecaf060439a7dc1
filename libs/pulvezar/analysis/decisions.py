"""Luck of a roll and error of a play.

**Luck** of a roll: the equity after the best play of the roll actually thrown
minus the average, over all rolls, of the equity after each roll's best play
(doubles weigh 1/36, other rolls 2/36).  The opening roll of international
backgammon is never a double, so its average runs over the 15 non-doubles,
equally likely.  ``|luck| >= 0.3`` is "lucky"/"unlucky", ``>= 0.6`` "very".

**Error** of a play: the best candidate's equity minus the played one's, both
at the same ply.  A loss of at least 0.02 is an error (``?``), of at least
0.08 a blunder (``??``).

Equities are cubeless for now, under the given rules (Tavla: mars = 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from pulvezar.eval.evaluator import Evaluator, equity
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.filters import MoveFilter
from pulvezar.search.hint import searcher
from pulvezar.search.plies import ROLL_WEIGHTS, ROLLS, Candidate

LUCKY = 0.3
VERY_LUCKY = 0.6
ERROR = 0.02
BLUNDER = 0.08
OPENING_ROLLS = tuple(r for r in ROLLS if r[0] != r[1])


@dataclass(frozen=True, slots=True)
class Luck:
    """How much a roll was worth against the average roll."""

    dice: tuple[int, int]
    value: float  # roll_equity - average
    roll_equity: float
    average: float

    @property
    def mark(self) -> str:
        """``"very lucky"``, ``"lucky"``, ``""``, ``"unlucky"`` or ``"very unlucky"``."""
        v = self.value
        if v >= VERY_LUCKY:
            return "very lucky"
        if v >= LUCKY:
            return "lucky"
        if v <= -VERY_LUCKY:
            return "very unlucky"
        if v <= -LUCKY:
            return "unlucky"
        return ""


def _canon(dice: tuple[int, int]) -> tuple[int, int]:
    a, b = dice
    return (a, b) if a >= b else (b, a)


def roll_values(
    position: Position,
    *,
    opening: bool = False,
    ply: int = 0,
    filter: str | MoveFilter | None = None,
    rules: Rules | None = None,
    evaluator: Evaluator | None = None,
    prune: bool = True,
) -> dict[tuple[int, int], tuple[float, float]]:
    """``{roll: (equity after its best play, probability)}``, larger die first (searched at ``ply``,
    pruned unless ``prune=False``)."""
    rules = rules or Rules.international()
    s = searcher(evaluator, rules, prune)
    if opening and rules.variant == "international":
        rolls, weights = OPENING_ROLLS, np.full(len(OPENING_ROLLS), 1.0 / len(OPENING_ROLLS))
    else:
        rolls, weights = ROLLS, ROLL_WEIGHTS
    values = s.roll_values(position, rolls, ply, filter)
    return {r: (float(v), float(w)) for r, v, w in zip(rolls, values, weights, strict=True)}


def luck(
    position: Position,
    dice: tuple[int, int],
    *,
    opening: bool = False,
    ply: int = 0,
    filter: str | MoveFilter | None = None,
    rules: Rules | None = None,
    evaluator: Evaluator | None = None,
    prune: bool = True,
) -> Luck:
    """The luck of ``dice`` thrown in ``position`` (``opening``: the game's first roll)."""
    table = roll_values(
        position, opening=opening, ply=ply, filter=filter, rules=rules, evaluator=evaluator, prune=prune
    )
    d = _canon(dice)
    if d not in table:
        raise ValueError(f"{dice} cannot be the opening roll")
    average = sum(v * w for v, w in table.values())
    rolled = table[d][0]
    return Luck(d, rolled - average, rolled, average)


@dataclass(frozen=True, slots=True)
class PlayError:
    """The loss of a play against the best one found."""

    played: Candidate
    best: Candidate
    loss: float

    @property
    def kind(self) -> Literal["ok", "error", "blunder"]:
        if self.loss >= BLUNDER:
            return "blunder"
        if self.loss >= ERROR:
            return "error"
        return "ok"

    @property
    def mark(self) -> str:
        """``"!!"`` for a blunder, as the product marks them (errors and good plays: ``""``)."""
        return "!!" if self.kind == "blunder" else ""


def play_error(
    position: Position,
    dice: tuple[int, int],
    play: Play | Position | str,
    *,
    ply: int = 0,
    filter: str | MoveFilter | None = None,
    rules: Rules | None = None,
    evaluator: Evaluator | None = None,
    prune: bool = True,
) -> PlayError:
    """How much ``play`` (a play, its resulting position or notation) loses against the best (pruned
    search unless ``prune=False``)."""
    rules = rules or Rules.international()
    s = searcher(evaluator, rules, prune)
    plays = rules.legal_plays(position, dice)
    if isinstance(play, str):
        target = plays.find(play).position
    elif isinstance(play, Play):
        target = play.position
    else:
        target = play
    if target not in plays:
        raise ValueError("that play is not legal with these dice")
    cands = s.rank(position, dice, ply, filter)
    best = cands[0]
    played = next(c for c in cands if c.play.position == target)
    if played.ply < best.ply:  # screened out: value it as deep as the best
        probs = s.play_probabilities(np.frombuffer(target.board, dtype=np.uint8).reshape(1, 50), best.ply)
        eq = float(equity(probs, rules)[0])
        p = probs[0]
        played = Candidate(
            played.play,
            (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4])),
            eq,
            best.ply,
            best.cubeless_equity - eq,
        )
    return PlayError(played, best, max(0.0, best.equity - played.equity))
