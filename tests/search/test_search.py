"""Search: ply numbering, filters, batching, the cache, hint and levels."""

import random

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import NetEvaluator, default_evaluator, equity
from pulvezar.eval.nets import ValueNet
from pulvezar.search import (
    FILTERS,
    PRUNE_KEEP,
    ROLL_WEIGHTS,
    ROLLS,
    STRENGTHS,
    EvalCache,
    FilterStage,
    MoveFilter,
    Prune,
    Search,
    default_prune,
    hint,
    move_filter,
    searcher,
)

INTL = Rules.international()
ALL = MoveFilter("all", (None,))  # no screening: every play goes to the full depth


@pytest.fixture(scope="module")
def small() -> NetEvaluator:
    torch.manual_seed(7)
    return NetEvaluator(ValueNet(16), ValueNet(8), device="cpu")


def midgame_positions(n: int, seed: int = 3) -> list[Position]:
    """Contact positions reached by random play from the start."""
    rng = random.Random(seed)
    out: list[Position] = []
    p = Position.start()
    while len(out) < n:
        plays = INTL.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
        q = plays[rng.randrange(len(plays))].position
        if INTL.game_result(q) is not None or not q.is_contact():
            p = Position.start()
            continue
        p = q.swap()
        if rng.random() < 0.3:
            out.append(p)
    return out


def brute_one_ply(ev: NetEvaluator, after: Position, rules: Rules) -> np.ndarray:
    """1-ply probabilities of a play's result (mover's view), one roll and reply at a time."""
    opp = after.swap()
    total = np.zeros(5)
    for (d1, d2), w in zip(ROLLS, ROLL_WEIGHTS, strict=True):
        best, best_probs = -np.inf, np.zeros(5)
        for reply in rules.legal_plays(opp, (d1, d2)):
            mover = ev.evaluate(reply.position.swap())  # the original mover is on roll
            eq = -equity(mover[None, :], rules)[0]  # the replier's equity
            if eq > best + 1e-12:
                best, best_probs = eq, mover
        total += w * best_probs
    return total


def test_weights_cover_36() -> None:
    assert len(ROLLS) == 21
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("dice", [(3, 1), (6, 5), (4, 4), (2, 1)])
def test_zero_ply_hint_is_best_play(dice: tuple[int, int], small: NetEvaluator) -> None:
    ev = default_evaluator()
    for pos in [Position.start(), *midgame_positions(4)]:
        for e in (ev, small):
            cands = hint(pos, dice, ply=0, evaluator=e)
            assert cands[0].play == e.best_play(pos, dice, INTL)
            assert cands[0].loss == 0.0
            assert all(c.loss >= 0 for c in cands)
            eqs = [c.equity for c in cands]
            assert eqs == sorted(eqs, reverse=True)
            assert len(cands) == len(INTL.legal_plays(pos, dice))


def test_one_ply_matches_brute_force(small: NetEvaluator) -> None:
    s = Search(small, INTL, prune=None)  # the unpruned search's definition (pruning: the tests below)
    for pos, dice in zip(midgame_positions(3, seed=11), [(5, 2), (3, 3), (6, 1)], strict=True):
        cands = s.rank(pos, dice, ply=1, filter=ALL)
        assert all(c.ply == 1 for c in cands)
        for c in cands[:3]:
            expect = brute_one_ply(small, c.play.position, INTL)
            np.testing.assert_allclose(c.probs, expect, atol=1e-6)


def test_two_ply_is_one_ply_of_the_zero_ply_reply(small: NetEvaluator) -> None:
    s = Search(small, INTL, prune=None)  # the unpruned search's definition (best_play: every reply)
    pos = midgame_positions(1, seed=4)[0]
    c = s.rank(pos, (4, 2), ply=2, filter=FILTERS["tiny"])[0]
    assert c.ply == 2
    opp = c.play.position.swap()
    total = np.zeros(5)
    for roll, w in zip(ROLLS, ROLL_WEIGHTS, strict=True):
        reply = small.best_play(opp, roll, INTL).position
        one = s.probabilities(np.frombuffer(reply.swap().board, dtype=np.uint8).reshape(1, 50), 1)[0]
        total += w * one
    np.testing.assert_allclose(c.probs, total, atol=1e-9)


