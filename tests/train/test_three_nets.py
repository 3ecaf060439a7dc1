"""Training tools on model files with a crashed net (a third net, NetEvaluator's crashed_net): weight
averaging averages it too and refuses to mix models with and without one; load_nets (the start of
supervised generations and of fit) still reads such a file's contact and race nets."""

from pathlib import Path

import numpy as np
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


def test_compose_widens_a_net_of_a_lower_encoding_without_changing_its_values(tmp_path: Path) -> None:
    """A v2 contact net in a v4 model: the same probabilities (zero weights on the newer inputs), and
    the quantised kernel runs it as the v2 net it is, bit for bit."""
    from pulvezar.eval.encoding import FEATURES_BY_VERSION
    from pulvezar.eval.evaluator import boards_of
    from pulvezar.eval.quantised import QuantisedNet
    from pulvezar.rules import Position
    from pulvezar.train.compose import compose_models

    f2, f4 = FEATURES_BY_VERSION[2], FEATURES_BY_VERSION[4]
    NetEvaluator(
        ValueNet(16, features=f4), ValueNet(8, features=f4), device="cpu", encoding_version=4,
        crashed_net=ValueNet(12, features=f4),
    ).save(tmp_path / "a.pt", {"name": "unit"})  # fmt: skip
    torch.manual_seed(5)
    v2 = NetEvaluator(
        ValueNet(features=f2, widths=[64, 16], activation="crelu"), ValueNet(8, features=f2),
        device="cpu", encoding_version=2, quantised=False,
    )  # fmt: skip
    v2.save(tmp_path / "v2.pt", {"name": "unit"})
    composed = compose_models(tmp_path / "a.pt", {"contact": tmp_path / "v2.pt"}, tmp_path / "m.pt")
    loaded = NetEvaluator.load(tmp_path / "m.pt", quantised=False)
    assert loaded.encoding_version == 4 and loaded.contact_net.features == f4
    assert composed.info is not None and composed.info.run["composed"]["contact"]["encoding"] == 2
    boards = boards_of([Position.start(), Position.from_position_id("sGfwATDgc/ABMA")])
    np.testing.assert_allclose(
        loaded.net_probabilities(loaded.contact_net, boards), v2.net_probabilities(v2.contact_net, boards),
        atol=1e-6,
    )  # fmt: skip
    wide = QuantisedNet.from_value_net(loaded.contact_net, 4)
    narrow = QuantisedNet.from_value_net(v2.contact_net, 2)
    assert wide.version == 2
    assert np.array_equal(wide.evaluate(boards), narrow.evaluate(boards))
    with pytest.raises(ValueError, match="above the base"):
        compose_models(tmp_path / "v2.pt", {"contact": tmp_path / "a.pt"}, tmp_path / "n.pt")


def test_compose_gives_a_rule_set_nets_of_its_own(tmp_path: Path) -> None:
    """``variants``: a Tavla rule set's nets from other model files (the rest are the base's); a model
    composed again keeps them; the command line's ``--variant RULES:NAME=MODEL``."""
    from pulvezar import Rules
    from pulvezar.cli import main as cli_main
    from pulvezar.train.compose import compose_models

    a, b = model(tmp_path / "a.pt", 1, True), model(tmp_path / "b.pt", 2, True)
    mb, hs = Rules.tavla(must_bear_off=True), Rules.tavla(hit_and_stop=True)
    compose_models(
        tmp_path / "a.pt", {}, tmp_path / "m.pt", variants={mb.name: {"contact": tmp_path / "b.pt"}}
    )
    loaded = NetEvaluator.load(tmp_path / "m.pt")
    assert loaded.info is not None and loaded.info.variants == (mb.name,)
    assert loaded.info.run["name"] == "m"  # the file's name, not the base's run
    own = loaded.for_rules(mb)
    for name, want in (("contact", b), ("crashed", a), ("race", a)):
        for x, y in zip(own.nets[name].parameters(), want.nets[name].parameters(), strict=True):
            assert torch.equal(x, y)
    b_sha = NetEvaluator.load(tmp_path / "b.pt").info.sha256  # type: ignore[union-attr]
    assert loaded.info.run["variants"][mb.name]["contact"]["sha256"] == b_sha
    compose_models(tmp_path / "m.pt", {"race": tmp_path / "b.pt"}, tmp_path / "n.pt")
    again = NetEvaluator.load(tmp_path / "n.pt")
    assert again.info is not None and again.info.variants == (mb.name,)
    assert again.info.run["variants"][mb.name]["contact"]["sha256"] == b_sha
    args = ["train", "compose", "--base", str(tmp_path / "m.pt"), "--out", str(tmp_path / "c.pt")]
    assert cli_main([*args, "--variant", f"{hs.name}:crashed={tmp_path / 'b.pt'}"]) == 0
    both = NetEvaluator.load(tmp_path / "c.pt")
    assert both.info is not None and both.info.variants == (hs.name, mb.name)  # sorted
    assert both.for_rules(hs).crashed_net is not both.crashed_net
    with pytest.raises(SystemExit):
        cli_main([*args, "--variant", f"{hs.name}={tmp_path / 'b.pt'}"])
    with pytest.raises(ValueError, match="not a Tavla rule set"):
        compose_models(
            tmp_path / "a.pt", {}, tmp_path / "x.pt", variants={"backgammon": {"contact": tmp_path / "b.pt"}}
        )
