"""The C encoding and forward pass (_forward.c) against their references: the numpy encoding of every
version bit for bit, PyTorch nets of one to three hidden layers to float32 rounding, a board's value
independent of its batch."""

import random

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.eval import _forward
from pulvezar.eval.bearoff import OneSidedBearoff
from pulvezar.eval.encoding import (
    FEATURES_BY_VERSION,
    TERMS,
    encode,
    ensure_race_tables,
    race_contact_terms,
    race_terms,
)
from pulvezar.eval.evaluator import BearoffRaces, NetEvaluator, boards_of, terminal
from pulvezar.eval.nets import ValueNet

RULES = Rules.international()


def game_boards(n: int, seed: int) -> np.ndarray:
    """Positions of random legal games, seen from the player on roll (hits, bar entries, bear-offs)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        p = Position.start()
        while len(out) < n:
            out.append(p)
            plays = RULES.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
            q = plays[rng.randrange(len(plays))].position
            if RULES.game_result(q) is not None:
                break
            p = q.swap()
    return boards_of(out)


def placed_boards(n: int, seed: int) -> np.ndarray:
    """Boards of checkers placed at random, no point held by both sides: contact, races, home boards,
    few checkers, borne-off ones, checkers on the bar (up to all 15 of a side) and finished sides."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 50), dtype=np.uint8)
    for i in range(n):
        kind = i % 5  # 0: anywhere, 1: race-like, 2: home boards only, 3: few checkers, 4: many on the bar
        for side in (0, 1):
            b, other = out[i, 25 * side : 25 * side + 25], out[i, 25 * (1 - side) : 25 * (1 - side) + 25]
            hi = {0: 25, 1: 13, 2: 6, 3: 25, 4: 25}[kind]
            left = int(rng.integers(0, 16)) if kind == 3 else 15
            if rng.random() < 0.05:
                left = 0  # finished
            if kind == 4:
                b[24] = on_bar = int(rng.integers(0, left + 1))
                left -= on_bar
            while left:
                p = int(rng.integers(0, hi))
                if p < 24 and other[23 - p] > 0:  # the same point in the other side's numbering
                    continue
                b[p] += 1
                left -= 1
    return out


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    return np.concatenate([game_boards(3000, seed=1), placed_boards(2000, seed=2)])


def test_the_sample_is_varied(boards) -> None:
    mine_on = boards[:, :25].sum(axis=1)
    x = encode(boards, 3)
    contact = x[:, FEATURES_BY_VERSION[1] - 1] == 1
    assert 0.2 < contact.mean() < 0.9  # contact and races
    assert (boards[:, 24] > 0).sum() > 300 and (boards[:, 49] > 1).sum() > 100  # the bar
    assert (mine_on < 15).sum() > 500 and (mine_on == 0).sum() > 20  # bear-offs, finished sides
    assert (boards[:, 6:25].sum(axis=1) == 0).sum() > 300  # all home


@pytest.mark.parametrize("version", [1, 2, 3, 4])
def test_c_encoding_is_the_numpy_encoding(boards, version) -> None:
    ensure_race_tables()  # v4's bear-off tables (the evaluator and fit call it the same way)
    c = np.frombuffer(_forward.encode(boards.tobytes(), version), dtype=np.float32).reshape(len(boards), -1)
    ref = encode(boards, version)
    assert c.shape == ref.shape == (len(boards), FEATURES_BY_VERSION[version])
    assert np.array_equal(c.view(np.uint32), ref.view(np.uint32))  # bit for bit (signed zeros too)


def test_c_terms_are_race_contact_terms(boards) -> None:
    c = np.frombuffer(_forward.terms(boards.tobytes()), dtype=np.float32).reshape(len(boards), 2 * TERMS)
    ref = race_contact_terms(boards)
    assert np.array_equal(c.view(np.uint32), ref.view(np.uint32))
    nonzero = (ref != 0).mean(axis=0)
    assert ((nonzero > 0.05) & (nonzero < 0.99)).all()  # every term is exercised, zero and not
    assert min(len(np.unique(ref[:, t])) for t in (2, 4, 7, 11, 13, 16)) > 200  # the pip counts vary
    edge = np.zeros((3, 50), dtype=np.uint8)
    edge[0, 24] = 15  # all on the bar against a side with nothing left
    edge[1, :6] = [2, 2, 2, 2, 2, 2]
    edge[1, 24] = 3
    edge[1, 25:31] = [2, 2, 2, 2, 2, 2]
    edge[1, 49] = 3
    edge[2, 0] = 1  # one checker each, on their one-points
    edge[2, 25] = 1
    got = np.frombuffer(_forward.terms(edge.tobytes()), dtype=np.float32).reshape(3, -1)
    assert np.array_equal(got, race_contact_terms(edge))


