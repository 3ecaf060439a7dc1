r"""Cubeful equity from cubeless probabilities: Janowski's interpolation.

Everything here is numpy only and vectorised over ``N`` positions; the inputs
are the five cumulative probabilities ``(W, Wg, Wbg, Lg, Lbg)`` of the player on
roll *before* rolling, and a :class:`Cube` saying who may double.

**Money** (equities normalised to the cube: a single win is ``+1``).  With
``p = W`` the average value of a win and of a loss are

.. math::  \bar W = 1 + (W_g + W_{bg}) / p, \qquad \bar L = 1 + (L_g + L_{bg}) / (1 - p).

The *dead* cube gives the cubeless equity ``E_dead = p (W̄ + L̄) - L̄``.  The
*live* cube (Janowski's continuous model: the owner cashes at once at the
opponent's take point) has the cash points, for my own redoubled cube and for
the opponent's,

.. math::  CP = (\bar L + 1) / (\bar W + \bar L + 1/2), \qquad TP = (\bar L - 1/2) / (\bar W + \bar L + 1/2)

and is piecewise linear in ``p`` through these knots:

* I own the cube: ``(0, -L̄) → (CP, +1) → (1, W̄)``;
* the opponent owns it: ``(0, -L̄) → (TP, -1) → (1, W̄)``;
* centred: ``(0, -L̄) → (TP, -1) → (CP, +1) → (1, W̄)``.

The cubeful equity with cube efficiency ``x`` is the interpolation
``E(x) = x·E_live + (1 - x)·E_dead``; it equals Janowski's own closed forms
``p(W̄ + L̄ + x/2) - L̄`` (owner) and ``p(W̄ + L̄ + x/2) - L̄ - x/2`` (opponent
owns) below the cash point.  The decision then compares

* ``ND`` = ``E(x)`` for the present cube (centred or mine),
* ``DT`` = ``2 · E(x)`` with the opponent owning the doubled cube,
* ``DP`` = ``+1``.

*Jacoby*: with the cube centred gammons count nothing, so the centred function
has the end points ``(0, -1)`` and ``(1, +1)`` and the dead part ``2p - 1``; the
cash points keep the gammons (they are about the turned cube).  *Beaver*: the
taker beavers a double when the taker's side of ``DT`` is positive
(``DT < 0``); the doubler then gets ``2 · DT`` (cube at 4, the taker's).

**Match** (match-winning chances, MWC).  With the cube at ``c`` and ``a``, ``b``
points away (player on roll, opponent), ``M(i, j)`` the MWC after the game
(post-Crawford once a side reaches 1-away in or after the Crawford game):
``M_win(c)`` and ``M_lose(c)`` are the averages over the position's single,
gammon and backgammon rates of ``M(a - kc, b)`` and ``M(a, b - kc)``; the dead
cube is the line ``p·M_win + (1 - p)·M_lose`` (the cubeless MWC).  The live
functions use the same knots as money with MWC values:

* ``(CP_c, M(a - c, b))`` where the opponent, taking and owning ``2c`` (live),
  is indifferent between taking and passing; none when my double is useless
  (``a <= c``: a single win on this cube already wins the match);
* ``(TP_c, M(a, b - c))`` the mirror for the opponent's double to ``2c``;

so they are found recursively (``c, 2c, 4c, …``) until the cube is dead for
both sides.  ``E(x)`` interpolates as for money; ``DT`` is the interpolated
function of ``2c`` owned by the opponent, ``DP = M(a - c, b)``.  The Crawford
game has no cube: its value is the cubeless MWC.  Post-Crawford needs nothing
special: the leader's cube is dead (1-away), the trailer's double costs little
and comes out right at once; the leader's free drop at an even-away score falls
out of ``DP``.  Normalised ("money-style", EMG) match equities map ``M(a, b - c)``
to ``-1`` and ``M(a - c, b)`` to ``+1``.

>>> import numpy as np
>>> p = np.array([[0.75, 0.0, 0.0, 0.0, 0.0]])     # 75 %, no gammons
>>> nd, dt, dp = money_equities(p, Cube(), np.array([1.0]))
>>> round(float(nd[0]), 4), round(float(dt[0]), 4), float(dp[0])   # live: ND on (TP, -1)-(CP, +1)
(0.8333, 0.75, 1.0)
>>> round(float(money_equities(p, Cube(), np.array([0.0]))[1][0]), 3)   # dead: DT = 2·(2p - 1)
1.0
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from pulvezar.errors import PulvezarError
from pulvezar.met.equity import MatchEquity

Array = npt.NDArray[np.float64]
Owner = Literal["centre", "player", "opponent"]

EPS = 1e-7
MAX_CUBE = 1 << 12  # the recursion of the match cash points stops here

# ---- cube efficiency ------------------------------------------------------------
CONTACT_X = 0.68
"""Contact positions: volatile, many turns left, the cube is mostly live."""
CRASHED_X = 0.60
"""Crashed boards: big swings per roll (a hit or a closeout), market losers are large."""
BEAROFF_X = 0.60
"""Both sides bearing off: a handful of rolls left, big jumps in the winning chances."""
RACE_X_MIN, RACE_X_MAX = 0.60, 0.72
"""Races: from 0.60 for short bear-offs (few rolls, big jumps) to 0.72 for long races (small steps)."""


def race_efficiency(pips: Array) -> Array:
    """``x`` of a race with the mean pip count ``pips`` of both sides.

    Linear from 0.60 at 20 pips to 0.72 at 120 pips (and flat beyond): a long
    race moves a little each roll, so the owner rarely overshoots the cash
    point; a short bear-off ends in a few jumps.

    >>> [round(float(v), 3) for v in race_efficiency(np.array([10.0, 70.0, 150.0]))]
    [0.6, 0.66, 0.72]
    """
    t = np.clip((np.asarray(pips, dtype=np.float64) - 20.0) / 100.0, 0.0, 1.0)
    result: Array = RACE_X_MIN + (RACE_X_MAX - RACE_X_MIN) * t
    return result


def efficiency(boards: npt.NDArray[np.uint8]) -> Array:
    """Cube efficiency ``x`` of ``(N, 50)`` boards by position class.

    * bear-off (every checker of both sides home or off) -> 0.60: few rolls
      left, each a big discrete step, so the doubler often overshoots;
    * other races (no contact): :func:`race_efficiency` of the mean pip count;
    * crashed: contact where a side has 10 or more checkers off or on its own
      1..3 points (a dead, crunched board) -> 0.60;
    * any other contact -> 0.68.

    >>> from pulvezar.rules.position import Position
    >>> b = np.frombuffer(Position.start().board, dtype=np.uint8).reshape(1, 50)
    >>> efficiency(b).tolist()
    [0.68]
    """
    boards = np.asarray(boards, dtype=np.uint8).reshape(-1, 50)
    mine, theirs = boards[:, :25].astype(np.int64), boards[:, 25:].astype(np.int64)
    idx = np.arange(25)
    back_m = np.where(mine > 0, idx, -1).max(axis=1)
    back_t = np.where(theirs > 0, idx, -1).max(axis=1)
    contact = (back_m >= 0) & (back_t >= 0) & (back_m + back_t >= 23)
    pips = ((mine + theirs) * (idx + 1)).sum(axis=1) / 2.0
    dead_m = (15 - mine.sum(axis=1)) + mine[:, :3].sum(axis=1)
    dead_t = (15 - theirs.sum(axis=1)) + theirs[:, :3].sum(axis=1)
    crashed = contact & ((dead_m >= 10) | (dead_t >= 10))
    home = (mine[:, 6:].sum(axis=1) == 0) & (theirs[:, 6:].sum(axis=1) == 0)
    race = np.where(home, BEAROFF_X, race_efficiency(pips))
    out: Array = np.where(contact, np.where(crashed, CRASHED_X, CONTACT_X), race)
    return out


# ---- the cube -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Cube:
    """The cube seen by the player on roll.

    ``away`` is ``None`` for money, else the points still needed by (the player on
    roll, the opponent); ``crawford`` marks the Crawford game.  ``jacoby`` and
    ``beaver`` are money options.

    >>> Cube(away=(3, 1)).post_crawford, Cube(away=(3, 1), crawford=True).can_double
    (True, False)
    """

    value: int = 1
    owner: Owner = "centre"
    away: tuple[int, int] | None = None
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False

    def __post_init__(self) -> None:
        if self.value < 1 or self.value & (self.value - 1):
            raise PulvezarError(f"the cube value is a power of two, got {self.value}", field="cube")
        if self.owner not in ("centre", "player", "opponent"):
            raise PulvezarError(f"unknown cube owner {self.owner!r}", field="cube_owner")
        if self.away is not None:
            a, b = self.away
            if a < 1 or b < 1:
                raise PulvezarError(f"both sides must still need points, got {self.away}", field="score")
            if self.jacoby or self.beaver:
                raise PulvezarError("Jacoby and beavers are money options", field="options")
            if self.crawford and (a == 1) == (b == 1):
                raise PulvezarError("the Crawford game needs exactly one side 1-away", field="crawford")
        elif self.crawford:
            raise PulvezarError("a money game has no Crawford game", field="crawford")
        if self.crawford and (self.value != 1 or self.owner != "centre"):
            raise PulvezarError("the cube is not used in the Crawford game", field="cube")

    @property
    def is_money(self) -> bool:
        return self.away is None

    @property
    def post_crawford(self) -> bool:
        return self.away is not None and not self.crawford and 1 in self.away

    @property
    def can_double(self) -> bool:
        """Whether the rules let the player on roll double now (useful or not)."""
        return self.owner != "opponent" and not self.crawford and self.value < MAX_CUBE

    @property
    def dead(self) -> bool:
        """Whether a double by the player on roll can gain nothing: a single win on
        the present cube already wins the match."""
        return self.away is not None and self.away[0] <= self.value

    def swap(self) -> Cube:
        """The same cube seen by the opponent."""
        owner: Owner = {"centre": "centre", "player": "opponent", "opponent": "player"}[self.owner]  # type: ignore[assignment]
        away = None if self.away is None else (self.away[1], self.away[0])
        return replace(self, owner=owner, away=away)

    def doubled(self) -> Cube:
        """After the player on roll doubles and the opponent takes."""
        return replace(self, value=2 * self.value, owner="opponent")


# ---- money ------------------------------------------------------------------------
def _avg_win_loss(probs: Array) -> tuple[Array, Array, Array]:
    p = np.clip(probs[:, 0], 0.0, 1.0)
    w = np.where(p > EPS, 1.0 + (probs[:, 1] + probs[:, 2]) / np.maximum(p, EPS), 1.0)
    lo = np.where(p < 1.0 - EPS, 1.0 + (probs[:, 3] + probs[:, 4]) / np.maximum(1.0 - p, EPS), 1.0)
    return p, w, lo


def _interp(p: Array, xs: list[Array], ys: list[Array]) -> Array:
    """Piecewise-linear functions with per-row knots ``xs`` (increasing, 0 .. 1)."""
    out = np.array(ys[0], dtype=np.float64, copy=True)
    for k in range(1, len(xs)):
        x0, x1, y0, y1 = xs[k - 1], xs[k], ys[k - 1], ys[k]
        span = np.maximum(x1 - x0, 1e-12)
        seg = y0 + (y1 - y0) * np.clip((p - x0) / span, 0.0, 1.0)
        out = np.where(p > x0, seg, out)
    return out


def money_live(probs: Array, owner: Owner, jacoby: bool = False) -> Array:
    """Janowski's live-cube money equity (``x = 1``), normalised to the cube.

    >>> p = np.array([[0.6, 0.0, 0.0, 0.0, 0.0]])    # TP = 0.2, CP = 0.8 without gammons
    >>> round(float(money_live(p, "centre")[0]), 4), round(float(money_live(p, "player")[0]), 4)
    (0.3333, 0.5)
    """
    p, w, lo = _avg_win_loss(probs)
    tp = (lo - 0.5) / (w + lo + 0.5)
    cp = (lo + 1.0) / (w + lo + 0.5)
    zero, one = np.zeros_like(p), np.ones_like(p)
    if owner == "player":
        return _interp(p, [zero, cp, one], [-lo, one, w])
    if owner == "opponent":
        return _interp(p, [zero, tp, one], [-lo, -one, w])
    if jacoby:
        return _interp(p, [zero, tp, cp, one], [-one, -one, one, one])
    return _interp(p, [zero, tp, cp, one], [-lo, -one, one, w])


def money_dead(probs: Array, owner: Owner = "player", jacoby: bool = False) -> Array:
    """The dead cube: the cubeless equity (gammonless under Jacoby with a centred cube)."""
    if jacoby and owner == "centre":
        result: Array = 2.0 * probs[:, 0] - 1.0
        return result
    p, w, lo = _avg_win_loss(probs)
    dead: Array = p * (w + lo) - lo
    return dead


def money_cubeful(probs: Array, owner: Owner, x: Array, jacoby: bool = False) -> Array:
    """``x·live + (1 - x)·dead``, normalised to the cube."""
    result: Array = x * money_live(probs, owner, jacoby) + (1.0 - x) * money_dead(probs, owner, jacoby)
    return result


def money_equities(probs: Array, cube: Cube, x: Array) -> tuple[Array, Array, Array]:
    """``(ND, DT, DP)`` normalised to the cube (DT before any beaver, see :func:`beavered`).

    DT and DP are NaN where the player on roll may not double.
    """
    probs = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    nd = money_cubeful(probs, cube.owner, x, cube.jacoby and cube.owner == "centre")
    if not cube.can_double:
        nan = np.full_like(nd, np.nan)
        return nd, nan, nan.copy()
    dt = 2.0 * money_cubeful(probs, "opponent", x)
    return nd, dt, np.ones_like(nd)


def beavered(dt: Array, cube: Cube) -> Array:
    """DT as the doubler gets it: the taker beavers (doubling the cube again, keeping
    it) when taking is good for the taker, ``DT < 0``, where beavers are allowed."""
    if not cube.beaver:
        return dt
    result: Array = np.where(dt < 0.0, 2.0 * dt, dt)
    return result


# ---- match ------------------------------------------------------------------------
class MatchCube:
    """Janowski's functions in MWC for one score and a batch of positions."""

    def __init__(self, probs: Array, cube: Cube, met: MatchEquity) -> None:
        if cube.away is None:
            raise PulvezarError("a money cube has no match score", field="score")
        self.probs = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
        self.a, self.b = cube.away
        self.crawford = cube.crawford
        self.met = met
        self.later = cube.crawford or self.a == 1 or self.b == 1
        p = np.clip(self.probs[:, 0], 0.0, 1.0)
        self.p = p
        pr = self.probs
        self.win_w = [np.maximum(p - pr[:, 1], 0.0), np.maximum(pr[:, 1] - pr[:, 2], 0.0), pr[:, 2]]
        self.lose_w = [np.maximum(1.0 - p - pr[:, 3], 0.0), np.maximum(pr[:, 3] - pr[:, 4], 0.0), pr[:, 4]]
        self._cp: dict[int, Array | None] = {}
        self._tp: dict[int, Array | None] = {}

    def m(self, a: int, b: int) -> float:
        """MWC after the game ends with ``a``, ``b`` away."""
        return self.met.after(a, b, crawford_or_later=self.later)

    def ends(self, c: int) -> tuple[Array, Array]:
        """``(M_win(c), M_lose(c))``: the MWC given a win, given a loss, on cube ``c``."""
        wins = [self.m(self.a - k * c, self.b) for k in (1, 2, 3)]
        losses = [self.m(self.a, self.b - k * c) for k in (1, 2, 3)]
        pw, pl = self.p, 1.0 - self.p
        mw = sum(w * v for w, v in zip(self.win_w, wins, strict=True)) / np.maximum(pw, EPS)
        ml = sum(w * v for w, v in zip(self.lose_w, losses, strict=True)) / np.maximum(pl, EPS)
        mw = np.where(pw > EPS, mw, wins[0])
        ml = np.where(pl > EPS, ml, losses[0])
        return np.asarray(mw, dtype=np.float64), np.asarray(ml, dtype=np.float64)

    def dead(self, c: int) -> Array:
        mw, ml = self.ends(c)
        result: Array = self.p * mw + (1.0 - self.p) * ml
        return result

    # -- the live cube ---------------------------------------------------------
    def cash_point(self, c: int) -> Array | None:
        """My live cash point on cube ``c`` (None when my double is useless)."""
        if c not in self._cp:
            if self.a <= c or c >= MAX_CUBE:
                self._cp[c] = None
            else:
                self._cp[c] = self._solve(self._opp_owns_live(2 * c), self.m(self.a - c, self.b))
        return self._cp[c]

    def take_point(self, c: int) -> Array | None:
        """The opponent's live cash point on cube ``c``, as my winning chance."""
        if c not in self._tp:
            if self.b <= c or c >= MAX_CUBE:
                self._tp[c] = None
            else:
                self._tp[c] = self._solve(self._i_own_live(2 * c), self.m(self.a, self.b - c))
        return self._tp[c]

    def _knots(self, c: int, tp: Array | None, cp: Array | None) -> tuple[list[Array], list[Array]]:
        mw, ml = self.ends(c)
        zero, one = np.zeros_like(self.p), np.ones_like(self.p)
        xs, ys = [zero], [ml]
        if tp is not None:
            xs.append(tp)
            ys.append(np.full_like(self.p, self.m(self.a, self.b - c)))
        if cp is not None:
            lo = xs[-1]
            xs.append(np.maximum(cp, lo))
            ys.append(np.full_like(self.p, self.m(self.a - c, self.b)))
        xs.append(one)
        ys.append(mw)
        return xs, ys

    def _i_own_live(self, c: int) -> tuple[list[Array], list[Array]]:
        return self._knots(c, None, self.cash_point(c))

    def _opp_owns_live(self, c: int) -> tuple[list[Array], list[Array]]:
        return self._knots(c, self.take_point(c), None)

    def _solve(self, fn: tuple[list[Array], list[Array]], target: float) -> Array:
        """The ``p`` where an increasing piecewise-linear function reaches ``target``."""
        xs, ys = fn
        out = np.where(ys[0] >= target, 0.0, 1.0)
        found = ys[0] >= target
        for k in range(1, len(xs)):
            y0, y1, x0, x1 = ys[k - 1], ys[k], xs[k - 1], xs[k]
            hit = ~found & (y1 >= target)
            t = (target - y0) / np.where(y1 - y0 > 1e-12, y1 - y0, 1.0)
            out = np.where(hit, x0 + (x1 - x0) * np.clip(t, 0.0, 1.0), out)
            found |= hit
        return np.asarray(out, dtype=np.float64)

    def live(self, c: int, owner: Owner) -> Array:
        tp = self.take_point(c) if owner != "player" else None
        cp = self.cash_point(c) if owner != "opponent" else None
        xs, ys = self._knots(c, tp, cp)
        return _interp(self.p, xs, ys)

    def cubeful(self, c: int, owner: Owner, x: Array) -> Array:
        """``x·live + (1 - x)·dead`` in MWC (the cubeless MWC in the Crawford game)."""
        if self.crawford:
            return self.dead(c)
        result: Array = x * self.live(c, owner) + (1.0 - x) * self.dead(c)
        return result


