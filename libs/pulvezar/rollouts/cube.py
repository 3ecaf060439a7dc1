"""Cubeful rollouts and cube-decision rollouts.

Both sides use the cube during the simulation.  Before each roll, the side on
roll looks at its 0-ply cube decision (the evaluator's probabilities through
Janowski's functions, :mod:`pulvezar.cubeful.janowski`, cube efficiency by position
class): it doubles when ``min(DT, DP) > ND`` (a tie doubles when the double is a
pass, as :func:`~pulvezar.cube.cube_decision` labels it); the other side then
passes when ``DP < DT``, beavers where allowed when ``DT < 0``, and takes
otherwise.  A pass ends the trial: the doubler wins the cube's value (money) or
reaches the match score it gives (match).  Checker play is cubeless (the
rollout's chooser, any ply).

A trial's *cubeful* value is counted in points (money: result times the cube,
gammons single under Jacoby while the cube is centred) or in match-winning
chances (match: the MET after the game), and normalised at the end to the
starting cube (money: per cube; match: EMG, see :func:`~pulvezar.cubeful.janowski.emg`).
A trial stopped early (truncation, an exact bear-off race) takes the 0-ply
cubeful value of the side on roll (its best cube action).  Under variance
reduction, the cubeful luck of each roll is the cubeful value after the chosen
play (the opponent on roll, holding the cube decision) minus its mean over the
36 rolls, by the same Janowski functions; the cubeless probabilities get their
own luck as in :mod:`pulvezar.rollouts.engine`.  A passed trial's cubeless
value is the 0-ply probability of the position at the pass.

:func:`rollout_cube` rolls out "no double" and "double/take" in one batch with
the same dice (trial ``i`` of both branches has the same rolls); "double/pass"
is exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from pulvezar.cube.decision import NO_CUBE, _decide
from pulvezar.cubeful import CubeState
from pulvezar.cubeful.janowski import (
    MAX_CUBE,
    Cube,
    Owner,
    beavered,
    efficiency,
    emg,
    match_equities,
    money_equities,
)
from pulvezar.eval.evaluator import Boards, Evaluator, Probs, boards_of, exact_races, flip, terminal
from pulvezar.met.equity import MatchEquity
from pulvezar.rollouts.choosers import chooser_for
from pulvezar.rollouts.lockstep import (
    ROLL_WEIGHTS,
    ROLLS,
    Chooser,
    Ints,
    _advance,
    _move,
    _Setup,
    _setup,
    _view,
)
from pulvezar.rollouts.stats import Floats, RolloutResult, block_se
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

Bools = npt.NDArray[np.bool_]
CENTRE, US, THEM = 0, 1, 2  # who owns a lane's cube, seen from the rollout's side


@dataclass(frozen=True)
class _Table:
    """What the cube arithmetic of one rollout needs: the starting cube (our view) and the MET."""

    base: Cube
    met: MatchEquity

    def cube(self, value: int, owner: int, roller_is_us: bool) -> Cube:
        """The cube as the side on roll sees it."""
        names: dict[int, Owner] = {CENTRE: "centre", US: "player", THEM: "opponent"}
        c = replace(self.base, value=int(value), owner=names[owner])
        return c if roller_is_us else c.swap()

    def raw(self, probs: Probs, boards: Boards, cube: Cube) -> tuple[Floats, Floats, Floats]:
        """ND, DT (beavered), DP of the side on roll: points (money) or its MWC (match)."""
        x = efficiency(boards)
        if cube.is_money:
            nd, dt, dp = money_equities(probs, cube, x)
            v = float(cube.value)
            return nd * v, beavered(dt, cube) * v, dp * v
        return match_equities(probs, cube, x, self.met)

    def to_us(self, v: Floats, roller_is_us: Bools) -> Floats:
        """A value of the side on roll (points or MWC) in our view."""
        other = -v if self.base.is_money else 1.0 - v
        out: Floats = np.where(roller_is_us, v, other)
        return out

    def outcome(self, probs: Probs, value: Ints, owner: Ints) -> Floats:
        """Our points or MWC for finished games (``probs``: exact outcomes in our view)."""
        won = probs[:, 0] > 0.5
        k = np.where(won, 1 + probs[:, 1] + probs[:, 2], 1 + probs[:, 3] + probs[:, 4]).astype(np.int64)
        if self.base.jacoby:
            k = np.where(owner == CENTRE, 1, k)
        pts = k * value
        if self.base.is_money:
            out: Floats = np.where(won, pts, -pts).astype(np.float64)
            return out
        assert self.base.away is not None
        a, b = self.base.away
        later = self.base.crawford or a == 1 or b == 1
        after = self.met.after
        return np.array(
            [
                after(a - p, b, crawford_or_later=later) if w else after(a, b - p, crawford_or_later=later)
                for w, p in zip(won.tolist(), pts.tolist(), strict=True)
            ]
        )

    def normalise(self, v: Floats) -> Floats:
        """Points or MWC -> equity normalised to the starting cube (money) or EMG (match)."""
        if self.base.is_money:
            out: Floats = v / float(self.base.value)
            return out
        return emg(v, self.base, self.met)


def _groups(*keys: npt.NDArray[np.int64]) -> list[tuple[tuple[int, ...], npt.NDArray[np.intp]]]:
    """Indices grouped by equal key tuples."""
    stacked = np.stack(keys, axis=1)
    uniq, inv = np.unique(stacked, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    return [(tuple(int(k) for k in u), np.flatnonzero(inv == g)) for g, u in enumerate(uniq)]


def _simulate_cubeful(
    start: Boards,
    us_on_roll: Bools,
    trial_ids: Ints,
    cube_value: Ints,
    cube_owner: Ints,
    may_double_first: Bools,
    s: _Setup,
    table: _Table,
) -> tuple[Probs, Floats]:
    """Roll out lanes with the cube in play; per-lane cubeless probabilities and cubeful
    points / MWC, both in our view and luck-adjusted under variance reduction."""
    lanes = len(start)
    ev = s.evaluator
    board = np.ascontiguousarray(start, dtype=np.uint8).copy()
    ours = us_on_roll.copy()
    cval = cube_value.astype(np.int64).copy()
    cown = cube_owner.astype(np.int64).copy()
    may = may_double_first.copy()
    luck = np.zeros((lanes, 5))
    luck_cf = np.zeros(lanes)
    value = np.zeros((lanes, 5))
    value_cf = np.zeros(lanes)
    alive = np.ones(lanes, dtype=bool)
    cb = table.base

    def can_double(idx: npt.NDArray[np.intp]) -> Bools:
        roller_owns = np.where(ours[idx], cown[idx] == US, cown[idx] == THEM)
        out: Bools = (cown[idx] == CENTRE) | roller_owns
        return out & (cval[idx] < MAX_CUBE) & (not cb.crawford)

    def decisions(idx: npt.NDArray[np.intp], probs: Probs) -> tuple[Floats, Floats, Floats]:
        """ND, DT, DP of the side on roll (its points or MWC) for lanes ``idx``."""
        nd, dt, dp = (np.full(len(idx), np.nan) for _ in range(3))
        for (v, o, us), g in _groups(cval[idx], cown[idx], ours[idx].astype(np.int64)):
            cube = table.cube(v, o, bool(us))
            nd[g], dt[g], dp[g] = table.raw(probs[g], board[idx[g]], cube)
        return nd, dt, dp

    def stop(mask: Bools) -> None:
        """End the lanes of ``mask``: exact results where finished, else the 0-ply cubeful value."""
        idx = np.flatnonzero(mask & alive)
        if len(idx) == 0:
            return
        done, exact = terminal(board[idx])
        value[idx[done]] = _view(exact[done], ~ours[idx[done]])
        if done.any():
            value_cf[idx[done]] = table.outcome(value[idx[done]], cval[idx[done]], cown[idx[done]])
        rest = idx[~done]
        if len(rest):
            probs = ev.evaluate_boards(board[rest])
            value[rest] = _view(probs, ~ours[rest])
            nd, dt, dp = decisions(rest, probs)
            dbl = np.minimum(dt, dp)
            use = may[rest] & can_double(rest) & np.isfinite(dbl) & (dbl > nd)
            value_cf[rest] = table.to_us(np.where(use, dbl, nd), ours[rest])
        alive[idx] = False

    covered = exact_races(ev, board) if s.bearoff_stop else np.zeros(lanes, dtype=bool)
    stop(terminal(board)[0] | covered | (s.truncate == 0))
    step = 0
    while alive.any():
        ids = np.flatnonzero(alive)
        # ---- the cube: the side on roll may double, the other takes or passes ----
        cand = ids[may[ids] & can_double(ids)]
        if len(cand):
            probs = ev.evaluate_boards(board[cand])
            nd, dt, dp = decisions(cand, probs)
            dbl = np.minimum(dt, dp)
            passes = dp < dt
            double = np.isfinite(dbl) & ((dbl > nd + 1e-12) | ((dbl >= nd - 1e-12) & passes))
            drop = cand[double & passes]
            if len(drop):
                value[drop] = _view(probs[double & passes], ~ours[drop])
                roller_wins = dp[double & passes]
                value_cf[drop] = table.to_us(roller_wins, ours[drop])
                alive[drop] = False
            took = double & ~passes
            beaver = took & cb.beaver & (dt < 0)  # DT is already beavered: 2 DT < 0
            tk = cand[took]
            cval[tk] *= np.where(beaver[took], 4, 2)
            cown[tk] = np.where(ours[tk], THEM, US)
            ids = np.flatnonzero(alive)
            if len(ids) == 0:
                break
        may[ids] = True
        # ---- the checkers --------------------------------------------------------
        moves = _move(board, ours, ids, trial_ids, step, s)
        if moves.luck is not None:
            assert moves.probs_all is not None and moves.after_all is not None
            assert moves.inv is not None and moves.roll is not None
            luck[ids] += moves.luck
            inv, nrolls = moves.inv, len(ROLLS)
            # cubeful luck: the opponent's cube decision after each roll's play, per lane's cube
            opp = flip(moves.probs_all)
            cf = np.empty((len(ids), nrolls))
            for (v, o, us), g in _groups(cval[ids], cown[ids], ours[ids].astype(np.int64)):
                cube = table.cube(v, o, not bool(us))  # the opponent is on roll after the play
                rows = (inv[g][:, None] * nrolls + np.arange(nrolls)[None, :]).reshape(-1)
                ond, odt, odp = table.raw(opp[rows], moves.after_all[rows], cube)
                odbl = np.minimum(odt, odp)
                best = np.where(np.isfinite(odbl) & (odbl > ond), odbl, ond)
                # the opponent's value in the opponent's view -> ours
                cf[g] = table.to_us(best, np.full(len(rows), not bool(us))).reshape(len(g), nrolls)
            cf_mean = cf @ ROLL_WEIGHTS
            luck_cf[ids] += cf[np.arange(len(ids)), moves.roll] - cf_mean
        step += 1
        stop(_advance(board, ours, ids, moves.after, step, s))
    return value - luck, value_cf - luck_cf


def _owner_code(cube: Cube) -> int:
    return {"centre": CENTRE, "player": US, "opponent": THEM}[cube.owner]


def cubeful_rollout(
    starts: Sequence[Position],
    us_on_roll: bool,
    cube: Cube,
    met: MatchEquity,
    ids: Ints,
    s: _Setup,
    may_double_first: bool = True,
) -> list[RolloutResult]:
    """Roll out each of ``starts`` (``trials`` lanes each, trial numbers ``ids``) with ``cube``.

    ``cube`` is seen by us, the side the results are about; ``us_on_roll`` says
    whether we are on roll in ``starts``.  Results carry the cubeful values.
    """
    n, t = len(starts), len(ids)
    table = _Table(cube, met)
    boards = np.repeat(boards_of(list(starts)), t, axis=0)
    flags = np.full(n * t, us_on_roll)
    probs, cf = _simulate_cubeful(
        boards, flags, np.tile(ids, n), np.full(n * t, cube.value, dtype=np.int64),
        np.full(n * t, _owner_code(cube), dtype=np.int64), np.full(n * t, may_double_first),
        s, table,
    )  # fmt: skip
    cf = table.normalise(cf)
    return [
        RolloutResult(
            ids, probs[c * t : (c + 1) * t], s.seed, s.rules, s.variance_reduction, cf[c * t : (c + 1) * t]
        )
        for c in range(n)
    ]


# ---- cube decisions by rollout ----------------------------------------------------------
@dataclass(frozen=True)
class CubeRollout:
    """No double / double-take rolled out with the same dice, double/pass exact.

    Equities are normalised to the present cube (money: per cube; match: EMG);
    ``mwc_*`` are the match-winning chances (``None`` for money).  ``noise`` is
    the standard error of ``DT - ND`` from the blocks of the paired trials.
    """

    state: CubeState
    no_double: RolloutResult
    double_take: RolloutResult | None
    dp: float | None
    action: str
    double: bool
    response: str | None
    costs: dict[str, float]

    @property
    def nd(self) -> float:
        return self.no_double.cubeful_equity

    @property
    def dt(self) -> float | None:
        return None if self.double_take is None else self.double_take.cubeful_equity

    @property
    def nd_se(self) -> float:
        return self.no_double.cubeful_noise

    @property
    def dt_se(self) -> float | None:
        return None if self.double_take is None else self.double_take.cubeful_noise

    @property
    def noise(self) -> float:
        """Standard error of ``DT - ND`` (paired: same dice)."""
        if self.double_take is None:
            return self.nd_se
        diff = self.double_take._cubeful() - self.no_double._cubeful()
        return block_se(self.no_double.trials_run, diff)

    @property
    def value(self) -> float:
        """The position's value with the right action."""
        if not self.double:
            return self.nd
        assert self.dt is not None and self.dp is not None
        dt = 2.0 * self.dt if self.response == "beaver" else self.dt
        return min(dt, self.dp)

    def _mwc(self, v: float | None) -> float | None:
        cube = self.state.cube
        if v is None or cube.away is None:
            return None
        a, b, c = cube.away[0], cube.away[1], cube.value
        later = cube.crawford or a == 1 or b == 1
        met = self.state.table
        win, lose = met.after(a - c, b, crawford_or_later=later), met.after(a, b - c, crawford_or_later=later)
        return lose + (v + 1.0) / 2.0 * (win - lose)

    @property
    def mwc_nd(self) -> float | None:
        return self._mwc(self.nd)

    @property
    def mwc_dt(self) -> float | None:
        return self._mwc(self.dt)

    @property
    def mwc_dp(self) -> float | None:
        return self._mwc(self.dp)

    @classmethod
    def from_results(
        cls, state: CubeState, no_double: RolloutResult, double_take: RolloutResult | None
    ) -> CubeRollout:
        """The decision from the branches' results (e.g. chunks merged with
        :meth:`RolloutResult.merge`); ``double_take`` is None where the player on roll cannot double."""
        if double_take is None:
            return cls(state, no_double, None, None, NO_CUBE, False, None, {"no double": 0.0})
        label, double, response, costs = _decide(
            no_double.cubeful_equity, double_take.cubeful_equity, 1.0, state.cube.beaver
        )
        return cls(state, no_double, double_take, 1.0, label, double, response, costs)

    def __repr__(self) -> str:
        dt = "-" if self.dt is None else f"{self.dt:+.4f} +- {self.dt_se:.4f}"
        return (
            f"<CubeRollout {self.action}: ND {self.nd:+.4f} +- {self.nd_se:.4f}, DT {dt}, "
            f"DP {self.dp}, noise {self.noise:.4f}, {self.no_double.trials} trials>"
        )


