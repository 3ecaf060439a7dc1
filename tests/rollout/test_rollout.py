"""The rollout engine: deterministic per (seed, trial), stratified dice, variance reduction, stops."""

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import NetEvaluator, boards_of, default_evaluator, equity, flip
from pulvezar.eval.nets import ValueNet
from pulvezar.rollouts import RolloutResult, playable, rollout, rollout_plays
from pulvezar.rollouts.dice import half_of, trial_outcomes, trial_rolls

RULES = Rules.international()
AFTER_31 = RULES.legal_plays(Position.start(), (3, 1)).find("8/5 6/5").position.swap()  # opponent on roll
RACE = Position.from_points({6: 3, 5: 3, 4: 3, 8: 2, 9: 2}, {6: 4, 5: 3, 3: 3, 10: 2, 11: 1})
COVERED = Position.from_points({6: 2, 5: 2, 3: 3, 1: 2}, {6: 3, 4: 2, 2: 2, 1: 1})


@pytest.fixture(scope="module")
def small() -> NetEvaluator:
    torch.manual_seed(0)
    return NetEvaluator(ValueNet(16), ValueNet(8), device="cpu")


def test_dice_depend_on_seed_and_trial_only() -> None:
    t = np.arange(500)
    for step in (0, 1, 2, 9):
        whole = trial_rolls(7, t, step)
        assert np.array_equal(whole[123:321], trial_rolls(7, t[123:321], step))
        assert np.array_equal(whole[::-1], trial_rolls(7, t[::-1], step))
        assert not np.array_equal(whole, trial_rolls(8, t, step))
        assert ((whole >= 1) & (whole <= 6)).all()


def test_first_rolls_stratified_and_pairs_per_half() -> None:
    t = np.arange(2 * 1296)
    first, second = trial_outcomes(3, t, 0), trial_outcomes(3, t, 1)
    for a in range(0, len(t), 36):
        assert sorted(first[a : a + 36]) == list(range(36))
    for h in (0, 1):  # each half of 2592 trials holds every (first, second) pair once
        m = half_of(t) == h
        assert len(set(zip(first[m], second[m], strict=True))) == 1296
    later = trial_outcomes(3, t, 5)
    assert np.bincount(later, minlength=36).min() > 40  # no hole in the plain dice


def test_same_seed_same_values_and_chunks_equal_the_whole(small) -> None:
    kw = dict(seed=11, evaluator=small, truncate=10)
    whole = rollout(AFTER_31, trials=100, **kw)
    again = rollout(AFTER_31, trials=100, **kw)
    assert np.array_equal(whole.values, again.values)
    parts = [rollout(AFTER_31, trials=50, first_trial=f, **kw) for f in (50, 0)]
    merged = RolloutResult.merge(parts)
    assert np.array_equal(merged.trials_run, whole.trials_run)
    # bit for bit: the C forward pass gives a board the same value in any batch
    assert np.array_equal(merged.values, whole.values)
    other = rollout(AFTER_31, trials=100, **{**kw, "seed": 12})
    assert not np.array_equal(other.values, whole.values)


def test_candidates_get_the_same_dice(small) -> None:
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def spy(boards, dice, rules, evaluator):
        seen.append((boards.copy(), dice.copy()))
        from pulvezar.rollouts import greedy_chooser

        return greedy_chooser(boards, dice, rules, evaluator)

    plays = list(RULES.legal_plays(Position.start(), (3, 1)))[:3]
    res = rollout_plays(
        Position.start(), (3, 1), plays, trials=40, seed=5, evaluator=small,
        truncate=4, variance_reduction=False, chooser=spy,
    )  # fmt: skip
    assert len(seen) == 4
    for step, (_, dice) in enumerate(seen):
        per_cand = dice.reshape(3, 40, 2)
        assert (per_cand == per_cand[0]).all()
        assert np.array_equal(per_cand[0], trial_rolls(5, np.arange(40), step))
    # a candidate's rollout is the rollout of its position with the opponent on roll, flipped
    alone = rollout(plays[1].position.swap(), trials=40, seed=5, evaluator=small, truncate=4,
                    variance_reduction=False)  # fmt: skip
    assert np.allclose(res[1].values, flip(alone.values), atol=1e-12)


def test_covered_race_stops_at_once_with_the_exact_value(small) -> None:
    exact = small.evaluate(COVERED)
    r = rollout(COVERED, trials=36, evaluator=small)
    assert np.array_equal(r.values, np.tile(exact, (36, 1)))  # exact tables: no float32 net
    assert r.equity_se < 1e-12 and r.noise < 1e-12
    res = rollout_plays(COVERED, (4, 2), trials=36, evaluator=small)
    plays = RULES.legal_plays(COVERED, (4, 2))
    assert len(res) == len(plays)
    for p, rr in zip(plays, res, strict=True):
        assert np.allclose(rr.probabilities, flip(small.evaluate_boards(boards_of([p.position.swap()])))[0])


def test_covered_race_played_out_agrees_with_exact(small) -> None:
    exact = equity(small.evaluate(COVERED)[None, :])[0]
    vr = rollout(COVERED, trials=144, evaluator=small, bearoff_stop=False)
    plain = rollout(COVERED, trials=144, evaluator=small, bearoff_stop=False, variance_reduction=False)
    assert abs(vr.equity - exact) < 0.02  # exact evaluator: the luck nearly telescopes
    assert vr.equity_se < plain.equity_se / 5
    assert abs(plain.equity - exact) < 3 * plain.equity_se + 1e-9


