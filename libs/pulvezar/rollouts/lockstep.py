"""The lockstep core of the rollout engine: trials advancing together, one batch per half-move.

:mod:`pulvezar.rollouts.engine` (cubeless runs) and :mod:`pulvezar.rollouts.cube`
(cube play inside the trials) both drive these steps; the deeper move choosers
(:mod:`pulvezar.rollouts.choosers`) plug in as a :data:`Chooser`.  See the engine's
notes for variance reduction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import (
    BearoffRaces,
    Boards,
    Evaluator,
    Probs,
    default_evaluator,
    equity,
    flip,
    swap_boards,
    terminal,
)
from pulvezar.rollouts.dice import trial_rolls
from pulvezar.rules import _kernel
from pulvezar.rules.rules import Rules

Ints = npt.NDArray[np.int64]

#: ``chooser(boards, dice, rules, evaluator) -> (next_boards, mover_probs)``: for each
#: ``(N, 50)`` board (side on roll) and ``(N, 2)`` roll, the board after the chosen play
#: (opponent on roll) and the chooser's five probabilities for the mover after it.
Chooser = Callable[[Boards, Ints, Rules, Evaluator], tuple[Boards, Probs]]

ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)  # 21 rolls
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
_ROLL_INDEX = np.zeros((7, 7), dtype=np.int64)
for _i, (_a, _b) in enumerate(ROLLS):
    _ROLL_INDEX[_a, _b] = _ROLL_INDEX[_b, _a] = _i


def _flags(rules: Rules) -> int:
    return (_kernel.HIT_AND_STOP if rules.hit_and_stop else 0) | (
        _kernel.MUST_BEAR_OFF if rules.must_bear_off else 0
    )


def greedy_chooser(boards: Boards, dice: Ints, rules: Rules, evaluator: Evaluator) -> tuple[Boards, Probs]:
    """0-ply: the play with the best cubeless equity by the evaluator (first of equals)."""
    gen, rec, flags = _kernel.generate, _kernel.REC, _flags(rules)
    recs = [gen(b.tobytes(), int(d[0]), int(d[1]), flags) for b, d in zip(boards, dice, strict=True)]
    counts = np.fromiter((len(r) // rec for r in recs), dtype=np.intp, count=len(recs))
    after = swap_boards(np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, rec)[:, :50])
    probs = evaluator.evaluate_boards(after)  # opponent on roll
    done, exact = terminal(after)
    probs[done] = exact[done]
    mover = flip(probs)
    eq = equity(mover, rules)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    seg = np.repeat(np.arange(len(recs)), counts)
    best = np.maximum.reduceat(eq, starts)
    is_best = eq >= best[seg] - 1e-12
    first = np.full(len(recs), len(eq), dtype=np.intp)
    np.minimum.at(first, seg[is_best], np.flatnonzero(is_best))
    return np.ascontiguousarray(after[first]), mover[first]


@dataclass(frozen=True)
class _Setup:
    trials: int
    seed: int
    first_trial: int
    variance_reduction: bool
    truncate: int | None
    bearoff_stop: bool
    rules: Rules
    evaluator: Evaluator
    chooser: Chooser


def _view(probs: Probs, other: npt.NDArray[np.bool_]) -> Probs:
    """Probabilities of a side on roll, turned into the rollout side's view (``other``: not us)."""
    out = probs.copy()
    if other.any():
        out[other] = flip(probs[other])
    return out


@dataclass(frozen=True)
class _Moves:
    """One half-move of the live lanes ``ids``: the boards after the chosen plays and, under
    variance reduction, the luck (our view) with what it was computed from."""

    after: Boards  # per live lane, the opponent on roll
    luck: Probs | None = None  # per live lane: our view of (value of the roll) - (mean over the rolls)
    after_all: Boards | None = None  # per distinct board (``inv``) x each of the 21 ``ROLLS``
    probs_all: Probs | None = None  # the mover's probabilities after each of those plays
    inv: Ints | None = None  # the distinct board of each live lane
    roll: Ints | None = None  # the index into ``ROLLS`` of each live lane's roll


