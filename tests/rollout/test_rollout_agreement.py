"""Rollout agreement: exact bear-off values, unbiased variance reduction, and gnubg 1.07's own
rollouts of race positions.

The gnubg driver (one command file, run under a pseudo-terminal) and the gnubg-nn chooser are
those of ``bench/rollout_agreement.py``, loaded from its file.
"""

import importlib.util
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import BearoffRaces, boards_of, default_evaluator, equity
from pulvezar.rollouts import difference_noise, greedy_chooser, rollout

BENCH = Path(__file__).resolve().parents[2] / "bench" / "rollout_agreement.py"
RULES = Rules.international()
NET_THRESHOLD = 0.02  # the nets "agree" on a position when their 0-ply equities differ by at most this

BEAROFF = [  # two-sided (6 checkers, 6 points) and one-sided coverage
    Position.from_points({3: 2, 2: 2, 1: 1}, {4: 1, 3: 2, 1: 2}),
    Position.from_points({6: 2, 5: 1, 4: 2, 2: 1}, {5: 2, 3: 2, 2: 2}),
    Position.from_points({6: 2, 5: 2, 3: 3, 1: 2}, {6: 3, 4: 2, 2: 2, 1: 1}),
]
RACES = [  # races where the nets' 0-ply equities agree
    Position.from_points({12: 3, 11: 3, 10: 3, 9: 3, 8: 3}, {6: 2, 5: 2, 3: 2}),  # gammon all but sure
    Position.from_points({10: 1, 6: 2, 5: 2, 4: 2}, {6: 2, 5: 2, 4: 2, 3: 1}),  # 40 v 33 pips
    # both sides' one-sided tables, gammons included (15 checkers each)
    Position.from_points({6: 4, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 2, 1: 1}),
]
#: lopsided races where the nets agree at the root (0-ply within 0.01) yet pulvezar's rollouts give
#: the leader 0.005-0.02 more than gnubg's (4-8 combined SE at 72-144 trials).  The cause is the
#: trailer's 0-ply chequer play: with gnubg-nn choosing the trailer's plays in pulvezar's engine the
#: rollouts agree with gnubg's; with it choosing the leader's they stay where pulvezar's are
#: (``bench/rollout_agreement.py --diagnose``).  ``(position, the side on roll trails)``
LOPSIDED = [
    (Position.from_points({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, {8: 3, 7: 3, 6: 3, 5: 3, 4: 3}), False),  # 60 v 90
    (Position.from_points({9: 3, 8: 3, 6: 3, 5: 3, 4: 3}, {6: 3, 5: 3, 4: 3, 3: 3}), True),  # 96 v 54
    (Position.from_points({11: 2, 9: 2, 7: 3, 6: 3, 5: 3, 4: 2}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2}), True),
]
AFTER_31 = RULES.legal_plays(Position.start(), (3, 1)).find("8/5 6/5").position.swap()


@pytest.fixture(scope="module")
def ev():
    return default_evaluator()


@pytest.mark.parametrize("pos", BEAROFF, ids=lambda p: p.position_id)
def test_bearoff_rollouts_match_the_exact_value(ev, pos) -> None:
    assert BearoffRaces.covers(boards_of([pos]))[0]
    exact = float(equity(ev.evaluate(pos)[None], RULES)[0])
    stopped = rollout(pos, trials=36, seed=5, evaluator=ev)
    assert stopped.equity == pytest.approx(exact, abs=1e-9)
    assert stopped.equity_se == pytest.approx(0.0, abs=1e-9)
    # played out to the last checker: plain dice, within 3 SE of the exact value
    plain = rollout(pos, trials=144, seed=5, evaluator=ev, bearoff_stop=False, variance_reduction=False)
    assert abs(plain.equity - exact) <= 3 * plain.equity_se, (plain, exact)
    # with variance reduction the luck telescopes to (final - exact) where the values obey the
    # one-roll recursion (two-sided table), leaving rounding; the one-sided race table only nearly does
    vr = rollout(pos, trials=144, seed=5, evaluator=ev, bearoff_stop=False)
    assert abs(vr.equity - exact) <= 3 * vr.equity_se + 1e-3, (vr, exact)


