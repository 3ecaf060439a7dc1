"""The C evaluation path rollouts run on: board flags and the forward pass agree with the
Python/PyTorch definitions, results do not depend on the batch, trained weights are picked up."""

import numpy as np
import pytest
import torch

from pulvezar.eval import _features, _forward
from pulvezar.eval.encoding import contact, encode
from pulvezar.eval.evaluator import BearoffRaces, NetEvaluator, board_flags, default_evaluator, terminal
from pulvezar.eval.nets import ValueNet


def random_boards(n: int, seed: int = 0) -> np.ndarray:
    """Boards of 15 + 15 checkers, no point held by both sides; many races, bear-offs and finished games."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 50), dtype=np.uint8)
    for i in range(n):
        kind = i % 4  # 0: anywhere, 1: race-like, 2: home boards only, 3: small home boards
        for side in (0, 1):
            hi = {0: 25, 1: 13, 2: 6, 3: 6}[kind]
            left = 15 if kind != 3 else int(rng.integers(0, 7))
            if rng.random() < 0.1:
                left = 0  # finished
            while left:
                p = int(rng.integers(0, hi))
                q = 23 - p  # the same point in the other side's numbering
                other = out[i, 25:] if side == 0 else out[i, :25]
                if p < 24 and other[q] > 0:
                    continue
                out[i, 25 * side + p] += 1
                left -= 1
            if kind != 3 and rng.random() < 0.5:  # bear some off
                b = out[i, 25 * side : 25 * side + 25]
                for _ in range(int(rng.integers(0, 15))):
                    nz = np.flatnonzero(b[:6])
                    if len(nz) and b[6:].sum() == 0:
                        b[nz[0]] -= 1
    return out


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    return random_boards(4000)


def test_flags_agree_with_the_python_definitions(boards) -> None:
    ev = default_evaluator()
    f = board_flags(boards, ev.two_sided.points, ev.two_sided.max_checkers)
    mine_on, theirs_on = boards[:, :25].sum(axis=1), boards[:, 25:].sum(axis=1)
    assert np.array_equal((f & _forward.FLAG_WON) != 0, mine_on == 0)
    assert np.array_equal((f & _forward.FLAG_LOST) != 0, theirs_on == 0)
    home = (boards[:, 6:25].sum(axis=1) == 0) & (boards[:, 31:50].sum(axis=1) == 0)
    assert np.array_equal((f & _forward.FLAG_HOME) != 0, home)
    assert np.array_equal(BearoffRaces.covers(boards), home)
    assert np.array_equal((f & _forward.FLAG_TWO) != 0, ev.two_sided.covers(boards))
    assert np.array_equal((f & _forward.FLAG_CONTACT) != 0, contact(boards))
    assert np.array_equal((f & _forward.FLAG_MINE_OFF) != 0, mine_on < 15)
    assert np.array_equal((f & _forward.FLAG_THEIRS_OFF) != 0, theirs_on < 15)
    for flag in ("FLAG_WON", "FLAG_HOME", "FLAG_TWO", "FLAG_CONTACT"):  # the sample covers each case
        assert 0 < ((f & getattr(_forward, flag)) != 0).sum() < len(boards)


def test_terminal_scores_finished_games(boards) -> None:
    done, probs = terminal(boards)
    won = boards[:, :25].sum(axis=1) == 0
    lost = boards[:, 25:].sum(axis=1) == 0
    assert np.array_equal(done, won | lost)
    assert (probs[~done] == 0).all()
    assert np.array_equal(probs[won, 0], np.ones(won.sum()))
    assert np.array_equal(probs[won, 1] == 1, boards[won, 25:].sum(axis=1) == 15)
    assert np.array_equal(
        probs[lost, 4] == 1, (boards[lost, :25].sum(axis=1) == 15) & (boards[lost, 18:25].sum(axis=1) > 0)
    )


def test_features_equal_the_reference(boards) -> None:
    """The forward pass's hand-made features (a faster count of the shots) are _features.c's, bit for bit,
    also with one or several opposing checkers on the bar (they limit the shots)."""
    rng = np.random.default_rng(2)
    barred = boards[rng.permutation(len(boards))].copy()
    for i, row in enumerate(barred):
        for _ in range(i % 3):  # 0, 1 or 2 of the opponent's checkers to the bar
            nz = np.flatnonzero(row[25:49])
            if len(nz):
                row[25 + nz[-1]] -= 1
                row[49] += 1
    both = np.concatenate([boards, barred])
    assert (both[:, 49] > 1).sum() > 100 and (both[:, 49] == 1).sum() > 100
    assert _forward.features(both.tobytes()) == _features.features(both.tobytes())
    shots = np.frombuffer(_forward.features(both.tobytes()), dtype=np.float32).reshape(-1, 10)[:, 0]
    assert 0.2 < (shots > 0).mean() < 0.9  # the sample has blots to hit and blots out of reach


@pytest.mark.parametrize("which", ["shipped", "v1"])
def test_c_forward_agrees_with_pytorch(boards, which) -> None:
    """Every net the float C kernel runs, against the net in PyTorch. A clipped net, trained for the quantised
    kernel, is that kernel's, and so is a ReLU net of unequal widths (``pulvezar-v5``'s 256-64 race net):
    ``tests/eval/test_quantised.py``."""
    if which == "shipped":
        ev = default_evaluator()
    else:
        torch.manual_seed(3)
        ev = NetEvaluator(
            ValueNet(48, features=204), ValueNet(24, features=204), device="cpu", encoding_version=1
        )
    live = boards[~terminal(boards)[0]]
    checked = 0
    for net in ev.nets.values():
        if ev._c_weights(net) is None:
            assert net.activation != "relu" and ev._quantised_net(net) is not None
            continue
        if ev._quantised_net(net) is not None:
            assert not net.uniform  # a plain net runs in float where the C kernel can run it
            continue
        with torch.no_grad():
            ref = net(torch.from_numpy(encode(live, ev.encoding_version))).numpy()
        fast = ev.net_probabilities(net, live)
        assert np.abs(fast - ref).max() < 2e-6
        # a board's value does not depend on its batch
        one = np.concatenate([ev.net_probabilities(net, live[i : i + 1]) for i in range(50)])
        assert np.array_equal(one, fast[:50])
        checked += 1
    assert checked >= (2 if which == "v1" else 1)


def test_changed_weights_are_picked_up(boards) -> None:
    torch.manual_seed(4)
    ev = NetEvaluator(ValueNet(32), ValueNet(16), device="cpu")
    live = boards[~terminal(boards)[0]][:200]
    before = ev.net_probabilities(ev.contact_net, live)
    with torch.no_grad():  # as an optimiser step does: in place
        ev.contact_net.head.bias.add_(0.5)
    after = ev.net_probabilities(ev.contact_net, live)
    ev.c_forward = False
    ref = ev.net_probabilities(ev.contact_net, live)
    assert not np.allclose(before, after)
    assert np.abs(after - ref).max() < 2e-6
    ev.c_forward = True
    ev.contact_net.head.bias = torch.nn.Parameter(torch.zeros(5))  # a new parameter object
    fresh = ev.net_probabilities(ev.contact_net, live)
    ev.c_forward = False
    assert np.abs(fresh - ev.net_probabilities(ev.contact_net, live)).max() < 2e-6
    assert not np.allclose(fresh, after)


def test_deeper_nets_run_in_c_up_to_its_limit() -> None:
    ev = NetEvaluator(ValueNet(16, layers=2), ValueNet(8, layers=_forward.MAX_LAYERS + 1), device="cpu")
    assert ev._c_weights(ev.contact_net) is not None
    assert ev._c_weights(ev.race_net) is None  # PyTorch runs it
