"""Training tools on model files with a crashed net (a third net, NetEvaluator's crashed_net): weight
averaging averages it too and refuses to mix models with and without one; load_nets (the start of
supervised generations and of fit) still reads such a file's contact and race nets."""

from pathlib import Path

import pytest
import torch

from pulvezar.eval.evaluator import NetEvaluator
from pulvezar.eval.nets import ValueNet
from pulvezar.train.average import average_models
from pulvezar.train.supervised import load_nets


def model(path: Path, seed: int, crashed: bool) -> NetEvaluator:
    torch.manual_seed(seed)
    ev = NetEvaluator(ValueNet(16), ValueNet(8), device="cpu", crashed_net=ValueNet(12) if crashed else None)
    ev.save(path, {"name": "unit", "games_done": seed})
    return ev


def test_the_average_of_three_net_models_averages_the_crashed_net(tmp_path: Path) -> None:
    a, b = model(tmp_path / "a.pt", 1, True), model(tmp_path / "b.pt", 2, True)
    avg = average_models([tmp_path / "a.pt", tmp_path / "b.pt"], tmp_path / "m.pt")
    loaded = NetEvaluator.load(tmp_path / "m.pt")
    assert loaded.info is not None and loaded.info.nets == ("contact", "crashed", "race")
    for name in ("contact", "crashed", "race"):
        for x, y, m, n in zip(
            a.nets[name].parameters(), b.nets[name].parameters(), avg.nets[name].parameters(),
            loaded.nets[name].parameters(), strict=True,
        ):  # fmt: skip
            torch.testing.assert_close(m, (x + y) / 2)
            assert torch.equal(m, n)


def test_models_with_and_without_a_crashed_net_do_not_average(tmp_path: Path) -> None:
    model(tmp_path / "a.pt", 1, True)
    model(tmp_path / "b.pt", 2, False)
    with pytest.raises(ValueError, match="nets"):
        average_models([tmp_path / "a.pt", tmp_path / "b.pt"], tmp_path / "m.pt")


def test_load_nets_of_a_three_net_model_gives_its_contact_and_race_nets(tmp_path: Path) -> None:
    three = model(tmp_path / "a.pt", 1, True)
    c, r, version, info = load_nets(tmp_path / "a.pt")
    assert version == three.encoding_version and info["source"] == str(tmp_path / "a.pt")
    assert all(torch.equal(x, y) for x, y in zip(c.parameters(), three.contact_net.parameters(), strict=True))
    assert all(torch.equal(x, y) for x, y in zip(r.parameters(), three.race_net.parameters(), strict=True))


def test_compose_takes_each_named_net_from_its_model(tmp_path: Path) -> None:
    from pulvezar.train.compose import compose_models

    a, b = model(tmp_path / "a.pt", 1, True), model(tmp_path / "b.pt", 2, True)
    out = compose_models(tmp_path / "a.pt", {"race": tmp_path / "b.pt"}, tmp_path / "m.pt")
    loaded = NetEvaluator.load(tmp_path / "m.pt")
    for name, want in (("contact", a), ("crashed", a), ("race", b)):
        for x, y in zip(loaded.nets[name].parameters(), want.nets[name].parameters(), strict=True):
            assert torch.equal(x, y)
    run = loaded.info.run  # type: ignore[union-attr]
    b_info = NetEvaluator.load(tmp_path / "b.pt").info
    assert b_info is not None and run["composed"]["race"]["sha256"] == b_info.sha256
    assert run["composed"]["base"]["file"].endswith("a.pt") and out.info is not None
    with pytest.raises(ValueError, match="no such net"):
        model(tmp_path / "c.pt", 3, False)
        compose_models(tmp_path / "c.pt", {"crashed": tmp_path / "a.pt"}, tmp_path / "n.pt")
