"""Rollouts with n-ply move choice, cubeful rollouts, cube-decision rollouts, deep analysis."""

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.cube import decision_from_probs
from pulvezar.cubeful import CubeState
from pulvezar.cubeful.janowski import Cube
from pulvezar.eval.evaluator import NetEvaluator, boards_of, equity
from pulvezar.eval.nets import ValueNet
from pulvezar.rollouts import (
    chooser_for,
    deep_analysis,
    greedy_chooser,
    ply_chooser,
    rollout,
    rollout_cube,
    rollout_plays,
)
from pulvezar.rollouts.dice import trial_rolls
from pulvezar.search import Search

RULES = Rules.international()
AFTER_31 = RULES.legal_plays(Position.start(), (3, 1)).find("8/5 6/5").position.swap()
EVEN = Position.from_points({6: 2, 5: 2, 4: 2}, {6: 2, 5: 2, 4: 2})  # exact tables: fast
AHEAD = Position.from_points({4: 2, 3: 2, 2: 1}, {6: 2, 5: 2, 4: 1})  # about 91 %
BEHIND = Position.from_points({6: 3, 5: 2, 4: 1}, {3: 2, 2: 2})  # about 5 %


@pytest.fixture(scope="module")
def small() -> NetEvaluator:
    torch.manual_seed(0)
    return NetEvaluator(ValueNet(16), ValueNet(8), device="cpu")


# ---- n-ply move choice ------------------------------------------------------------------
def test_ply1_rollout_equals_brute_force_choice(small) -> None:
    r = rollout(AFTER_31, trials=4, ply=1, seed=3, evaluator=small, truncate=2, variance_reduction=False)
    search = Search(small, RULES)
    for i in range(4):
        pos = AFTER_31
        for step in range(2):
            d1, d2 = (int(x) for x in trial_rolls(3, [i], step)[0])
            pos = search.rank(pos, (d1, d2), ply=1)[0].play.position.swap()
        # two half-moves: the rollout's side is on roll again
        assert np.allclose(r.values[i], small.evaluate(pos), rtol=0, atol=1e-5)
    again = rollout(AFTER_31, trials=4, ply=1, seed=3, evaluator=small, truncate=2, variance_reduction=False)
    assert np.allclose(again.values, r.values, rtol=0, atol=1e-6)


def test_ply_chooser_matches_rank_at_2_ply(small) -> None:
    boards = boards_of([AFTER_31, Position.start()])
    dice = np.array([[6, 1], [4, 2]], dtype=np.int64)
    nxt, probs = chooser_for(2)(boards, dice, RULES, small)
    search = Search(small, RULES)
    for k, pos in enumerate((AFTER_31, Position.start())):
        best = search.rank(pos, (int(dice[k, 0]), int(dice[k, 1])), ply=2)[0]
        assert bytes(nxt[k]) == best.play.position.swap().board
        assert np.allclose(probs[k], best.probs, atol=1e-6)
    assert chooser_for(0) is greedy_chooser and ply_chooser(0) is greedy_chooser
    with pytest.raises(ValueError):
        ply_chooser(4)


# ---- cubeful rollouts and cube decisions -----------------------------------------------------
def test_cubeless_branch_agrees_with_exact_and_stop_gives_janowski(small) -> None:
    exact = equity(small.evaluate(EVEN)[None, :])[0]
    r = rollout_cube(CubeState(EVEN), trials=144, seed=2, evaluator=small, bearoff_stop=False)
    assert abs(r.no_double.equity - exact) < 0.02  # exact evaluator: the cubeless luck telescopes
    assert r.double_take is not None and r.noise < 0.05
    # stopping at once on the exact race: the 0-ply Janowski values of the exact probabilities
    at_once = rollout_cube(CubeState(EVEN), trials=36, evaluator=small)
    d = decision_from_probs(small.evaluate(EVEN), CubeState(EVEN))
    assert at_once.nd == pytest.approx(d.nd) and at_once.dt == pytest.approx(d.dt)


