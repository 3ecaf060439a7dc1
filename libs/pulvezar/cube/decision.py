"""Cube decisions: no double / double-take / double-pass at 0, 1 or 2 plies.

At **0 plies** the cubeless probabilities of the position (player on roll,
before rolling) go through Janowski's formulas (:mod:`pulvezar.cubeful.janowski`).
At **n plies** each option is valued by lookahead: for each of the 21 rolls the
best play (chosen by 0-ply cubeless equity, as the checker search does) leads
to a position where the *opponent* holds the cube decision with the cube as the
option left it (``ND``: unchanged; ``DT``: doubled and owned by the opponent);
the opponent's optimal cube value at ``n - 1`` plies, negated (money) or
complemented (MWC), is averaged over the rolls.  Money values are carried in
points (the cube's value times the normalised equity), match values in MWC,
so positions with different cubes average correctly.  Finished games are not
expanded.

>>> from pulvezar.rules.position import Position
>>> race = Position.from_points({6: 5, 5: 5, 4: 5}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3})
>>> d = decision_from_probs((0.85, 0.0, 0.0, 0.0, 0.0), CubeState(race), x=1.0)
>>> d.action, round(d.nd, 3), round(d.dt, 3), d.dp
('Double, pass', 1.0, 1.25, 1.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from pulvezar.cubeful.janowski import (
    Cube,
    beavered,
    best_value,
    efficiency,
    emg,
    match_equities,
    money_equities,
)
from pulvezar.cubeful.state import CubeState
from pulvezar.errors import PulvezarError
from pulvezar.met.equity import MONEY_GAMMON_PRICE, MONEY_TAKE_POINT, GammonPrice, MatchEquity

if TYPE_CHECKING:
    from pulvezar.eval.evaluator import Evaluator
    from pulvezar.search.plies import Search

Array = npt.NDArray[np.float64]
Boards = npt.NDArray[np.uint8]
MAX_CUBE_PLY = 2
#: the deepest cube search of batch work (a deep analysis: seconds per position, too slow for a request)
MAX_DEEP_CUBE_PLY = 3

NO_DOUBLE = "No double, take"
NO_DOUBLE_BEAVER = "No double, beaver"
DOUBLE_TAKE = "Double, take"
DOUBLE_BEAVER = "Double, beaver"
DOUBLE_PASS = "Double, pass"
TOO_GOOD_PASS = "Too good to double, pass"
TOO_GOOD_TAKE = "Too good to double, take"
NO_CUBE = "No double (cube not available)"


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The cube decision of the player on roll.

    ``nd``/``dt``/``dp`` are normalised equities (money: per cube; match: EMG, a
    single game on the present cube lost = -1, won = +1); ``mwc_*`` the same as
    match-winning chances (``None`` for money).  ``value`` is the position's
    value with the right action.  ``costs`` maps each action ("no double",
    "double"; the taker's "take", "pass", "beaver" where allowed) to the
    normalised equity it gives up against the right one (0 for the right ones).
    ``take_point`` and ``gammon_price`` are the gammonless dead-cube figures of
    :mod:`pulvezar.met` for the double now considered.
    """

    probs: tuple[float, float, float, float, float]
    cubeless_equity: float
    x: float
    ply: int
    nd: float
    dt: float | None
    dp: float | None
    value: float
    action: str
    double: bool
    response: str | None
    costs: dict[str, float]
    can_double: bool
    dead_cube: bool
    take_point: float | None
    gammon_price: GammonPrice
    mwc_nd: float | None = None
    mwc_dt: float | None = None
    mwc_dp: float | None = None
    mwc_value: float | None = None
    notes: tuple[str, ...] = ()


