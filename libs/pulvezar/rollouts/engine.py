"""The rollout engine: many trials in lockstep, batched evaluation, variance reduction.

Every live trial advances one half-move per step.  The move chooser gets the
boards and dice of all of them at once, so the evaluator sees one large batch
per half-move.  Under variance reduction the chooser is asked for every one of
the 21 distinct rolls of every distinct live board, and each trial's luck is
``(value after its best play) - (mean over the 36 rolls of the value after their
best plays)``; luck is accumulated for the side the rollout is about and
subtracted from the trial's final value (exact outcome, exact bear-off value,
or the evaluator's value at truncation).

``luck="screened"`` (the default; 0-ply rollouts) values the 21 rolls more cheaply:
every play is ranked by a small screening net (:func:`~pulvezar.eval.evaluator.screen_evaluator`)
and only its four best are valued by the evaluator; each trial still plays the
evaluator's own best play.  The luck terms keep their zero mean, so the estimate is
unbiased; a screen that misses the best play only removes a little less variance
(ADR 0010).  ``luck="full"`` values every play.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from pulvezar.eval.evaluator import Evaluator, boards_of, swap_boards
from pulvezar.rollouts.choosers import chooser_for
from pulvezar.rollouts.cube import cubeful_options, cubeful_rollout
from pulvezar.rollouts.lockstep import ROLL_WEIGHTS, ROLLS, Chooser, Ints, _setup, _simulate, greedy_chooser
from pulvezar.rollouts.stats import RolloutResult
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules

#: trials of a deeper-than-0-ply rollout of candidate plays simulated at once (memory; see rollout_plays)
DEEP_TRIALS_AT_ONCE = 72

if TYPE_CHECKING:
    from pulvezar.cubeful.janowski import Cube
    from pulvezar.met.equity import MatchEquity

# the lockstep core and the choosers, as they were importable from here
__all__ = [
    "ROLLS",
    "ROLL_WEIGHTS",
    "Chooser",
    "Ints",
    "chooser_for",
    "greedy_chooser",
    "rollout",
    "rollout_plays",
]


def rollout(
    position: Position,
    trials: int = 1296,
    ply: int = 0,
    seed: int = 1,
    variance_reduction: bool = True,
    cubeful: bool = False,
    truncate: int | None = None,
    evaluator: Evaluator | None = None,
    rules: Rules | None = None,
    *,
    first_trial: int = 0,
    bearoff_stop: bool = True,
    chooser: Chooser | None = None,
    luck: str | Chooser = "screened",
    prune: bool = True,
    cube: Cube | None = None,
    met: MatchEquity | None = None,
) -> RolloutResult:
    """Roll out ``position`` (player on roll, before rolling); values for the player on roll.

    Trials ``first_trial .. first_trial + trials - 1`` are run; trial ``i``'s dice
    depend on ``(seed, i)`` alone, so chunks merge (:meth:`RolloutResult.merge`)
    into exactly the whole run.  ``truncate=N`` stops after N half-moves with
    the evaluator's value; ``bearoff_stop`` ends a trial on a race the evaluator values from a
    table (:func:`~pulvezar.eval.evaluator.exact_races`: both sides home, or within the model's race
    table), with that value.  At ``ply >= 1`` the trials'
    search prunes its replies unless ``prune=False`` (:func:`chooser_for`; a given ``chooser`` wins).

    ``cubeful=True`` plays the cube in the trials (:mod:`pulvezar.rollouts.cube`;
    ``cube`` as the player on roll sees it, centred money by default, ``met``
    for match scores; the player on roll may double at once) and fills the
    result's ``cubeful`` values.
    """
    s = _setup(
        trials, ply, seed, first_trial, variance_reduction, cubeful, truncate, bearoff_stop,
        evaluator, rules, chooser or chooser_for(ply, prune), luck,
    )  # fmt: skip
    ids = np.arange(first_trial, first_trial + trials, dtype=np.int64)
    if cubeful:
        c, m = cubeful_options(cube, met, s.rules)
        return cubeful_rollout([position], True, c, m, ids, s)[0]
    start = np.repeat(boards_of([position]), trials, axis=0)
    values = _simulate(start, np.ones(trials, dtype=bool), ids, s)
    return RolloutResult(ids, values, seed, s.rules, variance_reduction)


def rollout_plays(
    position: Position,
    dice: tuple[int, int],
    plays: Sequence[Play | Position] | None = None,
    trials: int = 1296,
    ply: int = 0,
    seed: int = 1,
    variance_reduction: bool = True,
    cubeful: bool = False,
    truncate: int | None = None,
    evaluator: Evaluator | None = None,
    rules: Rules | None = None,
    *,
    first_trial: int = 0,
    bearoff_stop: bool = True,
    chooser: Chooser | None = None,
    luck: str | Chooser = "screened",
    prune: bool = True,
    cube: Cube | None = None,
    met: MatchEquity | None = None,
) -> list[RolloutResult]:
    """Roll out candidate plays of ``dice`` at ``position``; values for the player who plays them.

    ``plays`` are legal plays (or their resulting positions, mover's view); by
    default every legal play.  Each result is rolled out with the opponent on
    roll, every candidate with the same dice sequences; all candidates' trials
    advance together in one batch; ``ply`` and ``prune`` as for :func:`rollout`.
    ``cubeful=True``: as for :func:`rollout`, ``cube`` seen by the player who plays (the
    opponent, on roll after the play, may double at once).
    """
    s = _setup(
        trials, ply, seed, first_trial, variance_reduction, cubeful, truncate, bearoff_stop,
        evaluator, rules, chooser or chooser_for(ply, prune), luck,
    )  # fmt: skip
    legal = s.rules.legal_plays(position, dice)
    cands = list(legal) if plays is None else list(plays)
    results = [c.position if isinstance(c, Play) else c for c in cands]
    for r in results:
        if r not in legal:
            raise ValueError(f"{r!r} is not a legal play of {dice} from {position!r}")
    ids = np.arange(first_trial, first_trial + trials, dtype=np.int64)
    # Deeper trials hold every candidate's look-ahead in memory at once (about 2 GB per 72 trials at
    # 1 ply): candidates go in groups of at most DEEP_TRIALS_AT_ONCE trials.  The evaluator values each
    # board on its own, so the grouping does not change a bit.
    group = len(results) if ply == 0 else max(1, DEEP_TRIALS_AT_ONCE // trials)
    out: list[RolloutResult] = []
    for g in range(0, len(results), group):
        part = results[g : g + group]
        if cubeful:
            c, m = cubeful_options(cube, met, s.rules)
            out += cubeful_rollout([r.swap() for r in part], False, c, m, ids, s)
            continue
        n = len(part)
        start = np.repeat(swap_boards(boards_of(part)), trials, axis=0)
        values = _simulate(start, np.zeros(n * trials, dtype=bool), np.tile(ids, n), s)
        out += [
            RolloutResult(ids, values[c * trials : (c + 1) * trials], seed, s.rules, variance_reduction)
            for c in range(n)
        ]
    return out
