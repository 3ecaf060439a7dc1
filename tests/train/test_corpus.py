"""The position corpus and its teacher labels: deterministic, exactly resumable, distinct, verified."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from pulvezar import Position
from pulvezar.eval.evaluator import MODELS, NetEvaluator, boards_of, default_evaluator
from pulvezar.rules.rules import Rules
from pulvezar.train.corpus import (
    BEAROFF,
    CLASSES,
    CONTACT,
    CORPUS_FILE,
    CRASHED,
    OVER,
    RACE,
    RULE_NAMES,
    CorpusBuild,
    CorpusConfig,
    boards_of_keys,
    classify,
    keys_of,
    match_positions,
    position_id_of_key,
    read_npz,
    summary,
)
from pulvezar.train.labels import (
    TEACHERS,
    UNLABELLED,
    LabelConfig,
    LabelRun,
    export,
    shard_path,
    teach,
    verify,
)

FAST = LabelConfig(shard=40, international="pulvezar-v2-0ply", tavla="pulvezar-v2-0ply")


def tiny(**over: object) -> CorpusConfig:
    cfg = dict(
        positions=240, tavla_positions=20, block_games=8, lockstep=8, keep=0.5, matches="/nonexistent/matches"
    )
    cfg.update(over)
    return CorpusConfig(**cfg)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("corpus")
    CorpusBuild(tiny(), work).build(log=lambda s: None)
    return work


def files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix == ".npz"
    }


def test_keys_round_trip_against_position_ids(built: Path) -> None:
    corpus = read_npz(built / CORPUS_FILE)
    boards = boards_of_keys(corpus["keys"])
    assert np.array_equal(keys_of(boards), corpus["keys"])
    for key, board in zip(corpus["keys"][:200], boards[:200], strict=True):
        assert position_id_of_key(key) == Position.from_board(board.tobytes()).position_id
    start = Position.start()
    key = keys_of(boards_of([start]))[0]
    assert position_id_of_key(key) == "4HPwATDgc/ABMA" and key.shape == (10,)


def test_corpus_is_distinct_and_counted(built: Path) -> None:
    corpus = read_npz(built / CORPUS_FILE)
    keys, rules, cls = corpus["keys"], corpus["rules"], corpus["cls"]
    pairs = {bytes([r]) + k.tobytes() for r, k in zip(rules, keys, strict=True)}
    assert len(pairs) == len(keys) == 240 + 4 * 20
    assert np.array_equal(cls, classify(boards_of_keys(keys)))  # stored classes are the classifier's
    assert cls.max() < BEAROFF  # finished games and bear-offs are dropped
    s = summary(keys, rules, corpus["source"], cls)
    assert sum(s["classes"].values()) == len(keys)
    assert s["rules"]["international"]["positions"] == 240
    assert all(s["rules"][name]["positions"] == 20 for name in RULE_NAMES[1:])
    assert s["classes"]["contact"] > 0 and s["classes"]["race"] > 0


def test_classes_on_known_positions() -> None:
    cases = {
        Position.start(): CONTACT,
        Position.from_points({8: 5, 6: 5, 5: 5}, {8: 5, 6: 5, 3: 5}): RACE,  # passed each other
        Position.from_points({1: 3, 2: 3}, {5: 2, 6: 4}): BEAROFF,
        Position.from_points({}, {6: 2}): OVER,  # the player on roll has borne off everything (won)
        # on roll: 5 checkers left in play against a back checker: crashed (gnubg: <= 6 in play)
        Position.from_points({1: 2, 2: 2, 7: 1}, {20: 1, 13: 5, 8: 4, 6: 5}): CRASHED,
    }
    boards = boards_of(list(cases))
    assert classify(boards).tolist() == list(cases.values())


def test_build_is_deterministic_and_resumes_exactly(built: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    assert CorpusBuild(tiny(), again).build(log=lambda s: None) is not None
    assert (again / CORPUS_FILE).read_bytes() == (built / CORPUS_FILE).read_bytes()
    other = tmp_path / "other-seed"
    CorpusBuild(tiny(seed=99), other).build(log=lambda s: None)
    assert (other / CORPUS_FILE).read_bytes() != (built / CORPUS_FILE).read_bytes()
    resumed = tmp_path / "resumed"
    assert CorpusBuild(tiny(), resumed).build(log=lambda s: None, stop_after_blocks=3) is None
    assert not (resumed / CORPUS_FILE).exists()
    CorpusBuild(tiny(), resumed).build(log=lambda s: None)
    assert files(resumed) == files(built)


def test_missing_match_folder_gives_no_positions(tmp_path: Path) -> None:
    boards, rows = match_positions(tmp_path / "missing", log=lambda s: None)
    assert boards.shape == (0, 50) and rows == []
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "broken.mat").write_text("not a match\n")
    (tmp_path / "m" / "list.txt").write_text("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10\n")
    boards, rows = match_positions(tmp_path / "m", log=lambda s: None)
    assert len(boards) == 1 and [r["positions"] for r in rows] == [0, 1] and "error" in rows[0]


def test_labels_resume_exactly_and_export_verifies(built: Path, tmp_path: Path) -> None:
    full, part = tmp_path / "full", tmp_path / "part"
    for w in (full, part):
        w.mkdir()
        shutil.copyfile(built / CORPUS_FILE, w / CORPUS_FILE)
    assert LabelRun(full, FAST).run(log=lambda s: None)
    assert not LabelRun(part, FAST).run(log=lambda s: None, stop_after=3)
    assert len(LabelRun(part).done()) == 3
    assert LabelRun(part).run(log=lambda s: None)  # resumes with its saved settings
    assert files(full) == files(part)
    run = LabelRun(full)
    s = read_npz(shard_path(full, 0))
    assert s["probs"].dtype == np.float16 and s["probs"].shape == (40, 5)
    assert set(s["teacher"].tolist()) == {TEACHERS.index("pulvezar-v2-0ply")}
    status = run.status()
    assert status["labelled"] == status["positions"] == 320 and status["teachers"] == {
        "pulvezar-v2-0ply": 320
    }
    # the labels are the teacher's values in pulvezar's order
    corpus = read_npz(full / CORPUS_FILE)
    intl = np.flatnonzero(corpus["rules"][:40] == 0)
    want = NetEvaluator.load(MODELS / "pulvezar-v2.pt").evaluate_boards(boards_of_keys(corpus["keys"][intl]))
    assert np.allclose(s["probs"][intl].astype(np.float64), want, atol=1e-3)

    # the committed form: export, verify, continue on a fresh machine from it
    committed = tmp_path / "data-corpus"
    for i in range(5, 8):
        shard_path(part, i).unlink()
    export(part, committed, log=lambda s: None)
    assert verify(committed) == 3 + 5  # positions, labels.json, status.json and 5 shards
    fresh = tmp_path / "fresh"
    assert LabelRun(fresh, committed=committed).run(log=lambda s: None)
    assert files(fresh) == files(full)

    # a flipped byte is found
    shard = shard_path(committed, 2)
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0x01
    shard.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"shard-00002\.npz: checksum mismatch"):
        verify(committed)


def test_unlabelled_marker_and_teacher_table() -> None:
    assert UNLABELLED not in range(len(TEACHERS))
    assert len(set(TEACHERS)) == len(TEACHERS)
    assert CLASSES[:3] == ("contact", "crashed", "race")


@pytest.mark.oracle
def test_gnubg_teacher_orientation_and_agreement(built: Path) -> None:
    pytest.importorskip("gnubg_nn")
    # the player on roll has 7 checkers left in his home board, the opponent 15 far behind: a big favourite
    p = Position.from_points({2: 2, 3: 2, 4: 3}, {24: 3, 13: 5, 8: 2, 6: 5})
    g = teach("gnubg-nn-0ply", boards_of([p]), Rules.international())[0]
    assert g[0] > 0.75 and g[1] > 0.4 and g[3] == 0.0
    gs = teach("gnubg-nn-0ply", boards_of([p.swap()]), Rules.international())[0]
    assert gs[0] < 0.25 and gs[3] > 0.4 and gs[1] == 0.0  # the same game seen by the other side
    corpus = read_npz(built / CORPUS_FILE)
    intl = corpus["rules"] == 0
    boards = boards_of_keys(corpus["keys"][intl][:120])
    ours = default_evaluator().evaluate_boards(boards)
    theirs = teach("gnubg-nn-0ply", boards, Rules.international())
    assert np.abs(ours - theirs).mean(axis=0).max() < 0.04
    assert np.abs(ours[:, 0] - theirs[:, 0]).max() < 0.25


@pytest.mark.oracle
def test_crashed_agrees_with_gnubg(built: Path) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    from pulvezar.train.corpus import BEAROFF as B

    corpus = read_npz(built / CORPUS_FILE)
    boards = boards_of_keys(corpus["keys"])
    ours = classify(boards)
    to_ours = {gnubg_nn.c_contact: CONTACT, gnubg_nn.c_crashed: CRASHED, gnubg_nn.c_race: RACE}
    for b, c in zip(boards, ours, strict=True):
        g = gnubg_nn.classify([b[25:].tolist(), b[:25].tolist()])
        assert to_ours.get(g, B) == c


@pytest.mark.oracle
def test_gnubg_labels_resume_exactly(built: Path, tmp_path: Path) -> None:
    pytest.importorskip("gnubg_nn")
    cfg = LabelConfig(shard=60, international="gnubg-nn-1ply", tavla="pulvezar-v2-1ply")
    full, part = tmp_path / "full", tmp_path / "part"
    for w in (full, part):
        w.mkdir()
        shutil.copyfile(built / CORPUS_FILE, w / CORPUS_FILE)
    assert LabelRun(full, cfg, label_set="1ply").run(log=lambda s: None)
    assert not LabelRun(part, cfg, label_set="1ply").run(log=lambda s: None, stop_after=2)
    assert LabelRun(part, label_set="1ply").run(log=lambda s: None)
    assert files(full) == files(part)
    status = LabelRun(full, label_set="1ply").status()
    assert status["teachers"] == {"gnubg-nn-1ply": 240, "pulvezar-v2-1ply": 80}


def test_command_line_builds_labels_exports_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pulvezar.cli import main

    work, out = tmp_path / "run", tmp_path / "committed"
    size = ["--positions", "60", "--tavla-positions", "5", "--block-games", "4", "--lockstep", "4"]
    assert (
        main(["train", "corpus", "build", "--workdir", str(work), "--matches", str(tmp_path / "none"), *size])
        == 0
    )
    teachers = ["--international", "pulvezar-v2-0ply", "--tavla", "pulvezar-v2-0ply", "--shard", "30"]
    args = [
        "train",
        "corpus",
        "label",
        "--workdir",
        str(work),
        "--committed",
        str(out),
        "--set",
        "2ply",
        *teachers,
    ]
    assert main(args) == 0
    assert main(["train", "corpus", "export", "--workdir", str(work), "--out", str(out)]) == 0
    assert main(["train", "corpus", "verify", str(out)]) == 0
    assert "files verified" in capsys.readouterr().out
    status = json.loads((out / "status.json").read_text())
    assert status["2ply"]["labelled"] == 80 and status["2ply"]["shards_done"] == 3


def test_a_label_run_takes_only_listed_shards_from_the_committed_folder(built: Path, tmp_path: Path) -> None:
    work, committed, fresh = tmp_path / "work", tmp_path / "committed", tmp_path / "fresh"
    work.mkdir()
    shutil.copyfile(built / CORPUS_FILE, work / CORPUS_FILE)
    assert not LabelRun(work, FAST).run(log=lambda s: None, stop_after=2)
    export(work, committed, log=lambda s: None)
    LabelRun(work).run(log=lambda s: None, stop_after=1)
    shutil.copyfile(shard_path(work, 2), shard_path(committed, 2))  # an export half done: not listed yet
    with pytest.raises(ValueError, match="not in SHA256SUMS"):
        verify(committed)
    assert verify(committed, strict=False) == 5  # positions, labels-2ply.json, status.json, 2 shards
    run = LabelRun(fresh, committed=committed)
    run.prepare(log=lambda s: None)
    assert run.done() == [0, 1] and run.config == FAST


def test_the_committed_tavla_corpus_verifies_and_holds_each_rule_sets_positions() -> None:
    """``data/tavla-corpus`` (issue 28): 25,000 positions of each Tavla rule set from pulvezar-v4a's
    self-play, every one labelled by pulvezar-v4a 2-ply under its own rules; checksums and shards verify."""
    folder = Path(__file__).resolve().parents[2] / "data" / "tavla-corpus"
    assert verify(folder) == 44  # positions, corpus.json, labels json, status.json and 40 shards
    corpus = read_npz(folder / "positions.npz")
    assert np.bincount(corpus["rules"], minlength=len(RULE_NAMES)).tolist() == [
        0,
        25_000,
        25_000,
        25_000,
        25_000,
    ]
    status = json.loads((folder / "status.json").read_text())["v4a-2ply"]
    assert status["labelled"] == 100_000 and status["teachers"] == {"pulvezar-v4a-2ply": 100_000}
