"""Screened variance reduction: the 21 rolls' luck valued among the plays a cheap net ranks first.

The trials' own plays do not change, the luck terms keep their zero mean whatever the screen
misses, so a screened rollout estimates the same value as one that values every play; only
the variance removed may differ (ADR 0010).
"""

from __future__ import annotations

import numpy as np
import pytest

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import default_evaluator, equity, screen_evaluator
from pulvezar.rollouts import rollout, rollout_plays
from pulvezar.rollouts.lockstep import ROLLS, greedy_chooser, screened_chooser

AFTER_31 = Rules.international().legal_plays(Position.start(), (3, 1)).find("8/5 6/5").position.swap()


def _boards_and_rolls(n: int = 30) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    rules, pos, out = Rules.international(), Position.start(), []
    while len(out) < n:
        plays = rules.legal_plays(pos, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        after = plays[int(rng.integers(len(plays)))].position
        pos = after.swap() if rules.game_result(after) is None else Position.start()
        out.append(pos.board)
    boards = np.frombuffer(b"".join(out), dtype=np.uint8).reshape(-1, 50)
    return np.repeat(boards, len(ROLLS), axis=0), np.tile(ROLLS, (n, 1))


def test_a_screen_that_keeps_every_play_chooses_as_the_net_does() -> None:
    boards, dice = _boards_and_rolls()
    net, rules = default_evaluator(), Rules.international()
    full_after, full_probs = greedy_chooser(boards, dice, rules, net)
    after, probs = screened_chooser(screen_evaluator(), keep=64)(boards, dice, rules, net)
    assert np.array_equal(after, full_after)
    assert np.array_equal(probs, full_probs)


def test_the_screen_keeps_the_nets_best_play_nearly_always_and_never_values_above_it() -> None:
    boards, dice = _boards_and_rolls()
    net, rules = default_evaluator(), Rules.international()
    _, full = greedy_chooser(boards, dice, rules, net)
    _, kept = screened_chooser(screen_evaluator(), keep=2)(boards, dice, rules, net)
    gap = equity(full, rules) - equity(kept, rules)
    assert (gap >= -1e-12).all()  # the best of a subset is never better than the best of all
    assert (gap < 1e-12).mean() > 0.8, (gap < 1e-12).mean()
    assert gap.mean() < 0.01


def test_a_net_screening_for_itself_gives_the_full_rollout_exactly() -> None:
    net = default_evaluator()
    full = rollout(AFTER_31, trials=36, evaluator=net, luck="full")
    own = rollout(AFTER_31, trials=36, evaluator=net, luck=screened_chooser(net, keep=1))
    assert np.array_equal(own.values, full.values)


def test_screened_and_full_luck_estimate_the_same_value_on_the_same_trials() -> None:
    """Paired by trial (same dice, same plays): the difference of the two estimates has mean zero."""
    net = default_evaluator()
    full = rollout(AFTER_31, trials=144, evaluator=net, luck="full")
    screened = rollout(AFTER_31, trials=144, evaluator=net)  # the default
    d = full.equities - screened.equities
    assert np.abs(d).max() > 0  # the screen changed some luck terms ...
    assert abs(d.mean()) < 4 * d.std(ddof=1) / np.sqrt(len(d)) + 1e-12  # ... not their mean
    assert screened.equity_se < 1.3 * full.equity_se


def test_without_variance_reduction_the_screen_changes_nothing() -> None:
    net = default_evaluator()
    a = rollout(AFTER_31, trials=12, evaluator=net, variance_reduction=False)
    b = rollout(AFTER_31, trials=12, evaluator=net, variance_reduction=False, luck="full")
    assert np.array_equal(a.values, b.values)


def test_tavla_and_candidate_rollouts_take_the_screen_too() -> None:
    rules = Rules.tavla(hit_and_stop=True)
    net = default_evaluator()
    plays = list(rules.legal_plays(Position.start(), (4, 2)))[:2]
    full = rollout_plays(Position.start(), (4, 2), plays, trials=36, evaluator=net, rules=rules, luck="full")
    screened = rollout_plays(Position.start(), (4, 2), plays, trials=36, evaluator=net, rules=rules)
    assert len(full) == len(screened) == 2
    for f, s in zip(full, screened, strict=True):
        assert abs(f.equity - s.equity) < 3 * np.hypot(f.equity_se, s.equity_se) + 1e-9


def test_an_unknown_luck_is_refused() -> None:
    with pytest.raises(ValueError, match="luck is one of screened, full"):
        rollout(AFTER_31, trials=1, luck="cheap")
    with pytest.raises(ValueError, match="keep is at least 1"):
        screened_chooser(screen_evaluator(), keep=0)
