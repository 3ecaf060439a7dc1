"""The evaluator: encoding, consistent outputs, exact classes, model files, 0-ply choice, PubEval."""

import pathlib
import random

import numpy as np
import pytest
import torch

from pulvezar import Position, Rules
from pulvezar.eval import _features
from pulvezar.eval.bearoff import OneSidedBearoff
from pulvezar.eval.encoding import ENCODING_VERSION, FEATURES, FEATURES_BY_VERSION, contact, encode
from pulvezar.eval.evaluator import (
    BearoffRaces,
    NetEvaluator,
    boards_of,
    default_evaluator,
    equity,
    flip,
    terminal,
)
from pulvezar.eval.nets import ValueNet
from pulvezar.eval.pubeval import PubEval

RULES = Rules.international()


def random_positions(n: int, seed: int = 5) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        p = Position.start()
        while True:
            out.append(p)
            plays = RULES.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
            q = plays[rng.randrange(len(plays))].position
            if RULES.game_result(q) is not None:
                break
            p = q.swap()
    return out[:n]


@pytest.fixture(scope="module")
def db() -> OneSidedBearoff:
    return OneSidedBearoff.default()


@pytest.fixture(scope="module")
def untrained(db: OneSidedBearoff) -> NetEvaluator:
    torch.manual_seed(0)
    return NetEvaluator(ValueNet(32), ValueNet(16), db, device="cpu")


def test_encoding_shape_and_contact_flag() -> None:
    boards = boards_of(random_positions(300))
    x = encode(boards)
    assert x.shape == (300, FEATURES) and x.dtype == np.float32
    assert np.array_equal(x[:, FEATURES_BY_VERSION[1] - 1], contact(boards).astype(np.float32))
    assert np.array_equal(encode(boards), x)  # deterministic
    assert ENCODING_VERSION == 2
    v1 = encode(boards, 1)
    assert v1.shape == (300, FEATURES_BY_VERSION[1]) and np.array_equal(v1, x[:, : v1.shape[1]])


def side_features(p: Position) -> np.ndarray:
    return np.frombuffer(_features.features(p.board), dtype=np.float32).reshape(2, _features.NF)


@pytest.mark.parametrize(("distance", "shots"), [(1, 11), (2, 12), (6, 17), (7, 6), (12, 3)])
def test_shots_at_a_blot_with_a_clear_path(distance: int, shots: int) -> None:
    """Hitting rolls of one opposing checker at a blot ``distance`` pips away (the standard table)."""
    # my blot on point 1 + distance, the opponent's single checker on my 1 (its 24), nothing in between
    p = Position.from_points({1 + distance: 1, 0 + 25: 0}, {24: 1})
    assert round(float(side_features(p)[0, 0]) * 36) == shots


def test_blocked_intermediate_points_reduce_shots() -> None:
    # 6 away, but my points 3, 4 and 5 are made: 3-3, 2-2, 4-2, 5-1 lose their path
    free = Position.from_points({7: 1}, {24: 1})
    blocked = Position.from_points({7: 1, 3: 2, 4: 2, 5: 2, 6: 2}, {24: 1})
    assert round(float(side_features(free)[0, 0]) * 36) == 17
    assert round(float(side_features(blocked)[0, 0]) * 36) == 13


def test_outputs_are_consistent_probabilities() -> None:
    torch.manual_seed(1)
    net = ValueNet(16)
    p = net(torch.randn(2000, FEATURES) * 3).detach().numpy()
    assert ((p >= 0) & (p <= 1)).all()
    assert (p[:, 1] <= p[:, 0] + 1e-7).all() and (p[:, 2] <= p[:, 1] + 1e-7).all()
    assert (p[:, 3] <= 1 - p[:, 0] + 1e-7).all() and (p[:, 4] <= p[:, 3] + 1e-7).all()


def test_finished_games_are_exact() -> None:
    single = Position.from_points({}, {6: 10}).swap().swap()  # mover has all off, opponent 5 off
    gammon = Position.from_points({}, {12: 15})
    backgammon = Position.from_points({}, {24: 1, 6: 14})
    done, probs = terminal(boards_of([single, gammon, backgammon]))
    assert done.all()
    assert probs.tolist() == [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0]]
    assert equity(probs).tolist() == [1, 2, 3]
    assert equity(probs, Rules.tavla()).tolist() == [1, 2, 2]  # mars = 2
    assert equity(flip(probs)).tolist() == [-1, -2, -3]


