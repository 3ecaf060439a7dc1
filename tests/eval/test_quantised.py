"""The quantised accumulator kernel (pulvezar.eval._qnet): exactness of its integer sums, its agreement
with the float nets, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from pulvezar import Position
from pulvezar.eval import _qnet
from pulvezar.eval.encoding import FEATURES_BY_VERSION, encode
from pulvezar.eval.evaluator import (
    NetEvaluator,
    boards_of,
    default_evaluator,
    default_model_path,
    equity,
    swap_boards,
)
from pulvezar.eval.nets import ValueNet
from pulvezar.eval.quantised import DENSE_FROM, QuantisedNet, slot_encoding
from pulvezar.rollouts.lockstep import plays_of
from pulvezar.rules.rules import Rules

RULE_SETS = {
    "international": Rules.international(),
    "tavla": Rules.tavla(),
    "tavla-hit-and-stop": Rules.tavla(hit_and_stop=True, must_bear_off=True),
}


def random_games(rules: Rules, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positions (side on roll) of random games to their end, and a roll for each: openings,
    hits, bar entries, races and bear-offs all occur."""
    rng = np.random.default_rng(seed)
    pos, boards, dice = rules.start_position(), [], []
    while len(boards) < n:
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = rules.legal_plays(pos, d)
        boards.append(pos.board)
        dice.append(d)
        after = plays[int(rng.integers(len(plays)))].position
        pos = after.swap() if rules.game_result(after) is None else rules.start_position()
    return np.frombuffer(b"".join(boards), dtype=np.uint8).reshape(-1, 50), np.array(dice)


def small_net(version: int, widths: list[int], seed: int = 0, late: bool = False) -> ValueNet:
    torch.manual_seed(seed)
    net = ValueNet(features=FEATURES_BY_VERSION[version], widths=widths, activation="crelu", late=late)
    with torch.no_grad():  # weights of a trained net's size, not an initialiser's
        for p in net.parameters():
            p.mul_(3.0)
    return net


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_every_encoding_is_a_sum_over_slots_and_a_dense_tail(version: int) -> None:
    boards, _ = random_games(Rules.international(), 400, seed=version)
    const, g = slot_encoding(version)
    rebuilt = const + sum(g[s, slot, boards[:, 25 * s + slot]] for s in range(2) for slot in range(25))
    assert np.abs(rebuilt - encode(boards, version)[:, :DENSE_FROM]).max() < 1e-5
    assert not g[:, :, 0].any()


@pytest.mark.parametrize("variant", sorted(RULE_SETS))
def test_sums_updated_from_the_parent_are_the_sums_from_scratch(variant: str) -> None:
    rules = RULE_SETS[variant]
    q = QuantisedNet.from_value_net(small_net(4, [64, 16]), 4)
    boards, dice = random_games(rules, 1500, seed=7)
    after, counts = plays_of(boards, dice, rules)
    index = np.repeat(np.arange(len(boards)), counts)
    hits = after[:, 24] > boards[index, 49]  # the opponent (on roll in `after`) has more on the bar
    entered = after[:, 49] < boards[index, 24]
    borne_off = after[:, 25:].sum(axis=1, dtype=int) < boards[index, :25].sum(axis=1, dtype=int)
    assert hits.any() and entered.any() and borne_off.any()
    assert (q.child_sums(boards, index, after) == q.sums(after)).all()
    assert (q.children(boards, index, after) == q.evaluate(after)).all()


@pytest.mark.skipif(_qnet.simd() == 0, reason="this CPU has no AVX2")
def test_the_portable_kernel_gives_the_avx2_kernels_bits() -> None:
    boards, dice = random_games(Rules.international(), 300, seed=3)
    after, counts = plays_of(boards, dice, Rules.international())
    index = np.repeat(np.arange(len(boards)), counts)
    for net in (
        small_net(4, [96, 32, 8]),
        small_net(1, [40, 12], seed=1),
        small_net(4, [70, 24, 8], late=True),
        small_net(2, [64, 80, 12], seed=2),  # a layer of more than 64 outputs (two passes of the sparse sums)
    ):
        version = next(v for v, f in FEATURES_BY_VERSION.items() if f == net.features)
        q = QuantisedNet.from_value_net(net, version)
        try:
            results = []
            for level in (1, 0):
                _qnet.simd(level)
                results.append((q.evaluate(after), q.children(boards, index, after), q.sums(after)))
        finally:
            _qnet.simd(1)
        for fast, portable in zip(results[0], results[1], strict=True):
            assert (fast == portable).all()


def test_a_clipped_relu_net_agrees_with_its_float_self() -> None:
    net = small_net(4, [128, 32, 32])
    boards, _ = random_games(Rules.international(), 2000, seed=11)
    with torch.no_grad():
        expected = net(torch.from_numpy(encode(boards, 4))).double().numpy()
    got = QuantisedNet.from_value_net(net, 4).evaluate(boards)
    assert np.abs(got - expected).max() < 2e-3
    assert np.abs(equity(got) - equity(expected)).mean() < 5e-4