def test_filter_stage_select() -> None:
    eq = np.array([0.0, 0.5, 0.45, 0.30, 0.49, -0.2])
    assert FilterStage(1, 8, 0.16).select(eq).tolist() == [1, 4, 2]
    assert FilterStage(1, 1, 0.16).select(eq).tolist() == [1, 4]
    assert FilterStage(3, 0, 0.0).select(eq).tolist() == [1, 4, 2]
    assert FilterStage(2, 8, 0.0).select(eq).tolist() == [1, 4]
    with pytest.raises(ValueError):
        FilterStage(0, 1, 0.1)


def test_filters_keep_the_right_candidates(small: NetEvaluator) -> None:
    s = Search(small, INTL)
    pos = Position.start()
    zero = s.rank(pos, (6, 4), ply=0)
    eq0 = {c.play.position: c.equity for c in zero}
    for name in ("tiny", "normal", "large"):
        stage = FILTERS[name].stage(0)
        assert stage is not None
        deep = s.rank(pos, (6, 4), ply=1, filter=name)
        kept = {c.play.position for c in deep if c.ply == 1}
        best = zero[0].equity
        within = [c for c in zero[1:] if c.equity >= best - stage.threshold - 1e-12]
        expect = {zero[0].play.position} | {c.play.position for c in within[: stage.extra]}
        assert kept == expect, name
        # the deep ones come first, the screened-out ones keep their 0-ply value
        plies = [c.ply for c in deep]
        assert plies == sorted(plies, reverse=True)
        for c in deep:
            if c.ply == 0:
                assert c.equity == pytest.approx(eq0[c.play.position])
    assert move_filter(None) is FILTERS["normal"]
    with pytest.raises(ValueError):
        move_filter("huge")


def test_custom_filter_screens_at_one_ply(small: NetEvaluator) -> None:
    s = Search(small, INTL)
    custom = MoveFilter("mine", (FilterStage(4, 0, 0.0), FilterStage(2, 0, 0.0)))
    cands = s.rank(Position.start(), (5, 3), ply=2, filter=custom)
    assert [c.ply for c in cands].count(2) == 2
    assert [c.ply for c in cands].count(1) == 2


def test_cache_hits_on_repeated_calls(small: NetEvaluator) -> None:
    s = Search(small, INTL, cache=EvalCache(100_000))
    pos = midgame_positions(1, seed=9)[0]
    first = s.rank(pos, (6, 2), ply=2, filter="tiny")
    calls, misses = s.cached.calls, s.cache.misses
    assert misses > 0 and calls >= 1
    again = s.rank(pos, (6, 2), ply=2, filter="tiny")
    assert s.cached.calls == calls  # nothing new reached the net
    assert s.cache.misses == misses and s.cache.hits > 0
    assert [c.cubeless_equity for c in again] == [c.cubeless_equity for c in first]


def test_cache_is_bounded() -> None:
    cache = EvalCache(3)
    keys = [bytes([i]) * 50 for i in range(5)]
    cache.store(keys, np.arange(25, dtype=np.float64).reshape(5, 5))
    assert len(cache) == 3
    found, probs = cache.lookup(keys)
    assert found == [2, 3, 4] and probs[0, 0] == 10.0
    assert cache.hits == 3 and cache.misses == 2


@pytest.mark.parametrize("prune", [True, None])
def test_batching_one_call_per_level(small: NetEvaluator, prune: bool | None) -> None:
    s = Search(small, INTL, cache=EvalCache(0), prune=prune)  # no cache: every level reaches the net
    s.rank(Position.start(), (4, 1), ply=1, filter=ALL)
    # the plays at 0 ply and the replies at 0 ply (pruned: the kept ones); the chosen replies' values are
    # those they were chosen by, not evaluated again
    assert s.cached.calls == 2


