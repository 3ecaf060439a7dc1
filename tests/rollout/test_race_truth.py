"""The race ground-truth builder (``bench/race_truth.py``, issue 43): a deterministic selection that
covers every kind, exact values that are the databases', and checkpointed rollouts that resume exactly
and land within their SE of the exact value."""

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from pulvezar import Position, Rules
from pulvezar.eval.bearoff import OneSidedBearoff
from pulvezar.eval.evaluator import boards_of, default_evaluator, equity
from pulvezar.rollouts import rollout

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "race_truth.py"
COMMITTED = ROOT / "data" / "race_truth" / "positions.json"


@pytest.fixture(scope="module")
def rt():
    if not BENCH.exists():
        pytest.skip("bench/race_truth.py not present")
    spec = importlib.util.spec_from_file_location("race_truth", BENCH)
    assert spec is not None and spec.loader is not None
    if spec.name not in sys.modules:
        sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


@pytest.fixture(scope="module")
def chosen(rt):
    if not rt.CORPUS.exists():
        pytest.skip("data/corpus/positions.npz not present")
    return rt.selection()


def test_selection_is_seeded_and_committed(rt, chosen):
    assert rt.selection() == chosen
    assert rt.selection(seed=rt.SEED + 1) != chosen
    if COMMITTED.exists():
        assert json.loads(COMMITTED.read_text())["positions"] == chosen


def test_selection_covers_every_kind(rt, chosen):
    by_rules: dict[str, int] = {}
    tags: set[str] = set()
    for r in chosen:
        by_rules[r["rules"]] = by_rules.get(r["rules"], 0) + 1
        tags.update(r["kinds"])
    assert by_rules["international"] >= 200
    assert {k for k in by_rules if k != "international"} == {r.name for r in rt.RULESETS[1:]}
    assert min(by_rules.values()) >= rt.PER_TAVLA
    wanted = {
        "two-sided",
        "bear-off",
        "bear-in",
        "bear-in v bear-off",
        "bear-off v bear-in",
        "even",
        "lopsided ahead",
        "lopsided behind",
        "gammon for",
        "gammon against",
        "stacked",
        "smooth",
    }
    assert wanted <= tags
    ids = {r["position_id"] for r in chosen if r["source"].startswith("bench: ")}
    assert ids == {p.position_id for _, p in rt.bench_races()}
    assert len({(r["rules"], r["position_id"]) for r in chosen}) == len(chosen)


def test_kinds_of_bench_races(rt):
    named = dict(rt.bench_races())
    b = {k: np.frombuffer(p.board, dtype=np.uint8) for k, p in named.items()}
    assert "gammon for" in rt.kinds(b["gammon race 55v135"])
    assert "gammon against" in rt.kinds(b["race 147v64, gammon chances"])
    assert "stacked" in rt.kinds(b["stacked 80 v smooth 74"])
    assert rt.kinds(b["even race 112v107"])[:2] == ["bear-in", "even"]
    assert rt.kinds(b["bear-off 62 v bear-in 89"])[0] == "bear-off v bear-in"


def test_exact_values_are_the_databases(rt):
    ev = default_evaluator()
    two = Position.from_points({3: 2, 2: 2, 1: 1}, {4: 1, 3: 2, 1: 2})
    method, probs = rt.exact_truth(two, ev.two_sided, ev.races)
    assert method == "two-sided" and probs[1:] == [0.0] * 4
    assert probs[0] == ev.two_sided.win_probability(two.mine[:6], two.theirs[:6])
    assert rt.exact_truth(Position.from_points({1: 1}, {6: 3}), ev.two_sided, ev.races) == (
        "two-sided",
        [1, 0, 0, 0, 0],
    )
    # 15 on the 6 point against one checker on the 1 point: the mover is gammoned unless its one
    # roll moves a checker exactly 6 pips (a 6, 5-1, 4-2, 3-3, 2-2: 17 of 36)
    full = Position.from_points({6: 15}, {1: 1})
    method, probs = rt.exact_truth(full, ev.two_sided, ev.races)
    assert method == "one-sided"
    assert probs == pytest.approx([0.0, 0.0, 0.0, 19 / 36, 0.0], abs=1e-8)
    w, g_for, g_against = OneSidedBearoff.default().race_probabilities(full.mine[:6], full.theirs[:6])
    assert probs == pytest.approx([w, g_for, 0.0, g_against, 0.0], abs=1e-12)
    assert rt.exact_truth(full.swap(), ev.two_sided, ev.races)[1] == pytest.approx([1, 1, 0, 0, 0], abs=1e-8)
    assert rt.exact_truth(Position.from_points({7: 1}, {1: 1}), ev.two_sided, ev.races) is None


def test_checkpointed_rollout_resumes_exactly_and_meets_the_exact_value(rt, tmp_path):
    ev = default_evaluator()
    pos = Position.from_points({6: 2, 5: 1, 4: 2, 2: 1}, {5: 2, 3: 2, 2: 2})
    exact = ev.two_sided.win_probability(pos.mine[:6], pos.theirs[:6]) * 2 - 1
    rules = Rules.international()
    part = tmp_path / "partial.npz"
    args = argparse.Namespace(trials=72, chunk=36, ply=0, seed=5)
    r, _ = rt._rollout_chunks(pos, rules, ev, args, part, 7, bearoff_stop=False)
    assert np.load(part)["ids"].tolist() == list(range(72))
    args.trials = 108
    r, cpu = rt._rollout_chunks(pos, rules, ev, args, part, 7, bearoff_stop=False)
    whole = rollout(pos, trials=108, seed=5, evaluator=ev, bearoff_stop=False)
    np.testing.assert_allclose(r.values, whole.values, atol=1e-12)
    assert r.trials == 108 and cpu > 0
    assert abs(r.equity - exact) <= 3 * r.noise + 1e-3, (r.equity, r.noise, exact)
    other, _ = rt._rollout_chunks(pos, rules, ev, args, part, 8, bearoff_stop=False)  # another position
    assert other.trials == 108


def test_truth_record(rt, tmp_path):
    ev = default_evaluator()
    rec = {
        "index": 0,
        "position_id": Position.from_points({7: 1, 2: 1}, {3: 2}).position_id,
        "rules": "tavla",
    }
    args = argparse.Namespace(trials=36, chunk=36, ply=0, seed=1)
    t = rt.truth(rec, ev, args, tmp_path / "partial.npz")
    assert t["method"] == "rollout 0-ply" and t["trials"] == 36 and "gnubg_0ply" not in t
    assert t["equity"] == pytest.approx(float(equity(np.array([t["probs"]]), Rules.tavla())[0]))
    assert abs(t["equity"] - t["pulvezar_0ply_equity"]) < 0.2
    assert boards_of([Position.from_position_id(t["position_id"])]).shape == (1, 50)
