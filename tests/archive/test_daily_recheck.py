"""The recheck of a daily puzzle by another net (issue 41): a puzzle made with ``pulvezar-v3`` judged again
by the default net the way it was answered (the same rolled-out plays, dice, trials, truncation and seed;
the cube decision's rollout), the puzzle itself unchanged.

Tiny settings (36 trials, rollouts truncated after 4 half-moves) keep it to a few seconds.  Whether the
new net agrees is derived here from rollouts of its own, never written down.
"""

from __future__ import annotations

import copy
import datetime as dt
import json

import pytest

from pulvezar import Position, PulvezarError, Rules
from pulvezar.archive.daily import DailyPuzzle, DailySettings, Recheck, daily_cube, daily_position, recheck
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import DEFAULT_MODEL, MODELS, NetEvaluator, default_evaluator
from pulvezar.eval.provenance import engine_info
from pulvezar.rollouts.cube import rollout_cube
from pulvezar.rollouts.engine import rollout_plays

TINY = DailySettings(
    games=2,
    trials=36,
    truncate=4,
    cube_trials=36,
    cube_truncate=4,
    max_screened=6,
    screen_ply=1,
    cube_screen_ply=0,
)
DATE = "2026-11-29"


@pytest.fixture(scope="module")
def v3() -> NetEvaluator:
    import torch

    torch.set_num_threads(1)
    return NetEvaluator.load(MODELS / "pulvezar-v3.pt")


@pytest.fixture(scope="module")
def new() -> NetEvaluator:
    return default_evaluator()


@pytest.fixture(scope="module")
def puzzles(v3: NetEvaluator) -> dict[str, DailyPuzzle]:
    return {
        "international": daily_position(DATE, "international", v3, TINY),
        "tavla": daily_position(DATE, "tavla", v3, TINY),
        "cube": daily_cube(DATE, v3, TINY),
    }


def _rolled(p: dict) -> list[str]:
    return [c["position_id"] for c in p["candidates"] if c["rollout_equity"] is not None]


def test_the_nets_differ(v3: NetEvaluator, new: NetEvaluator) -> None:
    assert (
        engine_info(new).model == DEFAULT_MODEL.stem != "pulvezar-v3"
        and engine_info(v3).model == "pulvezar-v3"
    )
    assert v3.info.sha256 != new.info.sha256


@pytest.mark.parametrize("name", ["international", "tavla"])
def test_checker_recheck_is_the_new_nets_rollout_of_the_same_plays(
    name: str, puzzles: dict[str, DailyPuzzle], v3: NetEvaluator, new: NetEvaluator
) -> None:
    puzzle = puzzles[name]
    before = puzzle.to_json()
    rc = recheck(puzzle, new)
    assert puzzle.to_json() == before  # write-once: the puzzle is not touched
    # the new net's own rollout of the puzzle's rolled-out plays, with the puzzle's recorded settings
    p = puzzle.as_dict()
    rules = Rules.international() if name == "international" else Rules.tavla()
    pos, dice = Position.from_position_id(p["position_id"]), tuple(p["dice"])
    plays = {pl.position.position_id: pl for pl in rules.legal_plays(pos, dice)}
    ids = _rolled(p)
    res = rollout_plays(
        pos, dice, [plays[i] for i in ids], trials=TINY.trials, seed=p["settings"]["rollout_seed"],
        truncate=TINY.truncate, evaluator=new, rules=rules,
    )  # fmt: skip
    best = max(range(len(ids)), key=lambda i: res[i].equity)
    assert rc.answer["position_id"] == ids[best]
    assert rc.answer["equity"] == pytest.approx(res[best].equity, abs=1e-6)
    assert {c["position_id"]: c["rollout_equity"] for c in rc.candidates} == pytest.approx(
        {i: round(r.equity, 6) for i, r in zip(ids, res, strict=True)}, abs=1e-6
    )
    assert rc.agrees == (ids[best] == p["answer"]["position_id"])
    assert (rc.model, rc.model_sha256, rc.puzzle_model_sha256) == (
        DEFAULT_MODEL.stem,
        new.info.sha256,
        v3.info.sha256,
    )
    assert rc.engine == engine_info(new).to_json() and not rc.same_net
    assert rc.puzzle_answer == p["answer"]["play"]
    assert dt.datetime.fromisoformat(rc.checked_at).tzinfo is not None
    assert Recheck.from_json(rc.to_json()) == rc == Recheck.from_json(json.loads(rc.to_json()))


