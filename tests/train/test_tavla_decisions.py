"""``bench/tavla_decisions.py`` (issue 28): Tavla decisions per variant, judged by pulvezar 2-ply."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from pulvezar import Position
from pulvezar.eval.evaluator import DEFAULT_MODEL, NetEvaluator, equity
from pulvezar.search.plies import Search


@pytest.fixture(scope="module")
def bench(bench_module: Callable[[str], Any]) -> Any:
    return bench_module("tavla_decisions")


@pytest.fixture(scope="module")
def built(bench: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("tavla") / "set.npz"
    args = argparse.Namespace(out=out, judge=str(DEFAULT_MODEL), per_variant=2, games=8, seed=5)
    assert bench.build(args) == 0
    data: dict[str, Any] = bench._load(out)
    data["path"] = out
    return data


def test_each_variant_has_its_decisions_and_the_judged_plays_are_legal_under_its_rules(
    bench: Any, built: dict[str, Any]
) -> None:
    assert np.bincount(built["variant"]).tolist() == [2, 2, 2, 2]
    judge = bench.Judge(built, DEFAULT_MODEL)
    for i, board in enumerate(built["board"]):
        rules = bench.VARIANTS[int(built["variant"][i])]
        dice = (int(built["dice"][i][0]), int(built["dice"][i][1]))
        legal = {p.position.board for p in rules.legal_plays(Position.from_board(board.tobytes()), dice)}
        s, e = judge.starts[i], judge.ends[i]
        assert e > s and len(legal) >= 2
        assert {b.tobytes() for b in built["judged_board"][s:e]} <= legal


def test_losses_are_the_judges_2ply_values_stored_or_computed(bench: Any, built: dict[str, Any]) -> None:
    judge = bench.Judge(built, DEFAULT_MODEL)
    ev = NetEvaluator.load(DEFAULT_MODEL)
    computed = 0
    for i, board in enumerate(built["board"]):
        v = int(built["variant"][i])
        rules = bench.VARIANTS[v]
        dice = (int(built["dice"][i][0]), int(built["dice"][i][1]))
        s, e = judge.starts[i], judge.ends[i]
        judged = {b.tobytes() for b in built["judged_board"][s:e]}
        best = built["judged_board"][s + int(np.argmax(built["judged_equity"][s:e]))].tobytes()
        assert judge.loss(i, best) == 0.0
        plays = rules.legal_plays(Position.from_board(board.tobytes()), dice)
        other = next((p.position.board for p in plays if p.position.board not in judged), None)
        if other is None or computed == 3:  # a 2-ply value costs a second: a few suffice
            continue
        probs = Search(ev, rules).play_probabilities(np.frombuffer(other, np.uint8).reshape(1, 50), 2)
        value = float(equity(probs, rules)[0])
        top = max(float(built["judged_equity"][s:e].max()), value)
        assert judge.loss(i, other) == pytest.approx(top - value, abs=1e-9)
        computed += 1
    assert computed == 3


def test_score_prints_each_models_losses_and_paired_differences(
    bench: Any, built: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """Two models on the same decisions: a row per model and variant, then the second's paired
    difference to the first (here the same net twice: exactly zero)."""
    model = str(DEFAULT_MODEL)
    args = argparse.Namespace(set=built["path"], model=[model, model], ply=None, judge_model=model)
    assert bench.score(args) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if "blunders" in line and "(n=2)" in line]
    assert len(rows) == 8
    paired = out[out.index(next(line for line in out if line.startswith("paired differences"))) + 1 :]
    assert len(paired) == 4 and all("+0.00 +-  0.00" in line for line in paired)