def test_bearoff_races_match_the_database(db: OneSidedBearoff) -> None:
    races = BearoffRaces(db)
    rng = np.random.default_rng(2)
    for _ in range(200):
        mine = rng.multinomial(int(rng.integers(1, 16)), [1 / 6] * 6)
        theirs = rng.multinomial(int(rng.integers(1, 16)), [1 / 6] * 6)
        p = Position(list(mine) + [0] * 19, list(theirs) + [0] * 19)
        assert BearoffRaces.covers(boards_of([p]))[0]
        got = races.probabilities(boards_of([p]))[0]
        want = db.race_probabilities(tuple(mine), tuple(theirs))
        assert np.allclose(got[[0, 1, 3]], want, atol=1e-9)


@pytest.mark.oracle
def test_bearoff_races_agree_with_gnubg(untrained: NetEvaluator) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(150):
        mine = rng.multinomial(int(rng.integers(7, 16)), [1 / 6] * 6)
        theirs = rng.multinomial(int(rng.integers(7, 16)), [1 / 6] * 6)
        p = Position(list(mine) + [0] * 19, list(theirs) + [0] * 19)
        ours = untrained.evaluate(p)
        theirs_p = gnubg_nn.probabilities([list(p.theirs), list(p.mine)], 0)
        worst = max(worst, float(np.abs(ours - np.asarray(theirs_p)).max()))
    assert worst < 2e-4


def test_routing_and_determinism(untrained: NetEvaluator) -> None:
    boards = boards_of(random_positions(500, seed=9))
    a = untrained.evaluate_boards(boards)
    b = untrained.evaluate_boards(boards)
    assert np.array_equal(a, b)
    single = np.stack([untrained.evaluate_boards(boards[i : i + 1])[0] for i in range(50)])
    assert np.allclose(single, a[:50], atol=1e-6)  # batch size does not change results


def test_best_play_is_legal_and_maximises_equity(untrained: NetEvaluator) -> None:
    for p in random_positions(40, seed=11):
        for dice in ((3, 1), (6, 6), (5, 2)):
            plays = RULES.legal_plays(p, dice)
            best = untrained.best_play(p, dice)
            assert best in plays
            eq = untrained.play_equities(list(plays))
            assert eq[plays.index_of(best.position)] == pytest.approx(eq.max())


def test_model_file_round_trip_and_checks(tmp_path, untrained: NetEvaluator) -> None:
    path = tmp_path / "m.pt"
    info = untrained.save(path, {"name": "test"})
    loaded = NetEvaluator.load(path, device="cpu")
    assert loaded.info is not None and loaded.info.sha256 == info.sha256
    boards = boards_of(random_positions(100, seed=4))
    assert np.allclose(loaded.evaluate_boards(boards), untrained.evaluate_boards(boards))
    path.write_bytes(path.read_bytes() + b"x")
    with pytest.raises(ValueError, match="checksum"):
        NetEvaluator.load(path)


def test_default_evaluator_loads_offline() -> None:
    ev = default_evaluator()
    assert ev.info is not None and ev.info.encoding_version in FEATURES_BY_VERSION
    # trained: by self-play (v1, v2: games) or on teachers' labels (v3: how many each gave)
    assert ev.info.run.get("games_done", 0) > 0 or sum(ev.info.run.get("teachers", {}).values()) > 0
    p = ev.evaluate(Position.start())
    assert 0.3 < p[0] < 0.7  # the start is about even for the side on roll


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_matches_cpu() -> None:  # pragma: no cover - runs only with a GPU
    cpu = default_evaluator()
    gpu = NetEvaluator(cpu.contact_net, cpu.race_net, device="cuda")
    boards = boards_of(random_positions(300))
    assert np.allclose(gpu.evaluate_boards(boards), cpu.evaluate_boards(boards), atol=1e-5)


@pytest.mark.oracle
def test_pubeval_agrees_with_gnubg_nn() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    pe = PubEval()
    rng = random.Random(8)

    def name(x: int) -> str:
        return "bar" if x == 25 else "off" if x == 0 else str(x)

    decisions = 0
    for p in random_positions(600, seed=12):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = RULES.legal_plays(p, dice)
        if len(plays) < 2:
            continue
        gm = gnubg_nn.pub_best_move([list(p.theirs), list(p.mine)], *dice)
        text = " ".join(f"{name(gm[i] + 1)}/{name(gm[i + 1] + 1)}" for i in range(0, len(gm), 2))
        assert plays.find(text) == pe.best_play(p, dice)
        decisions += 1
    assert decisions > 400


def test_pulvezar_model_overrides_the_default_model_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    from pulvezar.eval.evaluator import DEFAULT_MODEL, default_model_path

    monkeypatch.delenv("PULVEZAR_MODEL", raising=False)
    assert default_model_path() == DEFAULT_MODEL and DEFAULT_MODEL.exists()
    monkeypatch.setenv("PULVEZAR_MODEL", str(tmp_path / "candidate.pt"))
    assert default_model_path() == tmp_path / "candidate.pt"
