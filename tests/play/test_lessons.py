"""The five lessons as data (issue 30): every text in three languages, every play the engine's own best at
2 ply (the shipped net), every count right, and answers judged as the board would take them."""

from __future__ import annotations

import pytest

import pulvezar
from pulvezar import Position
from pulvezar.errors import PulvezarError
from pulvezar.i18n import LANGUAGES
from pulvezar.play.lessons import LESSONS, answer


def test_the_lessons_say_everything_in_three_languages() -> None:
    assert [x["id"] for x in LESSONS] == [
        "pip-counting",
        "openings",
        "game-plans",
        "blot-risk",
        "bearing-off",
    ]
    for lesson in LESSONS:
        assert set(lesson["title"]) == set(LANGUAGES) and all(lesson["title"].values())
        assert lesson["steps"] and lesson["steps"][0]["kind"] == "read"
        for step in lesson["steps"]:
            assert set(step["text"]) == set(LANGUAGES) and all(step["text"].values())


@pytest.mark.parametrize(
    ("lesson_id", "n"),
    [(x["id"], i) for x in LESSONS for i, s in enumerate(x["steps"]) if s["kind"] == "play"],
)
def test_every_play_of_a_lesson_is_the_engines_best(lesson_id: str, n: int, net: object) -> None:
    step = next(x for x in LESSONS if x["id"] == lesson_id)["steps"][n]
    position = Position.from_position_id(step["position"])
    best = pulvezar.hint(position, tuple(step["dice"]), ply=2, evaluator=net)[0]
    assert answer(lesson_id, n, {"notation": best.notation}) == {"correct": True, "expected": best.notation}


def test_answers_are_judged_and_bad_ones_name_the_field() -> None:
    assert answer("pip-counting", 0, {}) == {"correct": True, "expected": None}
    assert answer("pip-counting", 1, {"pips": [167, 167]})["correct"] is True
    assert answer("pip-counting", 1, {"pips": [167, 166]}) == {"correct": False, "expected": [167, 167]}
    assert answer("openings", 1, {"notation": "6/5 8/5"})["correct"] is True  # any order of the moves
    assert answer("openings", 1, {"notation": "13/10 6/5"})["correct"] is False  # legal, not the lesson's
    for lesson_id, n, given, field in (
        ("openings", 1, {"notation": "24/18"}, "notation"),  # not a play of 3-1
        ("openings", 1, {}, "notation"),
        ("pip-counting", 1, {"pips": [1]}, "pips"),
        ("openings", 9, {"notation": "8/5 6/5"}, "step"),
        ("chess", 0, {}, "lesson_id"),
    ):
        with pytest.raises(PulvezarError) as e:
            answer(lesson_id, n, given)
        assert e.value.field == field
