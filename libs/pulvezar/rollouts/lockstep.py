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
    Boards,
    Evaluator,
    Probs,
    default_evaluator,
    equity,
    evaluate_plays,
    exact_races,
    flip,
    for_rules,
    screen_evaluator,
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


def plays_of(boards: Boards, dice: Ints, rules: Rules) -> tuple[Boards, npt.NDArray[np.intp]]:
    """Every legal play of each board's roll, as boards with the opponent on roll (each board's in
    generator order, board after board), and the number of plays of each board."""
    raw = np.ascontiguousarray(boards, dtype=np.uint8).tobytes()
    rolled = np.ascontiguousarray(dice, dtype=np.uint8).tobytes()
    out, counts = _kernel.generate_many(raw, rolled, rules.kernel_flags)
    after = swap_boards(np.frombuffer(out, dtype=np.uint8).reshape(-1, 50))
    return after, np.frombuffer(counts, dtype=np.int64).astype(np.intp)


def _mover_values(
    evaluator: Evaluator, boards: Boards, index: npt.NDArray[np.intp], after: Boards, rules: Rules
) -> tuple[Probs, npt.NDArray[np.float64]]:
    """The mover's probabilities and cubeless equities after each play (``after``: opponent on roll;
    ``after[i]`` a play of ``boards[index[i]]``)."""
    probs = evaluate_plays(evaluator, boards, index, after)
    done, exact = terminal(after)
    probs[done] = exact[done]
    mover = flip(probs)
    return mover, equity(mover, rules)


def _first_best(values: npt.NDArray[np.float64], seg: Ints, starts: Ints) -> npt.NDArray[np.intp]:
    """Per segment (``seg``: each row's, ``starts``: each segment's first row), the first row whose
    value is the segment's best within 1e-12 (the chooser's "first of equals")."""
    best = np.maximum.reduceat(values, starts)
    is_best = values >= best[seg] - 1e-12
    first = np.full(len(starts), len(values), dtype=np.intp)
    np.minimum.at(first, seg[is_best], np.flatnonzero(is_best))
    return first


def greedy_chooser(boards: Boards, dice: Ints, rules: Rules, evaluator: Evaluator) -> tuple[Boards, Probs]:
    """0-ply: the play with the best cubeless equity by the evaluator (first of equals)."""
    after, counts = plays_of(boards, dice, rules)
    mover, eq = _mover_values(evaluator, boards, np.repeat(np.arange(len(counts)), counts), after, rules)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
    first = _first_best(eq, np.repeat(np.arange(len(counts)), counts), starts)
    return np.ascontiguousarray(after[first]), mover[first]


def screened_chooser(screen: Evaluator, keep: int = 3) -> Chooser:
    """0-ply among the ``keep`` best plays by a cheap ``screen`` evaluator: every legal play is
    valued by ``screen``, the ``keep`` best of each roll (ties in generator order) by the
    rollout's evaluator, and the best of those wins (first of equals).

    A pure function of the boards and dice like every chooser, so it can value the 21 rolls of
    variance reduction (``luck_chooser`` of a rollout): the luck terms keep their zero mean
    whatever the screen misses, the trials' own plays stay the rollout chooser's, and only the
    variance removed depends on how often the screen's ``keep`` best hold the evaluator's best.
    """
    if keep < 1:
        raise ValueError("keep is at least 1")

    def choose(boards: Boards, dice: Ints, rules: Rules, evaluator: Evaluator) -> tuple[Boards, Probs]:
        after, counts = plays_of(boards, dice, rules)
        n = len(counts)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        seg = np.repeat(np.arange(n), counts)
        cheap = equity(flip(screen.evaluate_boards(after)), rules)
        kept = np.zeros(len(after), dtype=bool)
        for _ in range(keep):  # the best not yet kept of each roll, the first of equals
            first = _first_best(np.where(kept, -np.inf, cheap), seg, starts)
            kept[first[first < len(after)]] = True
        rows = np.flatnonzero(kept)  # generator order within each roll
        mover, eq = _mover_values(evaluator, boards, seg[rows], after[rows], rules)
        kseg = seg[rows]
        pick = _first_best(eq, kseg, np.searchsorted(kseg, np.arange(n)).astype(np.intp))
        return np.ascontiguousarray(after[rows[pick]]), mover[pick]

    return choose


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
    luck_chooser: Chooser | None = None  # values the 21 rolls of variance reduction (default: chooser)


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
    probability-weighted mean over the rolls, in our view.  With a ``luck_chooser`` the 21
    rolls are valued by it instead, and each distinct (board, roll) of the lanes is played
    by the chooser.
    """
    dice = trial_rolls(s.seed, trial_ids[ids], step)
    if not s.variance_reduction:
        return _Moves(s.chooser(board[ids], dice, s.rules, s.evaluator)[0])
    uniq, inv = np.unique(board[ids], axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    nu = len(uniq)
    after_all, probs_all = (s.luck_chooser or s.chooser)(
        np.repeat(uniq, len(ROLLS), axis=0), np.tile(ROLLS, (nu, 1)), s.rules, s.evaluator
    )
    mover_mean = (probs_all.reshape(nu, len(ROLLS), 5) * ROLL_WEIGHTS[None, :, None]).sum(axis=1)
    roll = _ROLL_INDEX[dice[:, 0], dice[:, 1]]
    pick = inv * len(ROLLS) + roll
    other = ~ours[ids]
    luck = _view(probs_all[pick], other) - _view(mover_mean[inv], other)
    if s.luck_chooser is None:
        after = after_all[pick]
    else:  # the lanes' own plays by the chooser, once per distinct (board, roll)
        cells, cell_of = np.unique(pick, return_inverse=True)
        after = s.chooser(uniq[cells // len(ROLLS)], ROLLS[cells % len(ROLLS)], s.rules, s.evaluator)[0]
        after = after[cell_of.reshape(-1)]
    return _Moves(after, luck, after_all, probs_all, inv, roll)


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
        ends[ids] |= exact_races(s.evaluator, after)
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

    covered = exact_races(s.evaluator, board) if s.bearoff_stop else np.zeros(lanes, dtype=bool)
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


#: how variance reduction values the 21 rolls: ``"screened"`` (0-ply rollouts: the evaluator's best of
#: the plays that a cheap net ranks first, :func:`screened_chooser`) or ``"full"`` (every play, by the
#: rollout's own chooser)
LUCK = ("screened", "full")
SCREEN_KEEP = 4


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
    luck: str | Chooser = "screened",
) -> _Setup:
    """The settings of one rollout run (``chooser``: see :func:`~pulvezar.rollouts.choosers.chooser_for`;
    ``luck``: one of :data:`LUCK` (screening applies to the 0-ply chooser :func:`greedy_chooser`, a
    deeper or another chooser values the 21 rolls itself) or a chooser that values them)."""
    if callable(luck):
        luck_chooser: Chooser | None = luck
    elif luck not in LUCK:
        raise ValueError(f"luck is one of {', '.join(LUCK)} or a chooser, got {luck!r}")
    else:
        screen = variance_reduction and luck == "screened" and chooser is greedy_chooser
        luck_chooser = _screened() if screen else None
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
        for_rules(evaluator or default_evaluator(), rules),  # the model's own nets for the rule set
        chooser,
        luck_chooser if variance_reduction else None,
    )


def _screened() -> Chooser:
    """The shipped screen's chooser (one per process)."""
    global _SCREENED
    if _SCREENED is None:
        _SCREENED = screened_chooser(screen_evaluator(), SCREEN_KEEP)
    return _SCREENED


_SCREENED: Chooser | None = None