# ---- encoding v4's race-outcome terms, against a plain Python reference -----------------------

K, P, D = 40, 376, 31


def reference_reach() -> np.ndarray:
    """``out[k, p, d]`` = P(k rolls bring >= p pips in >= d dice), the caps absorbing, by numpy."""
    cur = np.zeros((P, D))
    cur[0, 0] = 1.0
    out = np.zeros((K, P, D))
    pp, dd = np.meshgrid(np.arange(P), np.arange(D), indexing="ij")
    for k in range(K):
        out[k] = cur[::-1, ::-1].cumsum(0).cumsum(1)[::-1, ::-1]
        nxt = np.zeros_like(cur)
        for a in range(1, 7):
            for b in range(a, 7):
                pips, dice, w = (4 * a, 4, 1 / 36) if a == b else (a + b, 2, 2 / 36)
                np.add.at(nxt, (np.minimum(pp + pips, P - 1), np.minimum(dd + dice, D - 1)), cur * w)
        cur = nxt
    return out


def reference_race_terms(boards: np.ndarray) -> np.ndarray:
    db = OneSidedBearoff.default()
    reach = reference_reach()
    off_cdf = np.cumsum(np.pad(db.dense(), ((0, 0), (0, K - db.slots))), axis=1)
    first_cdf = np.cumsum(np.pad(db.dense(first_off=True), ((0, 0), (0, K - db.slots))), axis=1)

    def cdfs(side: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = np.arange(1, 26)
        total = int(side.sum())
        if total == 0:
            return np.ones(K), np.ones(K)
        outside = side[6:]
        if not outside.any():
            i = db.index(tuple(int(x) for x in side[:6]))
            return off_cdf[i], np.ones(K) if total < 15 else first_cdf[i]
        pips = int(side @ q)
        dice = int(side @ -(-q // 6))
        to_home = int(outside @ (q[6:] - 6))
        dice_home = int(outside @ -(-(q[6:] - 6) // 6)) + 1
        lowest = next((i + 1 for i in range(6) if side[i]), 6)
        off = reach[:, min(pips, P - 1), min(dice, D - 1)]
        first = np.ones(K) if total < 15 else reach[:, min(to_home + lowest, P - 1), min(dice_home, D - 1)]
        return off, first

    out = np.zeros((len(boards), 8))
    for i, b in enumerate(boards.astype(np.int64)):
        sides = [cdfs(b[:25]), cdfs(b[25:])]
        for s in (0, 1):
            (off, first), (o_off, o_first) = sides[s], sides[1 - s]
            pmf = np.diff(off, prepend=0.0)
            lag = 1 if s == 0 else 0
            m = np.arange(K) - lag
            not_done = np.where(m >= 0, 1 - o_off[np.maximum(m, 0)], 1.0)
            not_first = np.where(m >= 0, 1 - o_first[np.maximum(m, 0)], 1.0)
            out[i, 4 * s : 4 * s + 4] = [
                pmf @ not_done,
                pmf @ not_first,
                (1 - off).sum() / 20,
                (1 - first).sum() / 10,
            ]
    return out


def test_race_terms_follow_their_definition(boards) -> None:
    sample = boards[::5]
    got = race_terms(sample)
    ref = reference_race_terms(sample)
    assert got.shape == (len(sample), 8)
    assert np.abs(got - ref).max() < 2e-6
    assert min(len(np.unique(got[:, t])) for t in range(8)) > 100  # every term varies


def test_race_terms_are_exact_when_both_sides_are_home(boards) -> None:
    """Both sides all home: the terms are the bear-off database's exact race (win, gammons)."""
    covered = boards[BearoffRaces.covers(boards)]
    covered = covered[(covered[:, :25].sum(axis=1) > 0) & (covered[:, 25:].sum(axis=1) > 0)]
    assert len(covered) > 100
    exact = BearoffRaces(OneSidedBearoff.default()).probabilities(covered)
    t = race_terms(covered)
    assert np.allclose(t[:, 0], exact[:, 0], atol=1e-6)  # the mover finishes first
    assert np.allclose(t[:, 4], 1 - exact[:, 0], atol=1e-6)
    assert np.allclose(t[:, 1], exact[:, 1], atol=1e-6)  # before the opponent has a checker off
    assert np.allclose(t[:, 5], exact[:, 3], atol=1e-6)


def test_race_terms_of_a_gammon_race() -> None:
    """A trailer with checkers on its 7, 8 and 11 points against a leader on roll with one or two
    checkers left: the leader's exact chances, and the trailer's 10 pips in four dice (doubles of
    threes or more, 4 in 36) for its first checker off."""
    b = np.zeros((1, 50), dtype=np.uint8)
    b[0, 0] = 1  # the leader, on roll: one checker left
    b[0, 25:36] = [0, 2, 2, 2, 4, 2, 1, 1, 0, 0, 1]
    t = race_terms(b)[0]
    assert t[0] == pytest.approx(1.0) and t[1] == pytest.approx(1.0)
    b[0, 0], b[0, 1] = 0, 2  # two on the 2-point: every roll but a non-double with a 1 finishes
    t = race_terms(b)[0]
    now = 26 / 36
    assert t[0] == pytest.approx(1.0, abs=1e-6)
    assert t[1] == pytest.approx(now + (1 - now) * (1 - 4 / 36), abs=1e-6)
    assert t[4] == pytest.approx(0.0, abs=1e-6) and t[5] == pytest.approx(0.0, abs=1e-6)
    assert 0.1 < t[7] < 0.3  # the trailer's mean rolls to a first checker off: between 1 and 3


def spread(net: ValueNet, seed: int) -> ValueNet:
    """``net`` with larger random weights (the sparse inputs would leave it near 1/2 everywhere), so
    that its probabilities spread over (0, 1) and a wrong sum shows."""
    g = torch.Generator().manual_seed(seed)
    linear = [m for m in net.body if isinstance(m, torch.nn.Linear)] + [net.head]
    with torch.no_grad():
        for i, m in enumerate(linear):
            gain = 3.0 if i == 0 else 5.0 if m is net.head else 1.5
            m.weight.copy_(torch.randn(m.weight.shape, generator=g) * gain / m.in_features**0.5)
            m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
    return net.eval()


NETS = [  # (version, layers, hidden): widths in whole and part blocks of 64, 32 and 8 units and single ones
    (4, 1, 64),
    (4, 2, 37),
    (3, 1, 160),
    (3, 2, 128),
    (3, 2, 37),
    (3, 3, 100),
    (3, 3, 72),
    (2, 2, 96),
    (1, 3, 48),
]


@pytest.mark.parametrize(("version", "layers", "hidden"), NETS)
def test_c_forward_agrees_with_pytorch(boards, version, layers, hidden) -> None:
    net = spread(ValueNet(hidden, layers, FEATURES_BY_VERSION[version]), seed=hidden + layers)
    ev = NetEvaluator(net, ValueNet(8, features=net.features), device="cpu", encoding_version=version)
    live = boards[~terminal(boards)[0]]
    assert ev._c_weights(net) is not None
    fast = ev.net_probabilities(net, live)
    ev.c_forward = False
    assert ev._c_weights(net) is None
    ref = ev.net_probabilities(net, live)
    assert np.abs(fast - ref).max() <= 1e-5
    spread_of = np.quantile(fast, 0.9, axis=0) - np.quantile(fast, 0.1, axis=0)
    assert spread_of.max() > 0.3  # a test that can fail: the outputs are far from constant
    with torch.no_grad():  # and the hidden layers have units off and on
        h = net.body(torch.from_numpy(encode(live[:500], version)))
    assert 0.1 < (h > 0).float().mean() < 0.9


def test_a_v4_net_with_zero_race_weights_skips_the_terms_and_agrees(boards) -> None:
    """A widened v3 net (zero first-layer weights on v4's race terms) is run without computing them:
    its values are PyTorch's, which computes them and multiplies by zero, and the v3 net's."""
    v3 = spread(ValueNet(64, 2, FEATURES_BY_VERSION[3]), seed=11)
    v4 = ValueNet(64, 2, FEATURES_BY_VERSION[4])
    with torch.no_grad():
        v4.load_state_dict(
            {k: v.clone() for k, v in v3.state_dict().items() if k != "body.0.weight"}, strict=False
        )
        v4.body[0].weight.zero_()
        v4.body[0].weight[:, : FEATURES_BY_VERSION[3]] = v3.body[0].weight
    live = boards[~terminal(boards)[0]]
    e4 = NetEvaluator(v4, v4, device="cpu", encoding_version=4)
    e3 = NetEvaluator(v3, v3, device="cpu", encoding_version=3)
    fast = e4.net_probabilities(v4, live)
    assert np.array_equal(fast, e3.net_probabilities(v3, live))
    e4.c_forward = False
    assert np.abs(fast - e4.net_probabilities(v4, live)).max() <= 1e-5


@pytest.mark.parametrize(("version", "layers", "hidden"), [(3, 2, 128), (3, 3, 37), (2, 1, 160)])
def test_a_boards_value_does_not_depend_on_its_batch(boards, version, layers, hidden) -> None:
    net = spread(ValueNet(hidden, layers, FEATURES_BY_VERSION[version]), seed=7)
    ev = NetEvaluator(net, net, device="cpu", encoding_version=version)
    sample = boards[:300]
    whole = ev.net_probabilities(net, sample)
    alone = np.concatenate([ev.net_probabilities(net, sample[i : i + 1]) for i in range(len(sample))])
    order = np.random.default_rng(0).permutation(len(sample))
    shuffled = np.empty_like(whole)
    for part in np.array_split(order, 7):  # in other batches of other sizes, in another order
        shuffled[part] = ev.net_probabilities(net, sample[part])
    assert np.array_equal(whole, alone) and np.array_equal(whole, shuffled)


def test_whole_evaluations_of_deep_v3_nets_agree() -> None:
    """evaluate_boards with C nets of two layers on encoding v3 (race and contact, exact classes) is
    PyTorch's evaluation."""
    features = FEATURES_BY_VERSION[3]
    ev = NetEvaluator(
        spread(ValueNet(64, 2, features), 1),
        spread(ValueNet(32, 3, features), 2),
        device="cpu",
        encoding_version=3,
    )
    boards = np.concatenate([game_boards(600, seed=3), placed_boards(400, seed=4)])
    fast = ev.evaluate_boards(boards)
    ev.c_forward = False
    ref = ev.evaluate_boards(boards)
    assert np.abs(fast - ref).max() <= 1e-5


def test_nets_beyond_the_c_limits_use_pytorch() -> None:
    torch.manual_seed(0)
    deep = ValueNet(8, _forward.MAX_LAYERS + 1)
    ev = NetEvaluator(deep, ValueNet(8, _forward.MAX_LAYERS), device="cpu")
    assert ev._c_weights(ev.contact_net) is None
    assert ev._c_weights(ev.race_net) is not None
    live = game_boards(50, seed=5)
    live = live[~terminal(live)[0]]
    assert ev.net_probabilities(deep, live).shape == (len(live), 5)


def test_forward_checks_its_arguments() -> None:
    torch.manual_seed(0)
    net = ValueNet(16, 2, FEATURES_BY_VERSION[3])
    ev = NetEvaluator(net, net, device="cpu", encoding_version=3)
    w = ev._c_weights(net)
    assert w is not None and len(w.layers) == 2
    raw = game_boards(4, seed=6).tobytes()
    out = np.empty((4, 5))
    _forward.forward(raw, 3, w.layers, w.head_w, w.head_b, out)
    bad = [
        (raw[:-1], 3, w.layers, w.head_w, w.head_b, out),  # not whole boards
        (raw, 4, w.layers, w.head_w, w.head_b, out),  # no such encoding
        (raw, 2, w.layers, w.head_w, w.head_b, out),  # the first layer takes v3's inputs
        (raw, 3, [], w.head_w, w.head_b, out),  # no hidden layer
        (raw, 3, [w.layers[0], w.layers[0]], w.head_w, w.head_b, out),  # the second layer takes 16 inputs
        (raw, 3, [w.layers[0], (w.layers[1][0], b"")], w.head_w, w.head_b, out),  # no units
        (raw, 3, [w.layers[0], w.layers[1][0]], w.head_w, w.head_b, out),  # not a pair
        (raw, 3, w.layers, w.head_w[:-4], w.head_b, out),
        (raw, 3, w.layers, w.head_w, w.head_b + b"\0\0\0\0", out),
        (raw, 3, w.layers, w.head_w, w.head_b, np.empty((3, 5))),
    ]
    for args in bad:
        with pytest.raises(ValueError):
            _forward.forward(*args)
    with pytest.raises(TypeError):
        _forward.forward(raw, 3, [(w.layers[0][0], 5)], w.head_w, w.head_b, out)
