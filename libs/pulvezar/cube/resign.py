"""Resignations: accept or reject an offer, and when to resign.

A resignation at level ``k`` (1 single, 2 gammon, 3 backgammon) settles the game
for ``k`` times the cube.  The side that is offered it accepts when that is
worth at least the cubeful equity of playing on (:func:`cube_decision`, the
cube action included), money-normalised or, in a match, in match-winning
chances.

:func:`sure_loss` proves a race lost without any evaluator: with the player on
roll needing at least ``m`` rolls (each checker on point ``p`` needs
``ceil(p / 6)`` die moves, a roll gives at most four) and the opponent at most
``n`` rolls (the one-sided bear-off database's longest bear-off when all its
checkers are home, else ``ceil(pips / 2)``: every roll moves at least two
pips), the player on roll loses for sure when ``m > n``; likewise a gammon
(no checker off after ``n`` rolls) and a backgammon (a checker still in the
opponent's home board).

>>> from pulvezar.rules.position import Position
>>> sure_loss(Position.from_points({19: 15}, {1: 2}))   # backgammoned whatever the dice
3
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

import numpy as np

from pulvezar.cube.decision import cube_decision
from pulvezar.cubeful.state import CubeState
from pulvezar.errors import PulvezarError
from pulvezar.rules.position import Position

if TYPE_CHECKING:
    from pulvezar.eval.bearoff import OneSidedBearoff
    from pulvezar.eval.evaluator import Evaluator

Side = Literal["player", "opponent"]


@dataclass(frozen=True, slots=True)
class ResignationDecision:
    """The answer to a resignation, from the side offered it (the acceptor).

    ``value`` is what accepting gives the acceptor, ``play_on`` the cubeful
    equity of rejecting, both normalised to the cube (match: EMG, with
    ``mwc_value``/``mwc_play_on`` as match-winning chances); ``cost`` is what
    the wrong answer loses.
    """

    level: int
    resigner: Side
    value: float
    play_on: float
    accept: bool
    cost: float
    mwc_value: float | None = None
    mwc_play_on: float | None = None


def _moves(side: tuple[int, ...], beyond: int = 0) -> int:
    """Die moves (at most 6 pips each) to carry every checker past point ``beyond``."""
    return sum(n * -(-(i + 1 - beyond) // 6) for i, n in enumerate(side) if i + 1 > beyond)


@cache
def _bearoff() -> OneSidedBearoff:
    from pulvezar.eval.bearoff import OneSidedBearoff

    return OneSidedBearoff.default()


def _max_rolls(side: tuple[int, ...]) -> int:
    """An upper bound on the rolls that ``side`` needs to bear off (playing to finish fast)."""
    if sum(side[6:]) == 0:
        dist = _bearoff().off_distribution(side[:6])
        return int(np.flatnonzero(dist > 0).max(initial=0))
    pips = sum((i + 1) * n for i, n in enumerate(side))
    return -(-pips // 2)


def sure_loss(position: Position) -> int:
    """The level (0 none, 1 single, 2 gammon, 3 backgammon) that the player on roll
    is certain to lose in a race, whatever the dice (0 with contact).

    >>> from pulvezar.rules.position import Position
    >>> sure_loss(Position.from_points({6: 2}, {1: 1}))   # the opponent is off next roll
    0
    >>> sure_loss(Position.from_points({6: 2, 12: 1}, {1: 1}))
    0
    >>> sure_loss(Position.from_points({6: 3, 12: 1}, {1: 1}))
    1
    """
    if position.is_contact():
        return 0
    me, them = position.mine, position.theirs
    if sum(me) == 0 or sum(them) == 0:
        return 0
    n = _max_rolls(them)
    if -(-_moves(me) // 4) <= n:
        return 0
    level = 1
    if sum(me) == 15 and -(-(_moves(me, 6) + 1) // 4) > n:
        level = 2
        if -(-_moves(me, 18) // 4) > n:
            level = 3
    return level


def _level_cap(state: CubeState, resigner: Side) -> int:
    """The highest meaningful level: a single once the resigner has borne off, Jacoby
    with the cube centred; in a match the first level that wins the match."""
    pos = state.position if resigner == "player" else state.position.swap()
    top = 3
    if pos.off()[0] > 0 or (state.jacoby and state.cube_owner == "centre" and not state.match_length):
        top = 1
    if state.match_length:
        need = state.match_length - state.score[1 if resigner == "player" else 0]
        for level in range(1, top + 1):
            if state.cube_value * level >= need:
                return level
    return top


def should_resign(
    state: CubeState, evaluator: Evaluator | None = None, threshold: float = 1e-5
) -> int | None:
    """The level at which the player on roll should resign now, or ``None`` to play on.

    A race proved lost (:func:`sure_loss`) is resigned at the level it is sure to
    lose.  Otherwise, with ``threshold > 0``, the evaluator's 0-ply probabilities
    decide: P(win) at most ``threshold``, resigning the highest level lost with
    probability at least ``1 - threshold``.  Levels beyond what the game can give
    (:func:`_level_cap`) are not offered.

    >>> from pulvezar.rules.position import Position
    >>> should_resign(CubeState(Position.from_points({6: 5}, {1: 1})), threshold=0)
    1
    """
    level = sure_loss(state.position)
    if level == 0 and threshold > 0:
        from pulvezar.eval.evaluator import default_evaluator

        ev = evaluator if evaluator is not None else default_evaluator()
        board = np.frombuffer(state.position.board, dtype=np.uint8).reshape(1, 50)
        p = ev.evaluate_boards(board)[0]
        if p[0] <= threshold:
            level = 1 + int(p[3] >= 1 - threshold) + int(p[3] >= 1 - threshold and p[4] >= 1 - threshold)
    if level == 0:
        return None
    return min(level, _level_cap(state, "player"))


def resignation_decision(
    state: CubeState,
    level: int,
    *,
    resigner: Side = "player",
    evaluator: Evaluator | None = None,
    ply: int = 0,
    prune: bool = True,
) -> ResignationDecision:
    """Whether the side offered a resignation at ``level`` should accept it.

    ``resigner`` is the side that offers (by default the player on roll, before
    rolling); the answer is from the other side's view.  ``ply``/``prune``: the cube decision's
    (:func:`~pulvezar.cube.decision.cube_decision`).

    >>> from pulvezar.rules.position import Position
    >>> won = CubeState(Position.from_points({6: 5}, {1: 1}))      # the roller cannot win
    >>> d = resignation_decision(won, 1)
    >>> d.accept, d.value, d.play_on
    (True, 1.0, 1.0)
    """
    if level not in (1, 2, 3):
        raise PulvezarError(f"a resignation is single (1), gammon (2) or backgammon (3), got {level}")
    d = cube_decision(state, evaluator, ply=ply, prune=prune)
    cube = state.cube
    if cube.away is None:
        play_on = -d.value if resigner == "player" else d.value
        value = float(level)
        accept = value >= play_on - 1e-9
        return ResignationDecision(level, resigner, value, play_on, accept, abs(value - play_on))
    from pulvezar.cubeful.janowski import emg

    met = state.table
    assert d.mwc_value is not None
    acceptor_cube = cube.swap() if resigner == "player" else cube
    assert acceptor_cube.away is not None
    a, b = acceptor_cube.away
    later = cube.crawford or a == 1 or b == 1
    mwc_value = met.after(a - level * cube.value, b, crawford_or_later=later)
    mwc_play_on = 1.0 - d.mwc_value if resigner == "player" else d.mwc_value
    value = float(emg(mwc_value, acceptor_cube, met))
    play_on = float(emg(mwc_play_on, acceptor_cube, met))
    accept = mwc_value >= mwc_play_on - 1e-9
    return ResignationDecision(
        level, resigner, value, play_on, accept, abs(value - play_on), mwc_value, mwc_play_on
    )


__all__ = ["ResignationDecision", "resignation_decision", "should_resign", "sure_loss"]