def _decide(nd: float, dt: float, dp: float, beaver: bool) -> tuple[str, bool, str, dict[str, float]]:
    """The action label, whether to double, the taker's response and the costs."""
    taker = {"take": dt, "pass": dp}
    if beaver:
        taker["beaver"] = 2.0 * dt
    best_t = min(taker.values())
    response = min(taker, key=lambda k: (taker[k], k != "take"))
    dbl = taker[response]
    best = max(nd, dbl)
    costs = {"no double": best - nd, "double": best - dbl}
    costs.update({k: v - best_t for k, v in taker.items()})
    # a tie doubles only when the double is a pass: cashing is as good as playing on
    double = dbl > nd + 1e-12 or (dbl >= nd - 1e-12 and response == "pass")
    if double:
        label = {"take": DOUBLE_TAKE, "pass": DOUBLE_PASS, "beaver": DOUBLE_BEAVER}[response]
    elif nd > dp:
        label = TOO_GOOD_PASS if response == "pass" else TOO_GOOD_TAKE
    else:
        label = NO_DOUBLE_BEAVER if response == "beaver" else NO_DOUBLE
    return label, double, response, costs


def _score_figures(cube: Cube, met: MatchEquity) -> tuple[float | None, GammonPrice]:
    if cube.away is None:
        return MONEY_TAKE_POINT, GammonPrice(MONEY_GAMMON_PRICE, MONEY_GAMMON_PRICE)
    a, b = cube.away
    post = cube.post_crawford
    if not cube.can_double:
        return None, met.gammon_price(a, b, cube.value, crawford=cube.crawford, post_crawford=post)
    tp = met.take_point(b, a, cube.value, post_crawford=post)
    return tp, met.gammon_price(a, b, 2 * cube.value, post_crawford=post)


def _assemble(
    probs: Sequence[float] | Array,
    cube: Cube,
    met: MatchEquity,
    x: float,
    ply: int,
    raw: tuple[float, float, float],
) -> CubeDecision:
    """Build the decision from ND, DT, DP in points (money) or MWC (match)."""
    from_probs = np.asarray(probs, dtype=np.float64)
    pr = (
        float(from_probs[0]),
        float(from_probs[1]),
        float(from_probs[2]),
        float(from_probs[3]),
        float(from_probs[4]),
    )
    cubeless = 2 * pr[0] - 1 + pr[1] - pr[3] + pr[2] - pr[4]
    notes: list[str] = []
    if cube.crawford:
        notes.append("Crawford game: no doubling")
    elif cube.owner == "opponent":
        notes.append("the opponent owns the cube")
    if cube.dead and cube.can_double:
        notes.append("dead cube: a single win on this cube already wins the match")
    if cube.jacoby and cube.owner == "centre":
        notes.append("Jacoby: gammons count only once the cube is turned")
    tp, gp = _score_figures(cube, met)
    nd_r, dt_r, dp_r = raw
    if cube.away is None:
        v = float(cube.value)
        nd, dt, dp = nd_r / v, dt_r / v, dp_r / v
        mwc: tuple[float | None, float | None, float | None] = (None, None, None)
    else:
        nd, dt, dp = (float(emg(r, cube, met)) for r in raw)
        mwc = (nd_r, dt_r, dp_r)
    if not cube.can_double:
        return CubeDecision(
            pr, cubeless, x, ply, nd, None, None, nd, NO_CUBE, False, None, {"no double": 0.0},
            False, cube.dead, tp, gp, mwc[0], None, None, mwc[0], tuple(notes),
        )  # fmt: skip
    label, double, response, costs = _decide(nd, dt, dp, cube.beaver)
    dbl_eff = float(beavered(np.array([dt]), cube)[0])
    value = min(dbl_eff, dp) if double else nd
    mwc_value = None
    if cube.away is not None:
        mwc_value = min(dt_r, dp_r) if double else nd_r
    return CubeDecision(
        pr, cubeless, x, ply, nd, dt, dp, value, label, double, response, costs,
        True, cube.dead, tp, gp, mwc[0], mwc[1], mwc[2], mwc_value, tuple(notes),
    )  # fmt: skip


