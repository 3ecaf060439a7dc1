"""Race positions labelled by a model's own 1-ply (issue 43): the data, its labels as fit reads them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pulvezar.eval.evaluator import MODELS, NetEvaluator, equity
from pulvezar.train import lookahead as la
from pulvezar.train.corpus import RACE, boards_of_keys, classify, read_npz, sha256_file
from pulvezar.train.fit import FitConfig, FitRun, labelled_shards, load_labels

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"
TINY = la.LookaheadConfig(corpus=str(CORPUS), heldout=20, max_corpus=60, gammon=20, starts=4, trials=1)


def test_gammon_races_have_the_trailer_far_back_with_all_fifteen() -> None:
    boards = la.gammon_races(40, seed=3)
    assert (classify(boards) == RACE).all()
    sides = boards.reshape(-1, 2, 25)
    trailer = np.where(np.arange(40)[:, None] % 2 == 0, sides[:, 0], sides[:, 1])
    leader = np.where(np.arange(40)[:, None] % 2 == 0, sides[:, 1], sides[:, 0])
    assert (trailer.sum(axis=1) == 15).all() and (trailer[:, 6:].sum(axis=1) >= 11).all()
    assert (leader.sum(axis=1) <= 14).all() and (leader[:, 6:] == 0).all()


def test_build_is_deterministic_and_keeps_the_held_out_races_apart(tmp_path: Path) -> None:
    quiet = lambda s: None  # noqa: E731
    a = la.build(TINY, tmp_path / "a", quiet)
    b = la.build(TINY, tmp_path / "b", quiet)
    assert a["sha256"] == b["sha256"] == sha256_file(tmp_path / "a" / la.POSITIONS_FILE)
    boards = boards_of_keys(read_npz(tmp_path / "a" / la.POSITIONS_FILE)["keys"])
    assert len(boards) == a["positions"] == sum(a["origins"].values())
    assert a["origins"]["gammon"] > 0 and a["origins"]["visited"] > 0
    assert (classify(boards) == RACE).all() and len(np.unique(boards, axis=0)) == len(boards)
    held = {bytes(x) for x in la.heldout_boards(tmp_path / "a")}
    assert len(held) == 20 and not held & {bytes(x) for x in boards}


def test_labels_are_the_models_own_lookahead_and_fit_reads_them(tmp_path: Path) -> None:
    la.build(TINY, tmp_path, lambda s: None)
    model = str(MODELS / "pulvezar-v4.pt")
    assert la.label(tmp_path, model, shard=40, log=lambda s: None) >= 2
    assert la.label(tmp_path, model, shard=40, log=lambda s: None) == 0  # resumes: nothing left
    cfg = FitConfig(label_set=la.LABEL_SET, corpus=str(tmp_path))
    boards, probs, teacher, cls, _ = load_labels(cfg, labelled_shards(cfg))
    ev = NetEvaluator.load(model, device="cpu")
    want = la.lookahead(ev, boards)
    assert np.abs(equity(probs) - equity(want)).max() < 1e-5  # float32, projected consistent
    assert (cls == RACE).all() and len(set(teacher.tolist())) == 1
    with pytest.raises(ValueError, match="another model"):
        la.label(tmp_path, str(MODELS / "pulvezar-v3.pt"), shard=40, log=lambda s: None)
    c = la.consistency(ev, boards)
    d = equity(ev.evaluate_boards(boards)) - equity(want)
    assert c["positions"] == len(boards) and c["mean_abs"] == pytest.approx(np.abs(d).mean())


def test_the_equity_weight_changes_the_fit(tmp_path: Path) -> None:
    la.build(TINY, tmp_path / "d", lambda s: None)
    la.label(tmp_path / "d", str(MODELS / "pulvezar-v4.pt"), shard=200, log=lambda s: None)
    races = []
    for w in (0.0, 50.0):
        cfg = FitConfig(
            label_set=la.LABEL_SET,
            corpus=str(tmp_path / "d"),
            init=str(MODELS / "pulvezar-v4.pt"),
            crashed_hidden=256,
            train="race",
            epochs=1,
            batch=64,
            lr=1e-3,
            equity_weight=w,
        )
        FitRun(cfg, tmp_path / f"w{w}").run(log=lambda s: None)
        races.append(NetEvaluator.load(tmp_path / f"w{w}" / "model.pt", device="cpu").nets["race"])
    a, b = (next(iter(r.parameters())).detach() for r in races)
    assert not bool((a == b).all())  # the squared equity error entered the loss
