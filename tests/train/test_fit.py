"""Fitting the nets to the corpus labels: label convention, exact resumption, learning, the saved model."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from pulvezar.cli import main as cli_main
from pulvezar.eval.evaluator import MODELS, NetEvaluator, default_evaluator, equity
from pulvezar.train.corpus import RACE, boards_of_keys, keys_of, read_npz
from pulvezar.train.fit import FitConfig, FitRun, labelled_shards, load_labels

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"
TINY = dict(
    corpus=str(CORPUS), label_set="1ply", max_positions=3_000, epochs=2, batch=64, lr=3e-3,
    hidden=16, race_hidden=8, holdout=0.1, seed=3,
)  # fmt: skip


def config(**over: object) -> FitConfig:
    return FitConfig(**{**TINY, **over})  # type: ignore[arg-type]


def weights(path: Path) -> list[np.ndarray]:
    ev = NetEvaluator.load(path, device="cpu")
    return [p.detach().numpy().copy() for p in (*ev.contact_net.parameters(), *ev.race_net.parameters())]


def curve(workdir: Path) -> list[dict[str, str]]:
    with (workdir / "curve.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    workdir = tmp_path_factory.mktemp("fit") / "a"
    assert FitRun(config(), workdir).run(log=lambda s: None)
    return workdir


def test_labels_are_the_evaluators_convention() -> None:
    """Cumulative probabilities of the player on roll: close to pulvezar's own 0-ply values."""
    cfg = config(max_positions=400)
    boards, probs, teacher, cls, info = load_labels(cfg, labelled_shards(cfg, cfg.max_positions))
    assert info["positions"] == len(boards) == 400
    assert set(teacher.tolist()) == {1}  # gnubg-nn-1ply
    assert (probs[:, 1] <= probs[:, 0]).all() and (probs[:, 3] <= 1 - probs[:, 0] + 1e-12).all()
    mine = default_evaluator().evaluate_boards(boards)
    assert np.mean(np.abs(mine[:, 0] - probs[:, 0])) < 0.04  # a swapped side would be ~0.3
    assert np.corrcoef(equity(mine), equity(probs))[0, 1] > 0.95
    assert (cls <= RACE).all()


@pytest.mark.oracle
def test_labels_are_gnubg_one_ply() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    cfg = config(max_positions=5)
    boards, probs, *_ = load_labels(cfg, labelled_shards(cfg, cfg.max_positions))
    for b, p in zip(boards, probs, strict=True):
        g = gnubg_nn.probabilities([b[25:].tolist(), b[:25].tolist()], 1)
        assert np.allclose(p, g, atol=2e-3)  # float16 labels


def test_interrupted_run_continues_exactly(uninterrupted: Path, tmp_path: Path) -> None:
    workdir = tmp_path / "c"
    assert not FitRun(config(), workdir).run(log=lambda s: None, stop_after=1)
    assert (workdir / "checkpoint.pt").exists() and not (workdir / "model.pt").exists()
    assert len(curve(workdir)) == 2  # epochs 0 and 1
    resumed = FitRun(config(seed=99, lr=1.0), workdir)  # a resumed run keeps its own settings
    assert resumed.config.seed == 3 and resumed.config.lr == TINY["lr"]
    assert resumed.run(log=lambda s: None)
    for a, b in zip(weights(uninterrupted / "model.pt"), weights(workdir / "model.pt"), strict=True):
        assert np.array_equal(a, b)
    drop = ("seconds",)
    ca = [{k: v for k, v in r.items() if k not in drop} for r in curve(uninterrupted)]
    cb = [{k: v for k, v in r.items() if k not in drop} for r in curve(workdir)]
    assert ca == cb


def test_held_out_loss_decreases(uninterrupted: Path) -> None:
    rows = curve(uninterrupted)
    assert [int(r["epoch"]) for r in rows] == [0, 1, 2]
    assert float(rows[-1]["holdout_loss"]) < float(rows[0]["holdout_loss"])
    assert float(rows[-1]["holdout_equity_rmse"]) < float(rows[0]["holdout_equity_rmse"])
    assert float(rows[-1]["train_loss"]) > 0


def test_saved_model_loads_and_c_forward_is_exact(uninterrupted: Path) -> None:
    ev = NetEvaluator.load(uninterrupted / "model.pt", device="cpu")
    run = ev.info.run if ev.info else {}
    assert run["label_set"] == "1ply"
    n_train = run["positions"]["contact"]["train"] + run["positions"]["race"]["train"]
    assert run["teachers"] == {"gnubg-nn-1ply": n_train}
    assert sum(run["holdout_teachers"].values()) == 300
    assert ev.contact_net.hidden == 16 and ev.race_net.hidden == 8
    corpus = read_npz(CORPUS / "positions.npz")
    boards = boards_of_keys(corpus["keys"][:500])
    c_out = ev.evaluate_boards(boards)
    ev.c_forward = False
    t_out = ev.evaluate_boards(boards)
    assert np.allclose(c_out, t_out, atol=2e-6)


def test_command_line_from_a_model_file(tmp_path: Path) -> None:
    workdir = tmp_path / "cli"
    argv = ["--workdir", str(workdir), "--corpus", str(CORPUS), "--max-positions", "500", "--epochs", "1"]
    assert cli_main(["train", "fit", *argv, "--init", str(MODELS / "pulvezar-v2.pt")]) == 0
    ev = NetEvaluator.load(workdir / "model.pt", device="cpu")
    assert ev.contact_net.hidden == 160 and ev.race_net.hidden == 64  # the model file's sizes
    assert ev.info is not None and ev.info.run["init"]["source"].endswith("pulvezar-v2.pt")
    with pytest.raises(SystemExit):
        cli_main(["train", "fit", "--workdir", str(tmp_path / "x"), "--label-set", "3ply"])