def rollout_cube(
    state: CubeState,
    trials: int = 1296,
    seed: int = 1,
    ply: int = 0,
    variance_reduction: bool = True,
    truncate: int | None = None,
    evaluator: Evaluator | None = None,
    *,
    first_trial: int = 0,
    bearoff_stop: bool = True,
    chooser: Chooser | None = None,
    luck: str | Chooser = "screened",
    prune: bool = True,
) -> CubeRollout:
    """The cube decision of ``state`` (player on roll, before rolling) by rollout.

    "No double" (the player on roll keeps the cube this turn) and "double/take"
    (the cube doubled and owned by the opponent) are rolled out together, trial
    ``i`` with the same dice in both; "double/pass" is exact (``ply``/``prune``: the trials' move
    choice, :func:`~pulvezar.rollouts.choosers.chooser_for`).  See the module
    notes for the cube play inside the trials.
    """
    s = _setup(
        trials, ply, seed, first_trial, variance_reduction, False, truncate, bearoff_stop,
        evaluator, state.rules, chooser or chooser_for(ply, prune), luck,
    )  # fmt: skip
    cube = state.cube
    table = _Table(cube, state.table)
    ids = np.arange(first_trial, first_trial + trials, dtype=np.int64)
    branches = [cube, cube.doubled()] if cube.can_double else [cube]
    n = len(branches)
    start = np.repeat(boards_of([state.position]), n * trials, axis=0)
    values = np.repeat([b.value for b in branches], trials).astype(np.int64)
    owners = np.repeat([_owner_code(b) for b in branches], trials).astype(np.int64)
    probs, cf = _simulate_cubeful(
        start, np.ones(n * trials, dtype=bool), np.tile(ids, n), values, owners,
        np.zeros(n * trials, dtype=bool), s, table,
    )  # fmt: skip
    cf = table.normalise(cf)
    res = [
        RolloutResult(
            ids,
            probs[c * trials : (c + 1) * trials],
            seed,
            s.rules,
            variance_reduction,
            cf[c * trials : (c + 1) * trials],
        )
        for c in range(n)
    ]
    return CubeRollout.from_results(state, res[0], res[1] if n == 2 else None)


def cubeful_options(cube: Cube | None, met: MatchEquity | None, rules: Rules) -> tuple[Cube, MatchEquity]:
    """The cube (centred money by default) and MET of a cubeful :func:`~pulvezar.rollouts.rollout`."""
    if not rules.uses_cube:
        raise ValueError("Tavla is played without a cube: cubeful rollouts need international rules")
    return cube or Cube(), met or MatchEquity.kazaross_xg2()