def test_tavla_uses_mars_two_and_its_rules(small: NetEvaluator) -> None:
    tavla = Rules.tavla(hit_and_stop=True)
    pos = midgame_positions(1, seed=2)[0]
    cands = hint(pos, (3, 2), ply=1, rules=tavla, evaluator=small, filter=ALL)
    assert {c.play.position for c in cands} == set(tavla.legal_plays(pos, (3, 2)).positions())
    for c in cands:
        w, wg, wbg, lg, lbg = c.probs
        assert c.cubeless_equity == pytest.approx(2 * w - 1 + wg - lg)
        assert wbg > 0 or lbg > 0  # an untrained net: the mars term would have mattered
    intl = hint(pos, (3, 2), ply=0, evaluator=small)
    assert intl[0].cubeless_equity == pytest.approx(equity(np.array([intl[0].probs]))[0])


def test_levels() -> None:
    assert STRENGTHS["master"].ply == 2 and STRENGTHS["master"].filter == "normal"
    pos = Position.start()
    a = hint(pos, (4, 3), level="easy")
    b = hint(pos, (4, 3), level="easy")
    assert [c.notation for c in a] == [c.notation for c in b]  # deterministic noise
    assert any(c.noise != 0 for c in a)
    scores = [c.score for c in a]
    assert scores == sorted(scores, reverse=True)
    c = hint(pos, (4, 3), level="easy", seed=1)
    assert [x.noise for x in c] != [x.noise for x in a]
    assert all(x.noise == 0 for x in hint(pos, (4, 3), level="hard"))
    with pytest.raises(ValueError):
        hint(pos, (4, 3), level="grandmaster")


def test_master_hint_is_sensible() -> None:
    cands = hint(Position.start(), (3, 1), level="master")
    assert cands[0].notation == "8/5 6/5"
    assert cands[0].ply == 2
    assert cands[0].cubeful_equity is None and cands[0].equity == cands[0].cubeless_equity


def test_forced_and_empty_plays(small: NetEvaluator) -> None:
    closed = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    cands = hint(closed, (6, 5), ply=1, evaluator=small)
    assert len(cands) == 1 and cands[0].notation == "" and cands[0].ply == 1


def brute_one_ply_pruned(ev: NetEvaluator, cheap: NetEvaluator, keep: int, after: Position) -> np.ndarray:
    """:func:`brute_one_ply` where each roll's reply is the best by ``ev`` of the ``keep`` best by ``cheap``
    (first of equals, generator order)."""
    opp = after.swap()
    total = np.zeros(5)
    for (d1, d2), w in zip(ROLLS, ROLL_WEIGHTS, strict=True):
        replies = list(INTL.legal_plays(opp, (d1, d2)))
        screen = [-equity(cheap.evaluate(r.position.swap())[None, :], INTL)[0] for r in replies]
        order = sorted(range(len(replies)), key=lambda i: (-screen[i], i))[:keep]
        best, best_probs = -np.inf, np.zeros(5)
        for i in sorted(order):
            mover = ev.evaluate(replies[i].position.swap())
            eq = -equity(mover[None, :], INTL)[0]
            if eq > best + 1e-12:
                best, best_probs = eq, mover
        total += w * best_probs
    return total


def test_pruning_values_only_the_cheap_nets_best_replies(small: NetEvaluator) -> None:
    torch.manual_seed(3)
    cheap = NetEvaluator(ValueNet(4), ValueNet(4), device="cpu")
    s = Search(small, INTL, prune=Prune(cheap, keep=2))
    pos = midgame_positions(1, seed=8)[0]
    cands = s.rank(pos, (6, 2), ply=1, filter=ALL)
    for c in cands[:3]:
        np.testing.assert_allclose(c.probs, brute_one_ply_pruned(small, cheap, 2, c.play.position), atol=1e-6)
    with pytest.raises(ValueError, match="at least one"):
        Prune(cheap, keep=0)