def _raw_equities(probs: Array, cube: Cube, x: Array, met: MatchEquity) -> tuple[Array, Array, Array]:
    """ND, DT, DP in points (money) or MWC (match) for a batch sharing one cube."""
    if cube.away is None:
        nd, dt, dp = money_equities(probs, cube, x)
        v = float(cube.value)
        return nd * v, dt * v, dp * v
    return match_equities(probs, cube, x, met)


def decision_from_probs(
    probs: Sequence[float] | Array, state: CubeState, x: float | None = None, ply: int = 0
) -> CubeDecision:
    """The 0-ply cube decision from given cubeless probabilities (any source).

    ``x`` defaults to the efficiency of the state's position class.

    >>> from pulvezar.rules.position import Position
    >>> d = decision_from_probs((0.65, 0.0, 0.0, 0.0, 0.0), CubeState(Position.start()), x=1.0)
    >>> d.action, round(d.nd, 4), round(d.dt, 4), round(d.costs["double"], 4)
    ('No double, take', 0.5, 0.25, 0.25)
    """
    cube, met = state.cube, state.table
    board = np.frombuffer(state.position.board, dtype=np.uint8).reshape(1, 50)
    xs = efficiency(board) if x is None else np.array([float(x)])
    p = np.asarray(probs, dtype=np.float64).reshape(1, 5)
    nd, dt, dp = _raw_equities(p, cube, xs, met)
    return _assemble(p[0], cube, met, float(xs[0]), ply, (float(nd[0]), float(dt[0]), float(dp[0])))


