"""``bench/decisions.py``'s teachers as checker players and its second judge (issue 28), loaded from its file.

The orientation is what can go wrong: Open Sage values the board *after* a play from the side that just
moved, the labels value the opponent's board before its roll; a wrong side picks the worst play and loses
hundreds of milli-points per decision, so the checks against gnubg-nn's judge below fail by far.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pulvezar.eval.evaluator import equity, swap_boards
from pulvezar.rules.rules import Rules
from pulvezar.train.corpus import CONTACT, CRASHED, RACE
from pulvezar.train.labels import teach

pytest.importorskip("bgsage")

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "data" / "decisions" / "gnubg2.npz"


@pytest.fixture(scope="module")
def bench(bench_module):
    return bench_module("decisions")


@pytest.fixture(scope="module")
def ds(bench):
    return bench.DecisionSet(SET)


def test_post_move_value_is_the_negated_label_of_the_opponents_board(bench, ds) -> None:
    results = ds.results[ds.starts[0] : ds.starts[0] + 8]
    for ply in (0, 1):
        mover = bench.sage_mover_equity(results, bench.SAGE_LEVELS[ply])
        label = teach(f"bgsage-{ply}ply", swap_boards(results), Rules.international())
        np.testing.assert_allclose(mover, -equity(label), atol=2e-3)


def test_bgsage_chooses_like_the_judge(bench, ds) -> None:
    idx = np.arange(0, 2000, 50)  # 40 decisions of every class
    s = np.concatenate([np.arange(ds.starts[i], ds.starts[i] + ds.n[i]) for i in idx])
    values = np.full(len(ds.results), -9.0)
    values[s] = bench.sage_mover_equity(ds.results[s], "1ply")
    loss = ds.losses(values)[idx]
    # measured: about 4 milli-points a decision; a wrong orientation loses hundreds
    assert loss.mean() < 0.02, loss.mean()
    assert (ds.choices(values)[idx] == ds.choices(ds.judge)[idx]).mean() > 0.5


def test_borne_off_is_exact(bench) -> None:
    won = np.zeros((3, 50), dtype=np.uint8)
    won[0, 25] = 3  # the opponent has borne some off: a single game
    won[1, 25 + 5] = 15  # none off: a gammon
    won[2, 25 + 20], won[2, 25 + 5] = 1, 14  # one in the winner's home board: a backgammon
    np.testing.assert_array_equal(bench.sage_mover_equity(won, "3ply"), [1.0, 2.0, 3.0])


def test_class_sample_is_stratified_and_nested(bench, ds) -> None:
    small, big = bench.class_sample(ds.cls, 300, 28), bench.class_sample(ds.cls, 600, 28)
    assert set(small) <= set(big)
    counts = [int((ds.cls[small] == k).sum()) for k in (CONTACT, CRASHED, RACE)]
    assert counts == [180, 45, 75]


def test_second_judge_cache_resumes(bench, ds, tmp_path: Path) -> None:
    judge = bench.SecondJudge(tmp_path / "j.npz", ds)
    sample = np.array([3, 1500])
    chosen = [ds.choices(ds.e0), ds.choices(ds.judge)]
    # a fake judge, cheap: gnubg-nn's 0-ply values of the wanted plays
    wanted = judge.wanted(sample, chosen)
    for i, js in wanted.items():
        for j in js:
            judge.values[(i, ds.result_keys[ds.starts[i] + j].tobytes())] = float(ds.e0[ds.starts[i] + j])
    judge.save()
    again = bench.SecondJudge(tmp_path / "j.npz", ds)
    assert again.values == judge.values
    again.fill(again.wanted(sample, chosen))  # nothing left to value: no engine call
    assert again.info["cpu_seconds"] == 0.0
    loss = again.losses(sample, chosen[0])
    assert (loss == 0).all()  # gnubg 0-ply is best by its own values