def test_early_stopping_keeps_the_best_epoch(tmp_path: Path) -> None:
    """With a learning rate far too high the held-out loss gets worse: each net stops and keeps its best."""
    workdir = tmp_path / "stop"
    assert FitRun(config(lr=0.5, epochs=8, patience=2, max_positions=1_000), workdir).run(log=lambda s: None)
    run = NetEvaluator.load(workdir / "model.pt", device="cpu").info.run  # type: ignore[union-attr]
    assert run["epochs_run"] < 8
    rows = curve(workdir)
    for n in ("contact", "race"):
        losses = [float(r[f"{n}_holdout_loss"]) for r in rows]
        best = run["best_epoch"][n]
        assert losses[best] == min(losses[: len(rows)]) and run["holdout_loss"][n] == pytest.approx(
            losses[best]
        )


def test_training_only_some_nets_keeps_the_others_bit_for_bit(tmp_path: Path) -> None:
    """``train="race"`` trains the race net alone; ``fresh`` starts a net anew of the config's size."""
    init = MODELS / "pulvezar-v2.pt"
    workdir = tmp_path / "race-only"
    cfg = config(init=str(init), train="race", fresh="race", race_hidden=12, max_positions=1_500, epochs=1)
    assert FitRun(cfg, workdir).run(log=lambda s: None)
    new, old = NetEvaluator.load(workdir / "model.pt", device="cpu"), NetEvaluator.load(init, device="cpu")
    assert all(
        np.array_equal(a.detach().numpy(), b.detach().numpy())
        for a, b in zip(new.contact_net.parameters(), old.contact_net.parameters(), strict=True)
    )
    assert new.race_net.hidden == 12
    run = new.info.run  # type: ignore[union-attr]
    assert run["trained"] == ["race"] and set(run["positions"]) == {"race"}
    with pytest.raises(ValueError, match="not a net"):
        FitRun(config(init=str(init), train="crashed"), tmp_path / "x").run(log=lambda s: None)
    with pytest.raises(ValueError, match="needs --init"):
        FitRun(config(train="race"), tmp_path / "y").run(log=lambda s: None)


def test_nets_for_the_quantised_kernel(tmp_path: Path) -> None:
    """``widths`` and ``activation="crelu"`` make nets of those shapes, which load and run quantised."""
    cfg = config(max_positions=800, epochs=1, widths="32,8", race_widths="16,4", activation="crelu")
    assert FitRun(cfg, tmp_path / "q").run(log=lambda s: None)
    ev = NetEvaluator.load(tmp_path / "q" / "model.pt", device="cpu")
    assert ev.contact_net.widths == (32, 8) and ev.race_net.widths == (16, 4)
    assert ev.contact_net.activation == "crelu" and ev.quantised
    boards = boards_of_keys(read_npz(CORPUS / "positions.npz")["keys"][:300])
    ev.quantised = False  # PyTorch: clipped ReLU is not the float kernel's
    np.testing.assert_allclose(NetEvaluator.load(tmp_path / "q" / "model.pt").evaluate_boards(boards),
                               ev.evaluate_boards(boards), atol=3e-3)  # fmt: skip


def test_a_tavla_rule_sets_fit_keeps_the_inputs_the_init_net_uses(tmp_path: Path) -> None:
    """``rules`` trains on that rule set's positions only; ``keep_inputs`` keeps a widened net's zero
    weights on the inputs it does not use (the quantised kernel's cost stays its own), and without it
    they learn (so the check can fail)."""
    from pulvezar.eval.encoding import FEATURES_BY_VERSION
    from pulvezar.eval.quantised import used_version
    from pulvezar.train.corpus import RULE_NAMES

    init = MODELS / "pulvezar-v2.pt"  # encoding v2, widened to v4 by the fit
    mb = "tavla+must_bear_off"
    kw = dict(init=str(init), encoding=4, rules=mb, train="contact", max_positions=1_200, epochs=1, lr=3e-4)
    boards, _, _, _, _ = load_labels(config(**kw), labelled_shards(config(**kw), 1_200))
    corpus = read_npz(CORPUS / "positions.npz")
    keys = {k.tobytes() for k in corpus["keys"][corpus["rules"] == RULE_NAMES.index(mb)]}
    assert len(boards) == 1_200 and all(k.tobytes() in keys for k in keys_of(boards))
    for keep, want in ((0, 4), (1, 2)):
        workdir = tmp_path / f"keep{keep}"
        assert FitRun(config(**kw, keep_inputs=keep), workdir).run(log=lambda s: None)
        ev = NetEvaluator.load(workdir / "model.pt", device="cpu")
        w1 = ev.contact_net.body[0].weight.detach().numpy()
        assert ev.encoding_version == 4 and w1.shape[1] == FEATURES_BY_VERSION[4]
        assert used_version(w1, 4) == want
        assert ev.info is not None and ev.info.run["best_epoch"]["contact"] == 1  # it did learn
        assert ev.info is not None and ev.info.run["config_rules"] == mb
    with pytest.raises(ValueError, match="rules is one of"):
        config(rules="chess").rules_id()
    with pytest.raises(ValueError, match="decision groups are international"):
        FitRun(config(**kw, groups="runs/groups:0ply"), tmp_path / "g").run(log=lambda s: None)
