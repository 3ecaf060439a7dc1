"""Supervised generations on rollout targets: deterministic per seed, exactly resumable, and they learn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from pulvezar import Position
from pulvezar.eval.encoding import FEATURES_BY_VERSION, contact
from pulvezar.eval.evaluator import BearoffRaces, NetEvaluator, boards_of, terminal
from pulvezar.eval.nets import ValueNet
from pulvezar.train.supervised import (
    SupervisedConfig,
    SupervisedRun,
    consistent,
    load_nets,
    rollout_targets,
    sample_positions,
)

TINY = dict(
    positions=30, trials=4, truncate=3, chunk=8, lockstep=8, epochs=8, patience=8, batch=8, lr=1e-2,
    holdout=0.2, device="cpu",
)  # fmt: skip


@pytest.fixture(scope="module")
def init_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny untrained model file (generation 0)."""
    torch.manual_seed(0)
    feats = FEATURES_BY_VERSION[2]
    ev = NetEvaluator(ValueNet(8, features=feats), ValueNet(4, features=feats), device="cpu")
    path = tmp_path_factory.mktemp("init") / "tiny.pt"
    ev.save(path, {"name": "tiny"})
    return path


def run_in(workdir: Path, init: Path, seed: int = 5, **over: object) -> SupervisedRun:
    cfg = SupervisedConfig(seed=seed, **{**TINY, **over})  # type: ignore[arg-type]
    run = SupervisedRun(cfg, workdir)
    run.start(init)
    return run


def weights(path: Path) -> list[np.ndarray]:
    ev = NetEvaluator.load(path, device="cpu")
    return [p.detach().numpy().copy() for p in (*ev.contact_net.parameters(), *ev.race_net.parameters())]


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as f:
        return {k: f[k] for k in f.files if k != "seconds"}


def same_generation(a: Path, b: Path) -> bool:
    pa, pb = arrays(a / "positions.npz"), arrays(b / "positions.npz")
    ta, tb = arrays(a / "targets.npz"), arrays(b / "targets.npz")
    return (
        all(np.array_equal(pa[k], pb[k]) for k in pa)
        and all(np.array_equal(ta[k], tb[k]) for k in ta)
        and all(
            np.array_equal(x, y)
            for x, y in zip(weights(a / "model.pt"), weights(b / "model.pt"), strict=True)
        )
    )


def test_same_seed_same_generation_and_resume_is_exact(tmp_path: Path, init_model: Path) -> None:
    a = run_in(tmp_path / "a", init_model)
    a.run(log=lambda _s: None)
    b = run_in(tmp_path / "b", init_model)
    b.run(log=lambda _s: None)
    assert same_generation(a.gen_dir(1), b.gen_dir(1))

    # interrupted after one chunk of targets, then resumed by a fresh process
    c = run_in(tmp_path / "c", init_model)
    assert c.targets(1, log=lambda _s: None, stop_after=1) is None
    with np.load(c.gen_dir(1) / "targets.npz") as f:
        assert len(f["probs"]) == TINY["chunk"]
    assert not c.model_path(1).exists()
    d = SupervisedRun(SupervisedRun.saved_config(tmp_path / "c") or SupervisedConfig(), tmp_path / "c")
    assert d.config == c.config
    d.run(log=lambda _s: None)
    assert same_generation(a.gen_dir(1), d.gen_dir(1))

    # another seed samples other positions
    e = run_in(tmp_path / "e", init_model, seed=6)
    assert not np.array_equal(e.positions(1, log=lambda _s: None)[0], a.positions(1)[0])