def test_far_ahead_double_pass_and_far_behind_no_double(small) -> None:
    ahead = rollout_cube(CubeState(AHEAD), trials=72, evaluator=small, bearoff_stop=False)
    assert ahead.dt is not None and ahead.dt > 1 and ahead.dp == 1.0
    assert ahead.action == "Double, pass" and ahead.value == 1.0
    behind = rollout_cube(CubeState(BEHIND), trials=72, evaluator=small, bearoff_stop=False)
    assert behind.action.startswith("No double") and not behind.double
    assert behind.dt is not None and behind.dt < behind.nd < 0


def test_branches_get_the_same_dice(small) -> None:
    seen: list[np.ndarray] = []

    def spy(boards, dice, rules, evaluator):
        seen.append(dice.copy())
        return greedy_chooser(boards, dice, rules, evaluator)

    rollout_cube(
        CubeState(EVEN), trials=36, seed=9, evaluator=small, bearoff_stop=False,
        variance_reduction=False, chooser=spy,
    )  # fmt: skip
    first = seen[0].reshape(2, 36, 2)
    assert np.array_equal(first[0], first[1])
    assert np.array_equal(first[0], trial_rolls(9, np.arange(36), 0))


def test_cubeful_rollout_of_one_position_and_of_plays(small) -> None:
    r = rollout(AHEAD, trials=36, evaluator=small, cubeful=True, bearoff_stop=False)
    assert r.cubeful is not None and r.cubeful_equity == pytest.approx(1.0)  # doubles, is passed
    assert r.cubeful_se == 0.0
    # stopping at once: the decision's value (the best cube action) from the exact probabilities
    d = decision_from_probs(small.evaluate(EVEN), CubeState(EVEN))
    at_once = rollout(EVEN, trials=36, evaluator=small, cubeful=True)
    assert at_once.cubeful_equity == pytest.approx(d.value)
    owned = rollout(EVEN, trials=36, evaluator=small, cubeful=True, cube=Cube(2, "opponent"))
    assert owned.cubeful_equity < at_once.cubeful_equity
    res = rollout_plays(EVEN, (6, 5), trials=36, evaluator=small, cubeful=True, truncate=2)
    assert all(x.cubeful is not None for x in res) and len(res) == len(RULES.legal_plays(EVEN, (6, 5)))
    with pytest.raises(ValueError, match="cube"):
        rollout(EVEN, trials=2, evaluator=small, cubeful=True, rules=Rules.tavla())


def test_match_cube_rollout(small) -> None:
    st = CubeState(AHEAD, match_length=5, score=(2, 1))
    r = rollout_cube(st, trials=36, evaluator=small, bearoff_stop=False)
    assert r.dp == 1.0 and r.mwc_dp == pytest.approx(st.table.after(2, 4, crawford_or_later=False))
    assert r.mwc_nd is not None and 0 <= r.mwc_nd <= 1
    assert r.double  # 91 % in a race at 3-away, 4-away


# ---- deep analysis ---------------------------------------------------------------------------
def test_deep_analysis_tiny(small) -> None:
    plays = list(RULES.legal_plays(Position.start(), (3, 1)))[:3]
    res = deep_analysis(
        Position.start(), (3, 1), plays, small, seed=4, trials=72, ply=1, truncate=2
    )  # fmt: skip
    assert len(res) == 3 and res[0].loss == 0.0 and res[0].loss_noise == 0.0
    eqs = [c.equity for c in res]
    assert eqs == sorted(eqs, reverse=True)
    for c in res:
        assert c.loss == pytest.approx(res[0].equity - c.equity)
        assert c.equity == pytest.approx((c.ply_equity + c.rollout.equity) / 2)
        h0, h1 = c.halves
        assert c.rollout.trials == 72 and min(h0, h1) - 1e-9 <= c.equity <= max(h0, h1) + 1e-9
        lo, hi = c.band()
        assert lo <= c.equity <= hi
    default = deep_analysis(Position.start(), (6, 5), None, small, trials=36, ply=1, truncate=1)
    assert default and {c.ply for c in default} == {1}
