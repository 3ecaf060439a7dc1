"""Decision groups: determinism, what a group holds, the best plays by labels, and a fit on groups."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from pulvezar.eval.evaluator import MODELS, NetEvaluator, equity, flip, swap_boards
from pulvezar.rules import _kernel
from pulvezar.train.corpus import (
    BEAROFF,
    CRASHED,
    RACE,
    boards_of_keys,
    classify,
    read_npz,
    sha256_file,
    write_npz,
)
from pulvezar.train.fit import GROUP_STRIDE, FitConfig, FitRun, decision_loss, holdout_mask
from pulvezar.train.groups import ROLLS_STRIDE, GroupsConfig, best_of_groups, build, draw_rolls, top
from pulvezar.train.labels import PRESETS, LabelConfig, LabelRun

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 400 positions of the committed corpus (international and Tavla) with its 1ply labels."""
    folder = tmp_path_factory.mktemp("corpus")
    c = read_npz(CORPUS / "positions.npz")
    write_npz(folder / "positions.npz", **{k: v[:400] for k, v in c.items()})
    return folder


@pytest.fixture(scope="module")
def groups(small_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    workdir = tmp_path_factory.mktemp("groups")
    build(GroupsConfig(corpus=str(small_corpus), top=5, random=2, block=150), workdir, log=lambda s: None)
    return workdir


def test_build_is_deterministic(small_corpus: Path, groups: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build(GroupsConfig(corpus=str(small_corpus), top=5, random=2, block=150), again, log=lambda s: None)
    assert sha256_file(again / "corpus.npz") == sha256_file(groups / "corpus.npz")


def test_a_group_is_the_chooser_best_plays_of_its_roll(small_corpus: Path, groups: Path) -> None:
    g = read_npz(groups / "corpus.npz")
    corpus = read_npz(small_corpus / "positions.npz")
    chooser = NetEvaluator.load(MODELS / "pulvezar-v2.pt", device="cpu")
    assert (corpus["rules"][g["group"]] == 0).all()  # international decisions only
    assert np.array_equal(g["cls"], classify(boards_of_keys(g["keys"])))
    decisions = np.unique(g["group"])
    assert len(decisions) > 250
    for d in decisions[:40]:
        rows = np.flatnonzero(g["group"] == d)
        dice = g["dice"][rows[0]]
        assert (g["dice"][rows] == dice).all()
        board = boards_of_keys(corpus["keys"][d : d + 1])[0]
        rec = _kernel.generate(board.tobytes(), int(dice[0]), int(dice[1]), 0)
        legal = swap_boards(np.frombuffer(rec, dtype=np.uint8).reshape(-1, _kernel.REC)[:, :50])
        mine = boards_of_keys(g["keys"][rows])
        legal_set = {b.tobytes() for b in legal}
        assert all(b.tobytes() in legal_set for b in mine)  # every candidate is a legal result
        assert len({b.tobytes() for b in mine}) == len(rows)  # distinct
        assert len(rows) == min(len(legal), 7)  # top 5 and 2 random, or every play
        eq = equity(flip(chooser.evaluate_boards(legal)))
        ranked = np.sort(eq)[::-1]
        top_eq = equity(flip(chooser.evaluate_boards(mine)))[g["rank"][rows] < 5]
        assert np.allclose(np.sort(top_eq)[::-1], ranked[: len(top_eq)])


def test_groups_of_some_classes_with_several_rolls(small_corpus: Path, tmp_path: Path) -> None:
    """``classes`` keeps decisions of those corpus classes; ``rolls`` gives distinct rolls of a position,
    each its own group ``index * ROLLS_STRIDE + slot``."""
    workdir = tmp_path / "cr"
    build(GroupsConfig(corpus=str(small_corpus), top=5, random=2, classes="crashed,race", rolls=5), workdir,
          log=lambda s: None)  # fmt: skip
    g = read_npz(workdir / "corpus.npz")
    corpus = read_npz(small_corpus / "positions.npz")
    pos = g["group"] // ROLLS_STRIDE
    assert set(np.unique(corpus["cls"][pos])) <= {CRASHED, RACE} and (corpus["rules"][pos] == 0).all()
    per_position: dict[int, set[tuple[int, int]]] = {}
    for d in np.unique(g["group"]):
        rows = np.flatnonzero(g["group"] == d)
        a, b = sorted(int(x) for x in g["dice"][rows[0]])
        assert (a, b) not in per_position.setdefault(int(d) // ROLLS_STRIDE, set())  # distinct rolls
        per_position[int(d) // ROLLS_STRIDE].add((a, b))
        board = boards_of_keys(corpus["keys"][d // ROLLS_STRIDE : d // ROLLS_STRIDE + 1])[0]
        rec = _kernel.generate(board.tobytes(), a, b, 0)
        legal = {
            x.tobytes()
            for x in swap_boards(np.frombuffer(rec, dtype=np.uint8).reshape(-1, _kernel.REC)[:, :50])
        }
        assert all(x.tobytes() in legal for x in boards_of_keys(g["keys"][rows]))
    assert max(len(r) for r in per_position.values()) > 1
    with pytest.raises(ValueError, match="unknown"):
        GroupsConfig(classes="crashd").class_ids()


def test_draw_rolls_drops_repeats() -> None:
    dice, code = draw_rolls(np.random.default_rng(1), 200, 8)
    seen: dict[int, set[tuple[int, ...]]] = {}
    for (a, b), c in zip(dice.tolist(), code.tolist(), strict=True):
        roll = tuple(sorted((a, b)))
        assert roll not in seen.setdefault(c // ROLLS_STRIDE, set())
        seen[c // ROLLS_STRIDE].add(roll)
    assert len(seen) == 200 and 1 < np.mean([len(v) for v in seen.values()]) < 8


def test_best_of_groups_takes_the_labels_best() -> None:
    groups = {"group": np.array([7, 7, 7, 3, 3, 9]), "cls": np.array([0, 0, 0, 2, BEAROFF, 0])}
    # probabilities of the player on roll after the play: a lower equity is a better play
    probs = np.zeros((6, 5))
    probs[:, 0] = [0.6, 0.2, 0.4, 0.5, 0.0, 0.5]
    labelled = np.array([True, True, True, True, True, False])
    assert best_of_groups(groups, probs, labelled, 2).tolist() == [1, 2, 3]  # the bear-off has no label


def test_decision_loss() -> None:
    keys = np.array([1, 1, 1, 2, 2, 5])
    label = np.array([0.1, -0.2, 0.0, 0.3, 0.3, 0.0])  # group 1: row 1 is the best play (mover +0.2)
    assert decision_loss(label, label, keys) == (0.0, 2)
    pred = np.array([-0.5, 0.0, 0.0, 0.0, 0.1, 0.0])  # prefers row 0: loses 0.3
    loss, n = decision_loss(pred, label, keys)
    assert n == 2 and loss == pytest.approx(1000 * (0.3 + 0.0) / 2)


def test_widen_keeps_the_outputs() -> None:
    import torch

    from pulvezar.eval.encoding import FEATURES_BY_VERSION, encode
    from pulvezar.train.fit import widen

    ev = NetEvaluator.load(MODELS / "pulvezar-v2.pt", device="cpu")
    wide = widen(ev.contact_net, FEATURES_BY_VERSION[3])
    boards = boards_of_keys(read_npz(CORPUS / "positions.npz")["keys"][:300])
    with torch.no_grad():
        a = ev.contact_net(torch.from_numpy(encode(boards, 2)))
        b = wide(torch.from_numpy(encode(boards, 3)))
    assert wide.features == FEATURES_BY_VERSION[3] and torch.allclose(a, b, atol=1e-6)


@pytest.mark.oracle
def test_fit_on_groups_learns_the_teachers_choices(groups: Path, tmp_path: Path) -> None:
    """Labelled by gnubg-nn 0-ply, fresh nets fitted with the group loss choose much more like it."""
    pytest.importorskip("gnubg_nn")
    run = LabelRun(groups, LabelConfig(**{**PRESETS["0ply"].__dict__, "shard": 1_000}), label_set="0ply")
    assert run.run(log=lambda s: None)
    top(groups, groups, "0ply", 2, tmp_path / "top2", log=lambda s: None)
    t = read_npz(tmp_path / "top2" / "corpus.npz")
    assert (np.bincount(np.unique(t["group"], return_inverse=True)[1]) <= 2).all()
    workdir = tmp_path / "fit"
    cfg = FitConfig(
        corpus=str(CORPUS), label_set="1ply", max_positions=300, groups=f"{groups}:0ply", group_weight=1.0,
        encoding=3, hidden=32, race_hidden=16, layers=2, epochs=4, batch=64, lr=3e-3, holdout=0.25, seed=2,
        stop_on="decision",
    )  # fmt: skip
    assert FitRun(cfg, workdir).run(log=lambda s: None)
    with (workdir / "curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    first = float(rows[0]["contact_holdout_decision_loss"])
    best = min(float(r["contact_holdout_decision_loss"]) for r in rows[1:])
    assert best < 0.5 * first
    ev = NetEvaluator.load(workdir / "model.pt", device="cpu")
    assert ev.encoding_version == 3 and ev.contact_net.layers == 2
    info = ev.info.run if ev.info else {}
    assert set(info["teachers"]) == {"gnubg-nn-0ply", "gnubg-nn-1ply"}
    assert info["corpus"]["groups"][f"{groups}:0ply"]["positions"] > 1_000
    assert info["best_epoch"]["contact"] == 1 + min(
        range(len(rows) - 1), key=lambda k: float(rows[k + 1]["contact_holdout_decision_loss"])
    )


def test_a_decision_is_held_out_in_every_source_or_in_none() -> None:
    """Two label sets of the same decisions (keys: source * GROUP_STRIDE + decision): a decision's rows
    are held out together, so no teacher's labels of a held-out decision train the net."""
    decisions = np.repeat(np.arange(2_000, dtype=np.int64), 3)
    group = np.concatenate([1 * GROUP_STRIDE + decisions, 2 * GROUP_STRIDE + decisions])
    mask = holdout_mask(500, group, 0.1, seed=4)
    corpus, rows = mask[:500], mask[500:]
    assert corpus.sum() == 50
    first, second = rows[: len(decisions)], rows[len(decisions) :]
    assert np.array_equal(first, second) and 0.07 < first.mean() < 0.13
    assert all(len(set(first[decisions == d])) == 1 for d in range(0, 2_000, 97))
    assert np.array_equal(mask, holdout_mask(500, group, 0.1, seed=4))