def test_pruning_that_keeps_every_play_changes_nothing(small: NetEvaluator) -> None:
    pos = midgame_positions(1, seed=9)[0]
    plain = Search(small, INTL, prune=None).rank(pos, (5, 3), ply=2, filter=FILTERS["tiny"])  # unpruned
    pruned = Search(small, INTL, prune=Prune(default_evaluator(), keep=10_000)).rank(
        pos, (5, 3), ply=2, filter=FILTERS["tiny"]
    )
    assert [c.play for c in plain] == [c.play for c in pruned]
    np.testing.assert_array_equal([c.probs for c in plain], [c.probs for c in pruned])


def _boards(positions: list[Position]) -> np.ndarray:
    return np.stack([np.frombuffer(p.board, dtype=np.uint8) for p in positions])


def test_search_prunes_by_default(small: NetEvaluator) -> None:
    boards = _boards(midgame_positions(12, seed=21))
    default = Search(small, INTL)
    assert default.prune is default_prune() and default.prune.keep == PRUNE_KEEP == 4
    pruned = Search(small, INTL, prune=default_prune()).probabilities(boards, 1)
    plain = Search(small, INTL, prune=None).probabilities(boards, 1)
    assert Search(small, INTL, prune=False).prune is None
    differ = np.abs(pruned - plain).max(axis=1) > 1e-9
    assert differ.any()  # the scan found positions where pruning changes the 1-ply value
    np.testing.assert_array_equal(default.probabilities(boards, 1), pruned)
    np.testing.assert_array_equal(Search(small, INTL, prune=False).probabilities(boards, 1), plain)


def test_searcher_keeps_pruned_and_unpruned_searches_apart(small: NetEvaluator) -> None:
    pruned, plain = searcher(small, INTL), searcher(small, INTL, prune=False)
    assert pruned is not plain and pruned.cache is not plain.cache
    assert pruned.prune is default_prune() and plain.prune is None
    assert searcher(small, INTL, prune=True) is pruned and searcher(small, INTL, prune=None) is plain
    boards = _boards(midgame_positions(12, seed=21))
    a = pruned.probabilities(boards, 1)  # fills the pruned search's cache first
    b = plain.probabilities(boards, 1)
    assert np.abs(a - b).max() > 1e-9
    np.testing.assert_array_equal(b, Search(small, INTL, prune=None).probabilities(boards, 1))
    np.testing.assert_array_equal(a, Search(small, INTL).probabilities(boards, 1))


def test_hint_prunes_unless_told_not_to(small: NetEvaluator) -> None:
    for pos in midgame_positions(12, seed=21):
        for dice in ((6, 2), (4, 1), (5, 5)):
            cands = {c.play: c.probs for c in hint(pos, dice, ply=1, evaluator=small)}
            plain = {c.play: c.probs for c in hint(pos, dice, ply=1, evaluator=small, prune=False)}
            if cands != plain:
                want = Search(small, INTL).rank(pos, dice, 1)
                assert cands == {c.play: c.probs for c in want}
                return
    raise AssertionError("no decision where pruning changes a 1-ply hint")


def test_the_cache_values_plays_as_boards(small: NetEvaluator) -> None:
    from pulvezar.rollouts.lockstep import plays_of
    from pulvezar.search.cache import CachedEvaluator

    boards = np.stack([np.frombuffer(p.board, dtype=np.uint8) for p in midgame_positions(6, seed=5)])
    dice = np.array([(3, 1), (6, 6), (5, 2), (4, 1), (2, 2), (6, 5)])
    after, counts = plays_of(boards, dice, INTL)
    index = np.repeat(np.arange(len(boards)), counts)
    cached = CachedEvaluator(small)
    np.testing.assert_array_equal(
        cached.evaluate_plays(boards, index, np.concatenate([after, after[:5]])),
        small.evaluate_boards(np.concatenate([after, after[:5]])),
    )
    assert cached.evaluated == len(np.unique(after, axis=0))