def test_truncation(small) -> None:
    r0 = rollout(AFTER_31, trials=10, evaluator=small, truncate=0)
    assert np.allclose(r0.values, np.tile(small.evaluate(AFTER_31), (10, 1)), rtol=0, atol=1e-6)
    # truncated after one half-move: plain = value after the trial's best play ...
    r1 = rollout(AFTER_31, trials=12, seed=4, evaluator=small, truncate=1, variance_reduction=False)
    for i in range(12):
        d1, d2 = (int(x) for x in trial_rolls(4, [i], 0)[0])
        best = small.best_play(AFTER_31, (d1, d2))
        assert np.allclose(r1.values[i], flip(small.evaluate(best.position.swap())[None, :])[0])
    # ... and with variance reduction over every play every trial gets the 1-ply value (mean over 36 rolls)
    v1 = rollout(AFTER_31, trials=12, evaluator=small, truncate=1, luck="full")
    one_ply = (
        sum(
            (1 if a == b else 2)
            * flip(small.evaluate(small.best_play(AFTER_31, (a, b)).position.swap())[None, :])[0]
            for a in range(1, 7)
            for b in range(1, a + 1)
        )
        / 36
    )
    assert np.allclose(v1.values, np.tile(one_ply, (12, 1)))


def test_variance_reduction_cuts_the_error() -> None:
    ev = default_evaluator()
    cases = [(AFTER_31, 8), (RACE, None)]
    for pos, trunc in cases:
        vr = rollout(pos, trials=288, seed=2, evaluator=ev, truncate=trunc)
        plain = rollout(pos, trials=288, seed=2, evaluator=ev, truncate=trunc, variance_reduction=False)
        factor = plain.equity_se / vr.equity_se
        print(f"{pos.position_id} truncate={trunc}: VR {vr.equity:+.4f} +- {vr.equity_se:.4f}, "
              f"plain {plain.equity:+.4f} +- {plain.equity_se:.4f}, SE factor {factor:.1f}")  # fmt: skip
        assert factor > 3
        assert abs(vr.equity - plain.equity) < 3 * np.hypot(vr.equity_se, plain.equity_se)


def test_halves_blocks_noise_and_playable() -> None:
    rng = np.random.default_rng(0)
    ids = np.arange(144)
    base = rng.normal(0, 0.3, 144)

    def result(shift: float) -> RolloutResult:
        v = np.zeros((144, 5))
        v[:, 0] = (base + shift + 1) / 2  # equity = 2 w - 1
        return RolloutResult(ids, v, seed=1)

    best, bad = result(0.0), result(-0.5)
    close = result(-0.001)
    noise = rng.normal(0, 0.1, 144)
    close.values[:, 0] += noise - noise.mean()  # the candidates' trials differ; gap stays 0.001
    h0, h1 = best.halves
    assert h0.trials == h1.trials == 72 and not set(h0.trials_run) & set(h1.trials_run)
    assert len(best.blocks) == 4 and best.noise > 0
    assert playable([bad, close, best]) == [False, True, True]


def test_bad_options(small) -> None:
    with pytest.raises(ValueError, match="plies"):
        rollout(AFTER_31, trials=2, evaluator=small, ply=4)
    with pytest.raises(ValueError, match="legal"):
        rollout_plays(Position.start(), (3, 1), [AFTER_31], trials=2, evaluator=small)


def test_tavla_rules_and_shipped_net_sanity() -> None:
    r = rollout(AFTER_31, trials=36, truncate=6, rules=Rules.tavla(hit_and_stop=True))
    assert r.trials == 36 and -3 < r.equity < 3
    ev = default_evaluator()
    race = rollout(RACE, trials=72, evaluator=ev)
    zero = equity(ev.evaluate(RACE)[None, :])[0]
    assert abs(race.equity - zero) < 0.15  # a trained net's race value is close to its rollout


@pytest.mark.parametrize("cubeful", [False, True])
def test_deep_candidates_in_groups_give_the_same_bits(small, monkeypatch, cubeful) -> None:
    """At 1 ply the candidates are simulated a group at a time (memory); the grouping changes no bit."""
    from pulvezar.rollouts import engine

    plays = list(RULES.legal_plays(Position.start(), (3, 1)))[:3]
    opts = {"trials": 4, "seed": 9, "evaluator": small, "truncate": 2, "ply": 1, "cubeful": cubeful}
    monkeypatch.setattr(engine, "DEEP_TRIALS_AT_ONCE", 1000)
    together = rollout_plays(Position.start(), (3, 1), plays, **opts)
    monkeypatch.setattr(engine, "DEEP_TRIALS_AT_ONCE", 4)  # one candidate at a time
    calls = []
    simulate, cubeful_rollout = engine._simulate, engine.cubeful_rollout
    monkeypatch.setattr(engine, "_simulate", lambda *a: calls.append(1) or simulate(*a))
    monkeypatch.setattr(engine, "cubeful_rollout", lambda *a: calls.append(1) or cubeful_rollout(*a))
    grouped = rollout_plays(Position.start(), (3, 1), plays, **opts)
    assert len(calls) == 3  # three groups
    assert len(grouped) == len(together) == 3
    for a, b in zip(together, grouped, strict=True):
        assert np.array_equal(a.values, b.values)
        if cubeful:
            assert a.cubeful is not None and b.cubeful is not None
            assert np.array_equal(a.cubeful, b.cubeful)