def _bench():
    if not os.path.exists("/usr/games/gnubg"):
        pytest.skip("Debian gnubg CLI not installed")
    if not BENCH.exists():
        pytest.skip("bench/rollout_agreement.py not present")
    spec = importlib.util.spec_from_file_location("rollout_agreement", BENCH)
    assert spec is not None and spec.loader is not None
    if spec.name not in sys.modules:  # its dataclasses resolve annotations through sys.modules
        sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def _compare(ev, positions, trials=72):
    """``(position, pulvezar result, gnubg result, z)`` where the nets agree at 0-ply."""
    bench = _bench()
    gnubg = bench.GnubgRun([p.position_id for p in positions], trials, seed=1)
    ours = [rollout(p, trials=trials, seed=1, evaluator=ev) for p in positions]
    theirs = gnubg.results(timeout=120)
    out = []
    for pos, r, g in zip(positions, ours, theirs, strict=True):
        if abs(bench.static_equity(ev, pos, RULES) - g.static_equity) > NET_THRESHOLD:
            continue  # the nets disagree: the rollouts need not agree
        se = max(math.hypot(r.equity_se, g.se), bench.SE_FLOOR)
        out.append((pos.position_id, r.equity, g.equity, (r.equity - g.equity) / se))
    return out


@pytest.mark.oracle
def test_race_rollouts_agree_with_gnubg(ev) -> None:
    compared = _compare(ev, RACES)
    assert compared, "the nets disagree on every position"
    for pid, ours, theirs, z in compared:
        assert abs(z) <= 3, (pid, ours, theirs, z)


def test_luck_cancels_exactly_over_stratified_rolls(ev) -> None:
    """Over 2 x 1296 trials each of the first two rolls meets every outcome equally often, so the
    luck of those rolls sums to zero *if* it is the value after the roll minus the probability-weighted
    mean over the 21 rolls, with the right sign for either side: variance-reduced = plain, to rounding."""
    for pos in (AFTER_31, RACES[1], LOPSIDED[2][0]):
        kw = dict(trials=2592, seed=3, evaluator=ev, truncate=2)
        vr = rollout(pos, **kw)
        plain = rollout(pos, variance_reduction=False, **kw)
        assert vr.equity_se < plain.equity_se  # the luck is not zero trial by trial
        assert np.abs(vr.probabilities - plain.probabilities).max() < 1e-12, pos.position_id


def test_variance_reduction_is_unbiased_in_a_played_out_race(ev) -> None:
    """Played to the end (or to the exact bear-off tables), the same dice: the variance-reduced mean
    equals the plain one within the noise of their paired difference, which is small enough to
    show a bias of 0.01 at more than 3 standard errors."""
    pos = LOPSIDED[0][0]
    vr = rollout(pos, trials=648, seed=1, evaluator=ev)
    plain = rollout(pos, trials=648, seed=1, evaluator=ev, variance_reduction=False)
    noise = difference_noise(vr, plain)
    assert noise < 0.01 / 3.5
    assert abs(vr.equity - plain.equity) <= 3 * noise, (vr, plain, noise)


def _sides(trailer_on_roll: bool, trailer, leader):
    """A chooser with ``trailer`` for the trailing side and ``leader`` for the other."""
    bench = _bench()
    return bench.side_chooser(trailer, leader) if trailer_on_roll else bench.side_chooser(leader, trailer)


@pytest.mark.oracle
def test_lopsided_races_differ_from_gnubg_only_by_the_trailers_play(ev) -> None:
    """pulvezar's engine with gnubg-nn's 0-ply play reproduces gnubg's own rollouts; with gnubg-nn
    playing the trailer only, too; with gnubg-nn playing the leader only, pulvezar's own result."""
    pytest.importorskip("gnubg_nn")
    bench = _bench()
    trials = 144
    gnubg = bench.GnubgRun([p.position_id for p, _ in LOPSIDED], trials, seed=1)
    rows = []
    for pos, trailer_on_roll in LOPSIDED:
        gn = bench.gnubg_chooser()
        kw = dict(trials=trials, seed=1, evaluator=ev)
        rows.append(
            (
                rollout(pos, **kw),
                rollout(pos, chooser=gn, **kw),
                rollout(pos, chooser=_sides(trailer_on_roll, gn, greedy_chooser), **kw),
                rollout(pos, chooser=_sides(trailer_on_roll, greedy_chooser, gn), **kw),
            )
        )
    theirs = gnubg.results(timeout=300)
    for (pos, _), (own, gn_both, gn_trailer, gn_leader), g in zip(LOPSIDED, rows, theirs, strict=True):

        def z(a, b_equity, b_se):
            return (a.equity - b_equity) / max(math.hypot(a.noise, b_se), bench.SE_FLOOR)

        pid = pos.position_id
        assert abs(z(gn_both, g.equity, g.se)) <= 3, (pid, gn_both, g)
        assert abs(z(gn_trailer, g.equity, g.se)) <= 3, (pid, gn_trailer, g)
        assert abs(z(gn_leader, own.equity, own.noise)) <= 3, (pid, gn_leader, own)
