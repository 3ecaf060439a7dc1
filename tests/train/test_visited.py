"""Positions visited by rollouts: what is recorded, determinism, the corpus format fit reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pulvezar.eval.evaluator import default_evaluator
from pulvezar.rules.position import Position
from pulvezar.train.corpus import BEAROFF, boards_of_keys, classify, read_npz, sha256_file
from pulvezar.train.visited import VisitedConfig, build, visited_boards

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus"


def test_the_trials_positions_are_recorded_before_each_roll() -> None:
    start = np.frombuffer(Position.start().board, dtype=np.uint8)[None]
    seen = visited_boards(start, trials=3, seed=5, evaluator=default_evaluator())
    assert np.array_equal(seen[:3], np.repeat(start, 3, axis=0))  # every trial stands at the start first
    assert len(seen) > 3 * 20  # and then at every half-move of its game
    totals = seen.reshape(-1, 2, 25).sum(axis=2)
    assert (totals <= 15).all() and (totals > 0).all()


def test_build_is_deterministic_and_readable_as_groups(tmp_path: Path) -> None:
    cfg = VisitedConfig(corpus=str(CORPUS), starts=3, trials=4)
    a = build(cfg, tmp_path / "a", log=lambda s: None)
    b = build(cfg, tmp_path / "b", log=lambda s: None)
    assert a["sha256"] == b["sha256"] == sha256_file(tmp_path / "a" / "corpus.npz")
    v = read_npz(tmp_path / "a" / "corpus.npz")
    boards = boards_of_keys(v["keys"])
    assert len(boards) == a["positions"] > 20
    assert len(np.unique(boards, axis=0)) == len(boards)
    assert np.array_equal(v["cls"], classify(boards)) and (v["cls"] < BEAROFF).all()
    assert np.array_equal(v["group"], np.arange(len(boards)))  # single positions for fit
