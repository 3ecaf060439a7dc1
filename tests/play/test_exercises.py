"""The exercises (issue 30): drawn from a seed, graded exactly (bear-off by the two-sided database, checked
against the evaluator that uses the same table; take points against the match-equity table), and folded into
a player's counters with streaks."""

from __future__ import annotations

import pytest

import pulvezar
from pulvezar import Position
from pulvezar.errors import PulvezarError
from pulvezar.met import MatchEquity
from pulvezar.play.exercises import PIP_SECONDS, fold, judge, make


@pytest.mark.parametrize("kind", ["pip-count", "bear-off", "take-point"])
def test_an_exercise_is_its_seeds(kind: str) -> None:
    assert make(kind, 11) == make(kind, 11) and make(kind, 11) != make(kind, 12)


def test_pip_counts_in_time() -> None:
    e = make("pip-count", 5)
    assert e["answer"]["pips"] == list(Position.from_position_id(e["position_id"]).pips())
    right = e["answer"]["pips"]
    assert judge(e, {"pips": right}, 5.0)["correct"] is True
    late = judge(e, {"pips": right}, PIP_SECONDS + 1)
    assert late["correct"] is False and late["in_time"] is False
    assert judge(e, {"pips": right}, PIP_SECONDS + 1, screen_reader=True)["correct"] is True
    assert judge(e, {"pips": [right[0] + 1, right[1]]}, 1.0)["correct"] is False


@pytest.mark.parametrize("seed", range(12))
def test_bear_off_is_graded_by_the_exact_database(seed: int, net: object) -> None:
    e = make("bear-off", seed)
    position, dice = Position.from_position_id(e["position_id"]), tuple(e["dice"])
    ranked = pulvezar.hint(position, dice, ply=0, evaluator=net)  # the evaluator reads the same table here
    assert e["answer"]["equity"] == pytest.approx(ranked[0].equity, abs=1e-6)
    for c in ranked:
        got = judge(e, {"notation": c.notation}, 1.0)
        assert got["loss"] == pytest.approx(ranked[0].equity - c.equity, abs=1e-6)
        assert got["correct"] == (got["loss"] < 1e-9)


def test_take_points_within_three_points() -> None:
    e = make("take-point", 4)
    length, (me, them), cube = e["match_length"], e["score"], e["cube_value"]
    want = MatchEquity.kazaross_xg2().take_point(length - me, length - them, cube)
    assert want is not None and e["answer"]["take_point"] == round(want, 4)
    assert judge(e, {"take_point": want + 0.029}, 1.0)["correct"] is True
    assert judge(e, {"take_point": min(1.0, want + 0.031)}, 1.0)["correct"] is (want + 0.031 > 1.0)


@pytest.mark.parametrize(
    ("kind", "given", "field"),
    [("pip-count", {"pips": [1]}, "pips"), ("bear-off", {"notation": "24/18"}, "notation"),
     ("bear-off", {}, "notation"), ("take-point", {"take_point": 2}, "take_point"),
     ("take-point", {"take_point": True}, "take_point")],
)  # fmt: skip
def test_bad_answers_name_the_field(kind: str, given: dict[str, object], field: str) -> None:
    with pytest.raises(PulvezarError) as e:
        judge(make(kind, 1), given, 1.0)
    assert e.value.field == field
    with pytest.raises(PulvezarError):
        make("chess", 1)


def test_counters_and_streaks() -> None:
    s = None
    for ok in (True, True, False, True):
        s = fold(s, "bear-off", ok)
    assert s is not None and s["exercises"]["bear-off"] == {
        "tried": 4,
        "correct": 3,
        "streak": 1,
        "best_streak": 2,
    }