@pytest.mark.parametrize("version", [2, 4])
def test_a_net_whose_hand_made_inputs_join_late_agrees_with_its_float_self(version: int) -> None:
    net = small_net(version, [128, 32, 16], seed=version, late=True)
    boards, dice = random_games(Rules.international(), 2000, seed=12)
    with torch.no_grad():
        expected = net(torch.from_numpy(encode(boards, version))).double().numpy()
    q = QuantisedNet.from_value_net(net, version)
    assert np.abs(q.evaluate(boards) - expected).max() < 2e-3
    after, counts = plays_of(boards[:300], dice[:300], Rules.international())
    index = np.repeat(np.arange(300), counts)
    assert (q.children(boards[:300], index, after) == q.evaluate(after)).all()


def test_the_shipped_net_quantised_keeps_its_values_and_choices() -> None:
    """Issue 32's bounds (max 0.003, mean 0.0005 in equity; the same 0-ply play on >= 99.5% of
    decisions), on fewer positions than bench/quantised.py measures them on."""
    f = default_evaluator()
    q = NetEvaluator.load(default_model_path(), quantised=True)
    rules = Rules.international()
    boards, dice = random_games(rules, 1500, seed=5)
    d = np.abs(equity(q.evaluate_boards(boards)) - equity(f.evaluate_boards(boards)))
    assert d.max() <= 0.003 and d.mean() <= 0.0005
    same = 0
    for b, roll in zip(boards[:400], dice[:400], strict=True):
        plays = rules.legal_plays(Position.from_board(b.tobytes()), (int(roll[0]), int(roll[1])))
        same += int(np.argmax(q.play_equities(plays)) == np.argmax(f.play_equities(plays)))
    assert same >= 0.99 * 400


def test_an_evaluator_of_clipped_relu_nets_runs_them_quantised(tmp_path) -> None:
    ev = NetEvaluator(small_net(4, [64, 16]), small_net(4, [32, 8], seed=2), encoding_version=4)
    assert ev.quantised
    path = tmp_path / "m.pt"
    ev.save(path, run={"purpose": "test"})
    back = NetEvaluator.load(path)
    assert back.quantised and back.contact_net.widths == (64, 16) and back.contact_net.activation == "crelu"
    boards, dice = random_games(Rules.international(), 200, seed=2)
    assert (back.evaluate_boards(boards) == ev.evaluate_boards(boards)).all()
    after, counts = plays_of(boards, dice, Rules.international())
    index = np.repeat(np.arange(len(boards)), counts)
    assert (ev.evaluate_plays(boards, index, after) == ev.evaluate_boards(after)).all()


def test_by_default_only_the_nets_the_float_kernel_cannot_run_are_quantised() -> None:
    """A clipped contact net beside a plain race net: the contact net on the accumulator kernel, the
    race net in float (its values those of a float evaluator, bit for bit); quantised=True: both."""
    torch.manual_seed(3)
    race = ValueNet(32, features=FEATURES_BY_VERSION[4])
    mixed = NetEvaluator(small_net(4, [64, 16]), race, device="cpu", encoding_version=4)
    every = NetEvaluator(mixed.contact_net, race, device="cpu", encoding_version=4, quantised=True)
    plain = NetEvaluator(mixed.contact_net, race, device="cpu", encoding_version=4, quantised=False)
    assert mixed._quantised_net(race) is None and mixed._quantised_net(mixed.contact_net) is not None
    assert every._quantised_net(race) is not None
    boards, _ = random_games(Rules.international(), 200, seed=4)
    assert (mixed.net_probabilities(race, boards) == plain.net_probabilities(race, boards)).all()
    assert (mixed.net_probabilities(race, boards) != every.net_probabilities(race, boards)).any()


def test_bad_input_is_refused_clearly() -> None:
    q = QuantisedNet.from_value_net(small_net(1, [16, 8]), 1)
    start = boards_of([Position.start()])
    with pytest.raises(ValueError, match="more than 15"):
        q.evaluate(np.full((1, 50), 1, dtype=np.uint8))
    with pytest.raises(ValueError, match="multiple of 50"):
        _qnet.evaluate(q._net, b"\0" * 49, np.empty((0, 5)))
    with pytest.raises(ValueError, match="not that of a parent"):
        q.children(start, np.array([1]), swap_boards(start))
    with pytest.raises(ValueError, match="wrong size"):
        _qnet.make(16, b"", b"", b"", 1, b"", 0, 1, [])
    with pytest.raises(ValueError, match="act_bits"):
        QuantisedNet.from_value_net(small_net(1, [16]), 1, act_bits=15)


def test_a_layer_gives_up_at_most_one_bit_for_int32_sums() -> None:
    """A unit whose worst-case sum leaves int32 at the finest scale by less than 2x gets one bit less
    and fits; a layer that would need more bits keeps the finest scale (the kernel sums it in int64)."""
    from pulvezar.eval.quantised import _quantise_rows

    cap = 1 << 12
    w = np.full((3, 512), 0.05)  # worst sums at 2**14: 1.7e9 (fits), 2.6e9 (does not), 1.7e9
    w[1] *= 1.5
    b = np.zeros(3)
    wq, _, bits = _quantise_rows(w, b, 12, cap)
    assert bits.tolist() == [14, 13, 14] and _quantise_rows(w, b, 12)[2].tolist() == [14, 14, 14]
    assert (cap * np.abs(wq.astype(np.int64)).sum(axis=1)).max() < 2**31 - 1
    assert _quantise_rows(w * 8, b, 12, cap)[2].tolist() == [14, 14, 14]  # three bits short: int64