def match_equities(probs: Array, cube: Cube, x: Array, met: MatchEquity) -> tuple[Array, Array, Array]:
    """``(ND, DT, DP)`` as match-winning chances; DT, DP NaN where no double is allowed."""
    mc = MatchCube(probs, cube, met)
    nd = mc.cubeful(cube.value, cube.owner, x)
    if not cube.can_double:
        nan = np.full_like(nd, np.nan)
        return nd, nan, nan.copy()
    dt = mc.cubeful(2 * cube.value, "opponent", x)
    dp = np.full_like(nd, mc.m(mc.a - cube.value, mc.b))
    return nd, dt, dp


def emg(mwc: Array | float, cube: Cube, met: MatchEquity) -> Array:
    """Match-winning chances as normalised equity: losing the cube's points ``-1``, winning ``+1``."""
    assert cube.away is not None
    a, b, c = cube.away[0], cube.away[1], cube.value
    later = cube.crawford or a == 1 or b == 1
    win = met.after(a - c, b, crawford_or_later=later)
    lose = met.after(a, b - c, crawford_or_later=later)
    result: Array = 2.0 * (np.asarray(mwc, dtype=np.float64) - lose) / (win - lose) - 1.0
    return result


def best_value(nd: Array, dt: Array, dp: Array) -> Array:
    """The value of the cube decision: doubling when ``min(DT, DP) > ND``, NaN-safe."""
    dbl = np.minimum(dt, dp)
    result: Array = np.where(np.isfinite(dbl) & (dbl > nd), dbl, nd)
    return result


__all__ = [
    "BEAROFF_X",
    "CONTACT_X",
    "CRASHED_X",
    "RACE_X_MAX",
    "RACE_X_MIN",
    "Cube",
    "MatchCube",
    "Owner",
    "beavered",
    "best_value",
    "efficiency",
    "emg",
    "match_equities",
    "money_cubeful",
    "money_dead",
    "money_equities",
    "money_live",
    "race_efficiency",
]