def test_a_generation_learns_its_targets(tmp_path: Path, init_model: Path) -> None:
    run = run_in(tmp_path, init_model, positions=40, generations=2)
    run.run(log=lambda _s: None)
    import json

    for g in (1, 2):
        s = json.loads((run.gen_dir(g) / "train.json").read_text())
        assert s["holdout_loss_after"] < s["holdout_loss_before"]
        hist = s["nets"]["contact"]["history"]
        assert hist[-1]["train"] < hist[1]["train"]  # the training loss falls
    # generation 2 replays generation 1's training data and never resamples its positions
    b1, h1 = run.positions(1)
    b2, _ = run.positions(2)
    assert not {x.tobytes() for x in b1} & {x.tobytes() for x in b2}
    s2 = json.loads((run.gen_dir(2) / "train.json").read_text())
    assert s2["train_positions"] == int((~h1).sum()) + int((~run.positions(2)[1]).sum())
    assert NetEvaluator.load(run.model_path(2)).info.run["generation"] == 2  # type: ignore[union-attr]
    rows = (tmp_path / "generations.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("generation,positions")


def test_targets_are_consistent_probabilities(tmp_path: Path, init_model: Path) -> None:
    run = run_in(tmp_path, init_model)
    probs = run.targets(1, log=lambda _s: None)
    assert probs is not None and probs.shape == (30, 5)
    w, wg, wbg, lg, lbg = probs.T
    assert ((wbg >= 0) & (wbg <= wg) & (wg <= w) & (w <= 1)).all()
    assert ((lbg >= 0) & (lbg <= lg) & (lg <= 1 - w + 1e-12)).all()
    with np.load(run.gen_dir(1) / "targets.npz") as f:
        raw = f["raw"]
    assert np.allclose(probs, consistent(raw))
    assert (probs != 0.5).any(axis=1).all()

    # the projection itself
    noisy = np.array([[1.02, 0.3, 0.31, 0.1, -0.01], [0.4, 0.5, 0.1, 0.7, 0.2]])
    c = consistent(noisy)
    assert c.tolist() == [[1.0, 0.3, 0.3, 0.0, 0.0], [0.4, 0.4, 0.1, 0.6, 0.2]]


def test_rollout_targets_of_exact_positions_are_exact(init_model: Path) -> None:
    ev = NetEvaluator.load(init_model, device="cpu")
    boards = boards_of(
        [Position.from_points({1: 2, 3: 1}, {6: 2, 5: 1}), Position.from_points({2: 1}, {1: 1})]
    )
    probs, raw, se = rollout_targets(ev, boards, seed=1, trials=8, truncate=5)
    assert np.allclose(probs, ev.evaluate_boards(boards)) and np.allclose(raw, probs) and (se == 0).all()


def test_sampled_positions(init_model: Path) -> None:
    ev = NetEvaluator.load(init_model, device="cpu")
    rng = np.random.default_rng(1)
    b = sample_positions(ev, 40, rng, race_fraction=0.25, lockstep=8)
    assert len({x.tobytes() for x in b}) == 40
    assert int((~contact(b)).sum()) == 10
    assert not BearoffRaces.covers(b).any() and not terminal(b)[0].any()
    again = sample_positions(ev, 20, np.random.default_rng(2), lockstep=8, exclude={x.tobytes() for x in b})
    assert not {x.tobytes() for x in again} & {x.tobytes() for x in b}


def test_generation_zero_from_a_td_checkpoint(tmp_path: Path) -> None:
    from pulvezar.train.td import TDConfig, TDTrainer

    t = TDTrainer(
        TDConfig(seed=1, games=8, lockstep=8, train_every=256, batch=32, contact_hidden=8, race_hidden=4),
        tmp_path / "td",
    )
    t.run(log=lambda _s: None)
    c, _, version, info = load_nets(tmp_path / "td" / "checkpoint.pt")
    assert version == t.config.encoding_version and info["run"]["games_done"] == 8
    assert all(torch.equal(x, y) for x, y in zip(c.parameters(), t.contact_net.parameters(), strict=True))
    run = SupervisedRun(SupervisedConfig(**TINY), tmp_path / "sup")  # type: ignore[arg-type]
    run.start(tmp_path / "td" / "checkpoint.pt")
    assert torch.equal(next(run.evaluator(0).race_net.parameters()), next(t.race_net.parameters()))


def test_command_line_runs_resumes_and_exports(tmp_path: Path, init_model: Path) -> None:
    from pulvezar.cli import main

    args = ["--workdir", str(tmp_path / "run"), "--positions", "12", "--trials", "2", "--truncate", "2"]
    args += ["--epochs", "2", "--device", "cpu", "--lockstep", "4"]
    assert (
        main(["train", "supervised", *args, "--init", str(init_model), "--export", str(tmp_path / "m.pt")])
        == 0
    )
    first = weights(tmp_path / "m.pt")
    # a second call resumes (nothing left to do) and keeps the saved settings over new ones
    assert (
        main(["train", "supervised", *args[:2], "--positions", "99", "--export", str(tmp_path / "n.pt")]) == 0
    )
    assert all(np.array_equal(x, y) for x, y in zip(first, weights(tmp_path / "n.pt"), strict=True))
    assert NetEvaluator.load(tmp_path / "n.pt").info is not None