# ---- n-ply -------------------------------------------------------------------------
class CubeSearch:
    """Cubeful lookahead on top of a checker :class:`~pulvezar.search.plies.Search`, choosing the
    replies as it does (pruned when the search is)."""

    def __init__(self, search: Search, met: MatchEquity) -> None:
        self.search = search
        self.met = met

    def _leaf(self, boards: Boards, cubes: list[Cube]) -> tuple[Array, Array, Array]:
        probs = self.search.cached.evaluate_boards(boards)
        x = efficiency(boards)
        out = np.full((3, len(boards)), np.nan)
        for cube in set(cubes):
            idx = np.array([i for i, c in enumerate(cubes) if c == cube], dtype=np.intp)
            nd, dt, dp = _raw_equities(probs[idx], cube, x[idx], self.met)
            out[0, idx], out[1, idx], out[2, idx] = nd, beavered(dt, cube), dp
        return out[0], out[1], out[2]

    def _children(self, boards: Boards) -> Boards:
        """``(N, 21, 50)``: the position after each roll's best play, the opponent on roll."""
        from pulvezar.rules import _kernel
        from pulvezar.search.plies import ROLLS

        gen, flags, rec = _kernel.generate, self.search.rules.kernel_flags, _kernel.REC
        recs = [gen(b.tobytes(), d1, d2, flags) for b in boards for d1, d2 in ROLLS]
        counts = np.fromiter((len(r) // rec for r in recs), dtype=np.intp, count=len(recs))
        results = np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, rec)[:, :50]
        after = np.concatenate([results[:, 25:], results[:, :25]], axis=1)
        first = self.search._best_of_segments(after, counts, np.repeat(boards, len(ROLLS), axis=0))
        return np.ascontiguousarray(after[first]).reshape(len(boards), len(ROLLS), 50)

    def equities(self, boards: Boards, cubes: list[Cube], ply: int) -> tuple[Array, Array, Array]:
        """ND, DT (beavered), DP of each (board, cube), points or MWC, at ``ply``."""
        from pulvezar.eval.evaluator import terminal
        from pulvezar.search.plies import ROLL_WEIGHTS

        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        if ply == 0 or len(boards) == 0:
            return self._leaf(boards, cubes)
        nd, dt, dp = self._leaf(boards, cubes)  # finished games keep these; DP is exact
        done, _ = terminal(boards)
        todo = np.flatnonzero(~done)
        if len(todo) == 0:
            return nd, dt, dp
        keys = [boards[i].tobytes() for i in todo]
        uniq: dict[bytes, int] = {}
        for k in keys:
            uniq.setdefault(k, len(uniq))
        ub = np.frombuffer(b"".join(uniq), dtype=np.uint8).reshape(-1, 50)
        kids = self._children(ub)
        pairs: dict[tuple[int, Cube], int] = {}
        wants: list[tuple[int, int, int]] = []  # (node, option 0 = ND / 1 = DT, pair)
        for node, k in zip(todo, keys, strict=True):
            cube = cubes[node]
            options = [cube.swap()]
            if cube.can_double:
                options.append(cube.doubled().swap())
            for opt, child in enumerate(options):
                pair = pairs.setdefault((uniq[k], child), len(pairs))
                wants.append((int(node), opt, pair))
        order = list(pairs)
        child_boards = np.concatenate([kids[u] for u, _ in order])
        child_cubes = [c for _, c in order for _ in range(kids.shape[1])]
        cnd, cdt, cdp = self.equities(child_boards, child_cubes, ply - 1)
        value = best_value(cnd, cdt, cdp).reshape(len(order), -1)
        for at, opt, pair in wants:
            v = value[pair]
            mine = -v if cubes[at].is_money else 1.0 - v
            avg = float(mine @ ROLL_WEIGHTS)
            if opt == 0:
                nd[at] = avg
            else:
                dt[at] = float(beavered(np.array([avg]), cubes[at])[0])
        return nd, dt, dp


def cube_decision(
    state: CubeState,
    evaluator: Evaluator | None = None,
    *,
    ply: int | None = None,
    level: str | None = None,
    max_ply: int = MAX_CUBE_PLY,
    prune: bool = True,
) -> CubeDecision:
    """The cube decision of the player on roll at ``ply`` (0..``max_ply``, at most
    :data:`MAX_DEEP_CUBE_PLY`) or a hint level; at 1 ply or deeper the replies are pruned
    (:func:`~pulvezar.search.plies.default_prune`) unless ``prune=False``.

    >>> from pulvezar.rules.position import Position
    >>> d = cube_decision(CubeState(Position.start()))
    >>> d.action, d.double
    ('No double, take', False)
    """
    from pulvezar.search.hint import STRENGTHS, searcher

    if level is not None:
        if level not in STRENGTHS:
            raise PulvezarError(f"unknown level {level!r}; levels: {', '.join(STRENGTHS)}", field="level")
        depth = STRENGTHS[level].ply if ply is None else ply
    else:
        depth = 0 if ply is None else ply
    top = min(max_ply, MAX_DEEP_CUBE_PLY)
    if not 0 <= depth <= top:
        raise PulvezarError(f"cube decisions search 0..{top} plies, got {depth}", field="ply")
    search = searcher(evaluator, state.rules, prune)
    board = np.frombuffer(state.position.board, dtype=np.uint8).reshape(1, 50)
    cube, met = state.cube, state.table
    probs = search.probabilities(board, depth)[0]
    if depth == 0:
        return decision_from_probs(probs, state, ply=0)
    nd, dt, dp = CubeSearch(search, met).equities(board, [cube], depth)
    raw_dt = float(dt[0])
    if cube.beaver and raw_dt < 0:
        raw_dt /= 2.0  # report DT itself; the beaver is the taker's response
    x = float(efficiency(board)[0])
    return _assemble(probs, cube, met, x, depth, (float(nd[0]), raw_dt, float(dp[0])))


__all__ = [
    "DOUBLE_BEAVER",
    "DOUBLE_PASS",
    "DOUBLE_TAKE",
    "NO_CUBE",
    "NO_DOUBLE",
    "NO_DOUBLE_BEAVER",
    "TOO_GOOD_PASS",
    "TOO_GOOD_TAKE",
    "CubeDecision",
    "CubeSearch",
    "CubeState",
    "cube_decision",
    "decision_from_probs",
]
