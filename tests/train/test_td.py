"""TD(lambda) self-play: deterministic per seed, exactly resumable, and it learns."""

import numpy as np
import pytest
import torch

from pulvezar.train.td import TDConfig, TDTrainer

SMALL = dict(lockstep=16, train_every=512, batch=64, contact_hidden=16, race_hidden=8, checkpoint_every=20)


def weights(t: TDTrainer) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in (*t.contact_net.parameters(), *t.race_net.parameters())]


def test_same_seed_same_run_and_resume_is_exact(tmp_path) -> None:
    a = TDTrainer(TDConfig(seed=3, games=40, **SMALL), tmp_path / "a")
    a.run(log=lambda _s: None)
    b = TDTrainer(TDConfig(seed=3, games=40, **SMALL), tmp_path / "b")
    b.run(log=lambda _s: None)
    assert all(np.array_equal(x, y) for x, y in zip(weights(a), weights(b), strict=True))

    c = TDTrainer(TDConfig(seed=3, games=20, **SMALL), tmp_path / "c")
    c.run(log=lambda _s: None)
    d = TDTrainer(TDConfig(seed=3, games=40, **SMALL), tmp_path / "c")
    assert d.resume() and d.state.games_done == 20
    d.config.games = 40
    d.run(log=lambda _s: None)
    assert all(np.array_equal(x, y) for x, y in zip(weights(a), weights(d), strict=True))
    assert (tmp_path / "c" / "curve.csv").read_text().count("\n") == 3  # header + 2 checkpoints


def test_export_writes_a_loadable_model(tmp_path) -> None:
    from pulvezar.eval.evaluator import NetEvaluator

    t = TDTrainer(TDConfig(seed=1, games=20, **SMALL), tmp_path)
    t.run(log=lambda _s: None)
    t.export(tmp_path / "m.pt", "unit")
    ev = NetEvaluator.load(tmp_path / "m.pt")
    assert ev.info is not None and ev.info.run["games_done"] == 20
    assert torch.equal(next(ev.contact_net.parameters()), next(t.contact_net.parameters()))


def test_learning_rate_change_of_a_resumed_run_is_kept_and_recorded(tmp_path) -> None:
    a = TDTrainer(TDConfig(seed=2, games=20, lr=1e-3, **SMALL), tmp_path)
    a.run(log=lambda _s: None)
    b = TDTrainer(TDConfig(seed=2, games=40, lr=1e-3, **SMALL), tmp_path)
    assert b.resume()
    b.set_lr(2.5e-4)
    b.run(log=lambda _s: None)
    c = TDTrainer(TDTrainer.saved_config(tmp_path), tmp_path)
    assert c.resume() and c.config.lr == 2.5e-4
    assert [g["lr"] for g in c.optimizer.param_groups] == [2.5e-4]
    assert c.state.lr_changes == [(20, 2.5e-4)]
    c.export(tmp_path / "m.pt", "unit")
    from pulvezar.eval.evaluator import NetEvaluator

    info = NetEvaluator.load(tmp_path / "m.pt").info
    assert info is not None and info.run["lr_changes"] == [[20, 2.5e-4]] and info.run["lr"] == 2.5e-4


def test_widening_the_contact_net_keeps_its_values_and_survives_resume(tmp_path) -> None:
    from pulvezar.rules.position import Position

    a = TDTrainer(TDConfig(seed=4, games=20, **SMALL), tmp_path)
    a.run(log=lambda _s: None)
    boards = np.frombuffer(Position.start().board, dtype=np.uint8).reshape(1, 50)
    before = a.evaluator.net_probabilities(a.contact_net, boards)
    a.widen_contact(24)
    assert a.contact_net.hidden == 24
    np.testing.assert_allclose(a.evaluator.net_probabilities(a.contact_net, boards), before, atol=1e-6)
    a.config.games = 40
    a.run(log=lambda _s: None)
    b = TDTrainer(TDTrainer.saved_config(tmp_path), tmp_path)
    assert b.resume() and b.contact_net.hidden == 24 and b.state.widenings == [(20, 24)]
    assert all(np.array_equal(x, y) for x, y in zip(weights(a), weights(b), strict=True))


def test_average_of_snapshots_is_the_mean_of_their_weights(tmp_path) -> None:
    from pulvezar.eval.evaluator import NetEvaluator
    from pulvezar.train.average import average_models

    t = TDTrainer(TDConfig(seed=5, games=20, **SMALL), tmp_path)
    t.run(log=lambda _s: None)
    t.export(tmp_path / "a.pt", "unit")
    t.config.games = 40
    t.run(log=lambda _s: None)
    t.export(tmp_path / "b.pt", "unit")
    a, b = NetEvaluator.load(tmp_path / "a.pt"), NetEvaluator.load(tmp_path / "b.pt")
    avg = average_models([tmp_path / "a.pt", tmp_path / "b.pt"], tmp_path / "m.pt")
    loaded = NetEvaluator.load(tmp_path / "m.pt")
    for x, y, m, n in zip(
        a.contact_net.parameters(), b.contact_net.parameters(), avg.contact_net.parameters(),
        loaded.contact_net.parameters(), strict=True,
    ):  # fmt: skip
        torch.testing.assert_close(m, (x + y) / 2)
        assert torch.equal(m, n)
    assert loaded.info is not None and [s["games_done"] for s in loaded.info.run["averaged"]] == [20, 40]
    t.widen_contact(24)
    t.export(tmp_path / "c.pt", "unit")
    with pytest.raises(ValueError, match="shape"):
        average_models([tmp_path / "a.pt", tmp_path / "c.pt"], tmp_path / "x.pt")
