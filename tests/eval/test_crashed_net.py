"""The crashed class (issue 13, section 3): the C flag FLAG_CRASHED is GNU Backgammon's crashed test of
pulvezar.eval.classes on contact boards; an optional crashed net of NetEvaluator values exactly those
boards, in C and in PyTorch; model files with and without it round-trip; the shipped two-net models
value every board as before."""

import json
import random

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.eval import _forward
from pulvezar.eval.classes import crashed
from pulvezar.eval.encoding import FEATURES_BY_VERSION, contact
from pulvezar.eval.evaluator import MODELS, NetEvaluator, board_flags, boards_of, terminal
from pulvezar.eval.nets import ValueNet

RULES = Rules.international()
CONST = np.array([2.0, -1.0, -3.0, 0.5, -2.0])  # the logits of the constant crashed net


def game_boards(n: int, seed: int) -> np.ndarray:
    """Positions of random legal games, seen from the player on roll, to the end of each game."""
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


def crashed_heavy_boards(n: int, seed: int) -> np.ndarray:
    """Boards near every edge of the crashed test: a side with few checkers left in play (0 to 10),
    several stacked on its ace and deuce points, the rest anywhere (the bar included); the other side
    a full or partial army anywhere, so that many are contact and many not. No point is held by both."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 50), dtype=np.uint8)
    for i in range(n):
        for side in (0, 1) if i % 2 else (1, 0):
            b, other = out[i, 25 * side : 25 * side + 25], out[i, 25 * (1 - side) : 25 * (1 - side) + 25]
            low = side == i % 2  # the side with few checkers
            left = int(rng.integers(0, 11)) if low else int(rng.integers(7, 16))
            if low:  # stack the ace and deuce points
                for p in (0, 1):
                    if other[23 - p] == 0:
                        k = int(rng.integers(0, min(left, 8) + 1))
                        b[p] += k
                        left -= k
            hi = int(rng.choice([6, 13, 25]))
            free = [p for p in range(hi) if p == 24 or other[23 - p] == 0]  # not the other side's points
            for _ in range(left):
                b[free[int(rng.integers(0, len(free)))] if free else 24] += 1
    return out


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    return np.concatenate([game_boards(6000, seed=21), crashed_heavy_boards(6000, seed=22)])


def test_crashed_moved_to_the_eval_layer_and_stays_importable_from_the_corpus() -> None:
    from pulvezar.train import corpus

    assert corpus.crashed is crashed


def test_flag_crashed_is_the_numpy_crashed_test_on_contact_boards(boards) -> None:
    f = board_flags(boards)
    flag = (f & _forward.FLAG_CRASHED) != 0
    is_contact, is_crashed = contact(boards), crashed(boards)
    assert np.array_equal(flag, is_contact & is_crashed)
    assert np.array_equal(flag, flag & ((f & _forward.FLAG_CONTACT) != 0))
    # the sample is varied: crashed contact boards, crashed races, contact boards not crashed
    assert (is_contact & is_crashed).sum() > 2000
    assert (~is_contact & is_crashed).sum() > 1000 and (is_contact & ~is_crashed).sum() > 2000
    assert 200 < (is_contact & is_crashed)[:6000].sum() < 5000  # random games have some too
    # ... and each clause of gnubg's test decides some boards on its own (either side)
    for side in (boards[:, :25].astype(int), boards[:, 25:].astype(int)):
        tot, p1, p2 = side.sum(axis=1), side[:, 0], side[:, 1]
        beyond = tot > 6
        assert (is_contact & (tot <= 6)).sum() > 100
        assert (is_contact & beyond & (p1 > 1) & (tot <= 6 + p1)).sum() > 100
        assert (
            is_contact & beyond & (p1 > 1) & (tot > 6 + p1) & (p2 > 1) & (tot + 1 - p1 - p2 <= 6)
        ).sum() > 20
        assert (
            is_contact & beyond & (p1 > 1) & (tot > 6 + p1) & (p2 > 1) & (tot + 1 - p1 - p2 > 6)
        ).sum() > 20
        assert (is_contact & beyond & (p1 <= 1) & (tot <= 5 + p2)).sum() > 100
        assert (is_contact & beyond & (p1 <= 1) & (tot > 5 + p2)).sum() > 100


def test_flag_crashed_leaves_the_other_flags_alone(boards) -> None:
    """The seven older bits are what they were: the same for every board once FLAG_CRASHED is masked
    off, whichever two-sided table is asked for."""
    for points, most in ((6, 6), (3, 4)):
        f = board_flags(boards, points, most)
        mine_on, theirs_on = boards[:, :25].sum(axis=1), boards[:, 25:].sum(axis=1)
        assert np.array_equal((f & _forward.FLAG_CONTACT) != 0, contact(boards))
        assert np.array_equal((f & _forward.FLAG_WON) != 0, mine_on == 0)
        assert np.array_equal((f & _forward.FLAG_LOST) != 0, theirs_on == 0)
        assert np.array_equal((f & _forward.FLAG_MINE_OFF) != 0, mine_on < 15)
        assert np.array_equal((f & _forward.FLAG_THEIRS_OFF) != 0, theirs_on < 15)


def constant_net(features: int = FEATURES_BY_VERSION[2]) -> ValueNet:
    """A net whose output does not depend on its input: zero weights into the head, CONST its bias."""
    net = ValueNet(8, features=features)
    with torch.no_grad():
        net.head.weight.zero_()
        net.head.bias.copy_(torch.from_numpy(CONST))
    return net


def constant_probs(n: int) -> np.ndarray:
    c = 1.0 / (1.0 + np.exp(-CONST.astype(np.float32)))
    win, wg = c[0], c[0] * c[1]
    lg = (1 - win) * c[3]
    return np.tile([win, wg, wg * c[2], lg, lg * c[4]], (n, 1))


def nets(seed: int, version: int = 2) -> tuple[ValueNet, ValueNet]:
    torch.manual_seed(seed)
    return ValueNet(32, features=FEATURES_BY_VERSION[version]), ValueNet(
        16, features=FEATURES_BY_VERSION[version]
    )


@pytest.mark.parametrize("c_forward", [True, False])
def test_the_crashed_net_values_exactly_the_crashed_contact_boards(boards, c_forward) -> None:
    c, r = nets(1)
    three = NetEvaluator(c, r, device="cpu", crashed_net=constant_net())
    two = NetEvaluator(c, r, device="cpu")
    three.c_forward = two.c_forward = c_forward
    assert three.crashed_net is not None and (three._c_weights(three.crashed_net) is not None) == c_forward
    got, before = three.evaluate_boards(boards), two.evaluate_boards(boards)
    f = board_flags(boards, two.two_sided.points, two.two_sided.max_checkers)
    exact = terminal(boards)[0] | ((f & (_forward.FLAG_TWO | _forward.FLAG_HOME)) != 0)
    to_crashed = ~exact & contact(boards) & crashed(boards)
    assert to_crashed.sum() > 2000
    want = constant_probs(int(to_crashed.sum()))
    want[((f & _forward.FLAG_MINE_OFF) != 0)[to_crashed], 3:5] = 0.0  # no gammon against a side with one off
    want[((f & _forward.FLAG_THEIRS_OFF) != 0)[to_crashed], 1:3] = 0.0
    np.testing.assert_allclose(got[to_crashed], want, rtol=0, atol=1e-6)
    # every other board is valued as without the crashed net (bit for bit in C: a board's value does
    # not depend on its batch; to float32 rounding in PyTorch, whose batches are other ones)
    if c_forward:
        assert np.array_equal(got[~to_crashed], before[~to_crashed])
    else:
        np.testing.assert_allclose(got[~to_crashed], before[~to_crashed], rtol=0, atol=1e-6)
    assert np.abs(got[to_crashed] - before[to_crashed]).max(axis=1).min() > 1e-3  # a distinct net


def test_the_crashed_net_in_c_agrees_with_pytorch(boards) -> None:
    features = FEATURES_BY_VERSION[3]
    torch.manual_seed(2)
    ev = NetEvaluator(
        ValueNet(32, 2, features), ValueNet(16, 1, features), device="cpu", encoding_version=3,
        crashed_net=ValueNet(24, 3, features),
    )  # fmt: skip
    assert ev.crashed_net is not None and ev._c_weights(ev.crashed_net) is not None
    fast = ev.evaluate_boards(boards)
    ev.c_forward = False
    ref = ev.evaluate_boards(boards)
    assert np.abs(fast - ref).max() <= 1e-5


def test_the_contact_net_as_crashed_net_changes_nothing(boards) -> None:
    c, r = nets(3)
    assert np.array_equal(
        NetEvaluator(c, r, device="cpu", crashed_net=c).evaluate_boards(boards),
        NetEvaluator(c, r, device="cpu").evaluate_boards(boards),
    )


def test_every_net_takes_the_models_encoding() -> None:
    c, r = nets(4)
    with pytest.raises(ValueError, match="encoding v2"):
        NetEvaluator(c, r, device="cpu", crashed_net=ValueNet(8, features=FEATURES_BY_VERSION[3]))
    with pytest.raises(ValueError, match="encoding v2"):
        NetEvaluator(c, ValueNet(8, features=FEATURES_BY_VERSION[1]), device="cpu")


@pytest.mark.parametrize("three", [False, True])
def test_model_files_round_trip_with_and_without_a_crashed_net(tmp_path, boards, three) -> None:
    c, r = nets(5)
    torch.manual_seed(6)
    ev = NetEvaluator(c, r, device="cpu", crashed_net=ValueNet(20) if three else None)
    path = tmp_path / "m.pt"
    info = ev.save(path, {"name": "unit"})
    names = ("contact", "crashed", "race") if three else ("contact", "race")
    assert info.nets == names and tuple(ev.nets) == names
    state = torch.load(path, weights_only=True)
    assert set(state) == {"encoding_version", "run", *names}  # a two-net file has no other key
    assert json.loads(path.with_suffix(".json").read_text())["nets"] == list(names)
    loaded = NetEvaluator.load(path, device="cpu")
    assert loaded.info is not None and loaded.info.nets == names and loaded.info.sha256 == info.sha256
    assert (loaded.crashed_net is not None) == three
    if three:
        assert loaded.crashed_net is not None and loaded.crashed_net.hidden == 20
    assert np.array_equal(loaded.evaluate_boards(boards), ev.evaluate_boards(boards))
    loaded.c_forward = ev.c_forward = False
    np.testing.assert_allclose(loaded.evaluate_boards(boards), ev.evaluate_boards(boards), rtol=0, atol=0)


@pytest.mark.parametrize("name", ["pulvezar-v1", "pulvezar-v2"])
def test_shipped_two_net_models_value_every_board_as_before(boards, name) -> None:
    """The routing of the models without a crashed net, written out as it was: finished games, the
    two-sided and one-sided bear-off tables, then the contact net for every contact board (crashed or
    not) and the race net for the rest; no gammons against a side with a checker off."""
    ev = NetEvaluator.load(MODELS / f"{name}.pt", device="cpu")
    assert ev.crashed_net is None and ev.info is not None and ev.info.nets == ("contact", "race")
    got = ev.evaluate_boards(boards)
    done, want = terminal(boards)
    two = ~done & ev.two_sided.covers(boards)
    want[two, 0] = ev.two_sided.win_probabilities(boards[two])
    home = ~done & ~two & ev.races.covers(boards)
    want[home] = ev.races.probabilities(boards[home])
    rest = ~done & ~two & ~home
    is_contact = contact(boards)
    assert (rest & is_contact & crashed(boards)).sum() > 2000
    for mask, net in ((rest & is_contact, ev.contact_net), (rest & ~is_contact, ev.race_net)):
        want[mask] = ev.net_probabilities(net, boards[mask])
    want[rest & (boards[:, :25].sum(axis=1) < 15), 3:5] = 0.0
    want[rest & (boards[:, 25:].sum(axis=1) < 15), 1:3] = 0.0
    assert np.array_equal(got, want)


def test_shipped_v3_has_three_nets_and_its_c_forward_pass_agrees_with_pytorch(boards) -> None:
    """``pulvezar-v3`` (issue 13): contact, crashed and race nets on encoding v4 (since 2026-12-03); the
    C forward pass gives PyTorch's values."""
    ev = NetEvaluator.load(MODELS / "pulvezar-v3.pt", device="cpu")
    assert ev.info is not None and ev.info.nets == ("contact", "crashed", "race")
    assert ev.crashed_net is not None and ev.encoding_version == 4
    fast = ev.evaluate_boards(boards)
    ev.c_forward = False
    np.testing.assert_allclose(fast, ev.evaluate_boards(boards), rtol=0, atol=1e-5)
