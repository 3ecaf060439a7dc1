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


TAVLA_CORPUS = CORPUS.parent / "tavla-corpus"


def test_a_tavla_build_marks_its_races_and_holds_out_tavla_corpus_races(tmp_path: Path) -> None:
    from dataclasses import replace

    from pulvezar.rules.rules import Rules
    from pulvezar.train.corpus import RULE_NAMES

    cfg = replace(TINY, rules="tavla+must_bear_off", tavla_corpus=str(TAVLA_CORPUS), starts=0, max_corpus=0)
    meta = la.build(cfg, tmp_path, lambda s: None)
    corpus = read_npz(tmp_path / la.POSITIONS_FILE)
    assert (corpus["rules"] == RULE_NAMES.index("tavla+must_bear_off")).all()
    assert la.build_rules(tmp_path) == Rules.tavla(must_bear_off=True) and "tavla_corpus_sha256" in meta
    boards = {bytes(b) for b in boards_of_keys(corpus["keys"])}
    held = la.heldout_boards(tmp_path)
    assert len(held) == 20 and (classify(held) == RACE).all() and not boards & {bytes(b) for b in held}
    assert {bytes(b) for b in held} == {
        bytes(b) for b in la.tavla_heldout(Rules.tavla(must_bear_off=True), 20, 43, TAVLA_CORPUS)
    }
    # the class's other Tavla corpus races join (both must-bear-off sets), the plain Tavla ones do not
    tc = read_npz(TAVLA_CORPUS / "positions.npz")
    race = tc["cls"] == RACE
    must = {bytes(b) for b in boards_of_keys(tc["keys"][race & np.isin(tc["rules"], (3, 4))])}
    plain = {bytes(b) for b in boards_of_keys(tc["keys"][race & np.isin(tc["rules"], (1, 2))])}
    assert len(boards & must) >= len(must) - 20  # all but the held-out ones
    assert len(boards & (plain - must)) < len(plain - must) / 100  # only those an international race shares
    assert la.race_class(Rules.tavla(hit_and_stop=True)) == (1, 2)


def test_gnubg_leaves_label_the_lookahead_under_the_builds_rules(tmp_path: Path) -> None:
    pytest.importorskip("gnubg_nn")
    from dataclasses import replace

    from pulvezar.rules.rules import Rules
    from pulvezar.train.labels import TEACHERS, GnubgEvaluator, gnubg_probabilities

    cfg = replace(TINY, rules="tavla", tavla_corpus=str(TAVLA_CORPUS), max_corpus=30, gammon=10, starts=0)
    la.build(cfg, tmp_path, lambda s: None)
    assert la.label(tmp_path, shard=100, log=lambda s: None, leaves="gnubg") >= 1
    fit_cfg = FitConfig(label_set=la.LABEL_SET, corpus=str(tmp_path), rules="tavla")
    boards, probs, teacher, _, _ = load_labels(fit_cfg, labelled_shards(fit_cfg))
    assert set(teacher.tolist()) == {TEACHERS.index(la.teacher_of("gnubg", 1))}
    tavla = Rules.tavla()
    want = la.lookahead(GnubgEvaluator(), boards, rules=tavla)
    assert np.abs(equity(probs, tavla) - equity(want, tavla)).max() < 1e-5
    with pytest.raises(ValueError, match="another model"):  # the workdir keeps its leaves
        la.label(tmp_path, shard=100, log=lambda s: None, leaves="model")
    # the evaluator: gnubg-nn's values, finished games exact (a side with nothing left has won)
    ev = GnubgEvaluator()
    assert np.allclose(ev.evaluate_boards(boards[:3]), gnubg_probabilities(boards[:3], 0))
    lost = boards[0].copy()
    lost[25:] = 0  # the other side has borne off its last checker: the side on roll lost
    assert ev.evaluate_boards(lost[None])[0][0] == 0.0


def test_consistency_uses_the_models_own_nets_for_the_rules() -> None:
    from pulvezar.rules.rules import Rules

    ev = NetEvaluator.load(MODELS / "pulvezar-v5.pt", device="cpu")
    boards = la.tavla_heldout(Rules.tavla(), 30, 43, TAVLA_CORPUS)
    inter = la.consistency(ev, boards)
    tavla = la.consistency(ev, boards, Rules.tavla())
    v = equity(ev.for_rules(Rules.tavla()).evaluate_boards(boards), Rules.tavla())
    one = equity(la.lookahead(ev, boards, rules=Rules.tavla()), Rules.tavla())
    assert tavla["mean_abs"] == pytest.approx(np.abs(v - one).mean()) and tavla != inter


def test_two_ply_gnubg_labels_and_a_workdir_keeps_its_ply(tmp_path: Path) -> None:
    pytest.importorskip("gnubg_nn")
    from dataclasses import replace

    from pulvezar.rules.rules import Rules
    from pulvezar.train.labels import TEACHERS, GnubgEvaluator

    cfg = replace(TINY, rules="tavla", tavla_corpus=str(TAVLA_CORPUS), max_corpus=4, gammon=2, starts=0)
    la.build(cfg, tmp_path, lambda s: None)
    assert la.label(tmp_path, shard=100, log=lambda s: None, leaves="gnubg", ply=2) == 1
    fit_cfg = FitConfig(label_set=la.LABEL_SET, corpus=str(tmp_path), rules="tavla")
    boards, probs, teacher, _, _ = load_labels(fit_cfg, labelled_shards(fit_cfg))
    assert set(teacher.tolist()) == {TEACHERS.index("lookahead-2ply-gnubg")}
    tavla = Rules.tavla()
    two, one = (equity(la.lookahead(GnubgEvaluator(), boards, p, rules=tavla), tavla) for p in (2, 1))
    assert np.abs(equity(probs, tavla) - two).max() < 1e-5 and not np.allclose(two, one)
    with pytest.raises(ValueError, match="ply"):  # the workdir keeps its depth
        la.label(tmp_path, shard=100, log=lambda s: None, leaves="gnubg", ply=1)
    with pytest.raises(ValueError, match="ply is 1 or 2"):
        la.label(tmp_path, shard=100, log=lambda s: None, leaves="gnubg", ply=3)


def test_labels_follow_the_builds_rules_and_refuse_positions_marked_otherwise(tmp_path: Path) -> None:
    """``label`` takes the rule set from the build's record (``build_rules``), and a positions file whose
    marks disagree with it (a workdir put together by hand) is refused before anything is labelled."""
    from pulvezar.train.corpus import write_npz

    la.build(TINY, tmp_path, lambda s: None)
    assert la.build_rules(tmp_path).name == "international"
    positions = read_npz(tmp_path / la.POSITIONS_FILE)
    positions["rules"] = positions["rules"].copy()
    positions["rules"][-1] = 1  # one race marked with a Tavla rule set
    write_npz(tmp_path / la.POSITIONS_FILE, **positions)
    with pytest.raises(ValueError, match="another rule set than the build's international"):
        la.label(tmp_path, str(MODELS / "pulvezar-v4.pt"), shard=40, log=lambda s: None)
    assert not (tmp_path / f"labels-{la.LABEL_SET}.json").exists()