def test_recheck_by_the_same_settings_reproduces_the_puzzle(
    puzzles: dict[str, DailyPuzzle], v3: NetEvaluator
) -> None:
    """Judged by the net that made it (as if another had: the digest blanked), the recheck's rollout is the
    puzzle's own, equity for equity: it is answered the way the puzzle was."""
    for name in ("international", "tavla"):
        p = copy.deepcopy(puzzles[name].as_dict())
        p["settings"]["model_sha256"] = None
        rc = recheck(p, v3)
        assert rc.agrees and rc.answer["position_id"] == p["answer"]["position_id"]
        made = {
            c["position_id"]: c["rollout_equity"] for c in p["candidates"] if c["rollout_equity"] is not None
        }
        assert {c["position_id"]: c["rollout_equity"] for c in rc.candidates} == made
    c = copy.deepcopy(puzzles["cube"].as_dict())
    c["settings"]["model_sha256"] = None
    rc = recheck(c, v3)
    assert rc.agrees and rc.answer["action"] == c["answer"]["action"]
    assert [rc.answer[k] for k in ("nd", "dt", "dp")] == [c["answer"][k] for k in ("nd", "dt", "dp")]


def test_disagreement_is_derived_from_the_answers(puzzles: dict[str, DailyPuzzle], new: NetEvaluator) -> None:
    """A puzzle whose answer is a play the new net does not prefer: the recheck disagrees."""
    p = copy.deepcopy(puzzles["international"].as_dict())
    first = recheck(p, new)
    other = next(c for c in first.candidates if c["position_id"] != first.answer["position_id"])
    p["answer"] = {**p["answer"], "play": other["play"], "position_id": other["position_id"]}
    rc = recheck(p, new)
    assert not rc.agrees and rc.answer == first.answer and rc.puzzle_answer == other["play"]


def test_cube_recheck_is_the_new_nets_cube_rollout(
    puzzles: dict[str, DailyPuzzle], v3: NetEvaluator, new: NetEvaluator
) -> None:
    p = puzzles["cube"].as_dict()
    rc = recheck(puzzles["cube"], new)
    state = CubeState(
        Position.from_position_id(p["position_id"]), match_length=p["match_length"], score=tuple(p["score"])
    )
    cr = rollout_cube(
        state, trials=TINY.cube_trials, seed=p["settings"]["rollout_seed"], truncate=TINY.cube_truncate,
        evaluator=new,
    )  # fmt: skip
    assert rc.answer["action"] == cr.action and rc.answer["nd"] == pytest.approx(cr.nd, abs=1e-6)
    assert rc.agrees == (cr.action == p["answer"]["action"])
    assert [c["action"] for c in rc.candidates] == ["no double", "double/take", "double/pass"]
    assert rc.kind == "cube" and rc.summary() == cr.action


def test_same_net_needs_no_work(puzzles: dict[str, DailyPuzzle], v3: NetEvaluator) -> None:
    class Counting:
        """v3 that counts what it evaluates."""

        info = v3.info
        calls = 0

        def __getattr__(self, name: str) -> object:
            Counting.calls += 1
            return getattr(v3, name)

    for puzzle in puzzles.values():
        rc = recheck(puzzle, Counting())  # type: ignore[arg-type]
        assert rc.same_net and rc.agrees and rc.answer == puzzle.answer and rc.candidates == []
    assert Counting.calls == 0


def test_a_puzzle_without_its_rolled_out_plays_is_refused(
    puzzles: dict[str, DailyPuzzle], new: NetEvaluator
) -> None:
    p = copy.deepcopy(puzzles["international"].as_dict())
    p["settings"]["model_sha256"] = None
    p["candidates"] = p["candidates"][:1]
    with pytest.raises(PulvezarError) as e:
        recheck(p, new)
    assert e.value.field == "candidates"