def _move(
    board: Boards, ours: npt.NDArray[np.bool_], ids: Ints, trial_ids: Ints, step: int, s: _Setup
) -> _Moves:
    """Choose the plays of half-move ``step`` for the live lanes ``ids`` (their own dice).

    Under variance reduction the chooser is asked for all 21 rolls of every distinct board;
    each lane takes its roll's play, and its luck is that play's value minus the
    probability-weighted mean over the rolls, in our view.
    """
    dice = trial_rolls(s.seed, trial_ids[ids], step)
    if not s.variance_reduction:
        return _Moves(s.chooser(board[ids], dice, s.rules, s.evaluator)[0])
    uniq, inv = np.unique(board[ids], axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    nu = len(uniq)
    after_all, probs_all = s.chooser(
        np.repeat(uniq, len(ROLLS), axis=0), np.tile(ROLLS, (nu, 1)), s.rules, s.evaluator
    )
    mover_mean = (probs_all.reshape(nu, len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
    roll = _ROLL_INDEX[dice[:, 0], dice[:, 1]]
    pick = inv * len(ROLLS) + roll
    other = ~ours[ids]
    luck = _view(probs_all[pick], other) - _view(mover_mean[inv], other)
    return _Moves(after_all[pick], luck, after_all, probs_all, inv, roll)


def _advance(
    board: Boards, ours: npt.NDArray[np.bool_], ids: Ints, after: Boards, step: int, s: _Setup
) -> npt.NDArray[np.bool_]:
    """Play ``after`` into the lanes ``ids`` (``step`` half-moves done now); the lanes that end:
    finished, a covered bear-off race (``bearoff_stop``) or truncation."""
    board[ids] = after
    ours[ids] = ~ours[ids]
    ends = np.zeros(len(board), dtype=bool)
    ends[ids] = terminal(after)[0]
    if s.bearoff_stop:
        ends[ids] |= BearoffRaces.covers(after)
    if s.truncate is not None and step >= s.truncate:
        ends[ids] = True
    return ends


def _simulate(start: Boards, us_on_roll: npt.NDArray[np.bool_], trial_ids: Ints, s: _Setup) -> Probs:
    """Roll out ``start`` boards (one lane each) to the end; per-lane values in our view."""
    lanes = len(start)
    board = np.ascontiguousarray(start, dtype=np.uint8).copy()
    ours = us_on_roll.copy()
    luck = np.zeros((lanes, 5))
    value = np.zeros((lanes, 5))
    alive = np.ones(lanes, dtype=bool)

    def stop(mask: npt.NDArray[np.bool_]) -> None:
        """End the lanes of ``mask``: exact results where finished, else the evaluator's value."""
        idx = np.flatnonzero(mask & alive)
        if len(idx) == 0:
            return
        done, exact = terminal(board[idx])
        probs = exact
        if (~done).any():
            probs[~done] = s.evaluator.evaluate_boards(board[idx[~done]])
        value[idx] = _view(probs, ~ours[idx])
        alive[idx] = False

    covered = BearoffRaces.covers(board) if s.bearoff_stop else np.zeros(lanes, dtype=bool)
    stop(terminal(board)[0] | covered | (s.truncate == 0))
    step = 0
    while alive.any():
        ids = np.flatnonzero(alive)
        moves = _move(board, ours, ids, trial_ids, step, s)
        if moves.luck is not None:
            luck[ids] += moves.luck
        step += 1
        stop(_advance(board, ours, ids, moves.after, step, s))
    return value - luck


def _setup(
    trials: int,
    ply: int,
    seed: int,
    first_trial: int,
    variance_reduction: bool,
    cubeful: bool,
    truncate: int | None,
    bearoff_stop: bool,
    evaluator: Evaluator | None,
    rules: Rules | None,
    chooser: Chooser,
) -> _Setup:
    """The settings of one rollout run (``chooser``: see :func:`~pulvezar.rollouts.choosers.chooser_for`)."""
    if trials < 1 or first_trial < 0:
        raise ValueError("trials must be positive and first_trial non-negative")
    if truncate is not None and truncate < 0:
        raise ValueError("truncate is a non-negative number of half-moves")
    return _Setup(
        trials,
        seed,
        first_trial,
        variance_reduction,
        truncate,
        bearoff_stop,
        rules or Rules.international(),
        evaluator or default_evaluator(),
        chooser,
    )
