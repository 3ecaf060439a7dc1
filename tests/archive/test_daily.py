"""Daily puzzles: deterministic per date and rule set, the documented rule respected, Tavla basic.

Tiny settings (36 trials, rollouts truncated after 4 half-moves, few games) keep them fast; the
rule's thresholds are the real ones.
"""

from __future__ import annotations

import json

import pytest

from pulvezar import Position, PulvezarError, Rules
from pulvezar.archive.daily import (
    DailyPuzzle,
    DailySettings,
    daily_cube,
    daily_position,
    daily_puzzle,
    daily_rules,
    daily_seed,
    self_play,
)
from pulvezar.cube.decision import DOUBLE_PASS, DOUBLE_TAKE, NO_DOUBLE
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import NetEvaluator, default_evaluator
from pulvezar.i18n import LANGUAGES
from pulvezar.search.hint import hint

TINY = DailySettings(games=3, trials=36, truncate=4, cube_trials=36, cube_truncate=4, max_screened=12)
DATE = "2026-11-29"


@pytest.fixture(scope="module")
def ev() -> NetEvaluator:
    import torch

    torch.set_num_threads(1)
    return default_evaluator()


@pytest.fixture(scope="module")
def puzzles(ev: NetEvaluator) -> dict[str, DailyPuzzle]:
    return {
        "international": daily_position(DATE, "international", ev, TINY),
        "tavla": daily_position(DATE, "tavla", ev, TINY),
        "cube": daily_cube(DATE, ev, TINY),
    }


def test_same_date_and_rules_give_the_same_puzzle(ev: NetEvaluator, puzzles: dict[str, DailyPuzzle]) -> None:
    again = daily_puzzle(DATE, Rules.tavla(), "position", ev, TINY)
    assert again.to_json() == puzzles["tavla"].to_json()
    assert daily_puzzle(DATE, "international", "cube", ev, TINY) == puzzles["cube"]


def test_different_dates_and_rule_sets_differ(ev: NetEvaluator, puzzles: dict[str, DailyPuzzle]) -> None:
    other = daily_position("2026-11-30", "international", ev, TINY)
    assert other.date == "2026-11-30"
    assert (other.position_id, other.dice) != (
        puzzles["international"].position_id,
        puzzles["international"].dice,
    )
    assert other.seed != puzzles["international"].seed
    assert puzzles["tavla"].seed != puzzles["international"].seed
    seeds = {
        daily_seed(d, Rules.international(), "position") for d in ("2026-01-01", "2026-01-02", "2027-01-01")
    }
    assert len(seeds) == 3


def test_json_round_trip(puzzles: dict[str, DailyPuzzle]) -> None:
    for p in puzzles.values():
        d = json.loads(p.to_json())
        assert d == json.loads(json.dumps(p.as_dict()))
        assert d["date"] == DATE and d["version"] == 1
        assert d["reason"].keys() == set(LANGUAGES) and all(d["reason"].values())
        assert d["settings"]["trials"] == 36 and d["settings"]["model_sha256"]


def test_checker_puzzle_respects_the_rule(ev: NetEvaluator, puzzles: dict[str, DailyPuzzle]) -> None:
    for name in ("international", "tavla"):
        p = puzzles[name]
        rules = daily_rules(name)
        pos = Position.from_position_id(p.position_id)
        assert p.dice is not None
        legal = rules.legal_plays(pos, p.dice)
        assert len(legal) >= TINY.min_plays and pos.is_contact()
        assert p.answer["play"] in legal and p.answer["second"] in legal
        if not p.selection["fallback"]:
            assert p.move >= TINY.min_move  # not the opening roll or its reply
            ranked = hint(pos, p.dice, ply=TINY.screen_ply, rules=rules, evaluator=ev, filter="normal")
            deep = [c for c in ranked if c.ply == ranked[0].ply]
            assert TINY.min_gap <= deep[1].loss <= TINY.max_gap
            assert p.answer["margin"] >= max(TINY.min_rollout_gap, TINY.z * p.answer["noise"])
        rolled = [c for c in p.candidates if c["rollout_equity"] is not None]
        assert rolled[0]["play"] == p.answer["play"] and rolled[0]["loss"] == 0
        assert all(c["loss"] >= 0 for c in p.candidates)
        assert [c["rollout_equity"] for c in rolled] == sorted(
            (c["rollout_equity"] for c in rolled), reverse=True
        )
        assert p.answer["play"] in p.reason["en"]


def test_tavla_uses_the_basic_rules(puzzles: dict[str, DailyPuzzle]) -> None:
    assert puzzles["tavla"].rules == "tavla" and daily_rules("tavla") == Rules.tavla()
    for bad in ("tavla+hit_and_stop", Rules.tavla(must_bear_off=True), "chess"):
        with pytest.raises(PulvezarError) as err:
            daily_position(DATE, bad)
        assert err.value.field == "rules"
    with pytest.raises(PulvezarError) as err:
        daily_puzzle(DATE, "tavla", "cube")
    assert err.value.field == "kind"


def test_cube_puzzle_respects_the_rule(puzzles: dict[str, DailyPuzzle]) -> None:
    p = puzzles["cube"]
    assert p.rules == "international" and p.dice is None and p.match_length == 7
    assert all(0 <= s <= 5 for s in p.score)
    a = p.answer
    assert {c["action"] for c in p.candidates} == {"no double", "double/take", "double/pass"}
    margin = abs(min(a["dt"], a["dp"]) - a["nd"])
    if not p.selection["fallback"]:
        assert a["action"] in (DOUBLE_TAKE, DOUBLE_PASS, NO_DOUBLE)
        assert max(TINY.min_cube_margin, TINY.z * a["noise"]) <= margin + 1e-6 <= TINY.max_cube_margin + 1e-5
        if a["double"]:
            assert abs(a["dt"] - a["dp"]) <= TINY.max_take_margin + 1e-5
    assert a["double"] == (min(a["dt"], a["dp"]) >= a["nd"])
    pos = Position.from_position_id(p.position_id)
    assert CubeState(pos, match_length=7, score=(p.score[0], p.score[1])).cube.can_double
    assert p.xgid.startswith("XGID=") and p.move > 1


def test_bad_input_names_the_field() -> None:
    for date in ("2026-13-01", "yesterday", "2026-2-1"):
        with pytest.raises(PulvezarError) as err:
            daily_position(date)
        assert err.value.field == "date"
    with pytest.raises(PulvezarError) as err:
        daily_puzzle(DATE, "international", "opening")  # type: ignore[arg-type]
    assert err.value.field == "kind"
    with pytest.raises(PulvezarError) as err:
        DailySettings(trials=0)
    assert err.value.field == "trials"


def test_self_play_pool_is_reproducible(ev: NetEvaluator) -> None:
    seed = daily_seed(DATE, Rules.tavla(), "position")
    a = self_play(seed, 2, Rules.tavla(), ev)
    b = self_play(seed, 2, Rules.tavla(), ev)
    assert [(d.position, d.dice, d.game, d.move) for d in a] == [
        (d.position, d.dice, d.game, d.move) for d in b
    ]
    assert {d.game for d in a} == {1, 2}
    firsts = [d for d in a if d.move == 1]
    assert all(d.position == Position.start() and d.dice[0] != d.dice[1] for d in firsts)
