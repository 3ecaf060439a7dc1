"""Judging a learner's answer to a daily puzzle (``pulvezar.archive.attempts``): plays by notation or by the
position after them, the listed candidates' losses and the inexact loss of an unlisted play, the two halves of
a cube answer, and the puzzle hidden from who has not answered it.  The puzzles are as the daily task stores
them (``DailyPuzzle.to_json()``'s keys), with their candidates taken from the legal plays here."""

from __future__ import annotations

from typing import Any

import pytest

from pulvezar import Position, PulvezarError, Rules
from pulvezar.archive.attempts import hidden, judge

START = "4HPwATDgc/ABMA"


def checker_puzzle() -> dict[str, Any]:
    position, dice = Position.from_position_id(START), (3, 1)
    plays = {p.notation: p.position.position_id for p in Rules.international().legal_plays(position, dice)}
    best, second, third = "8/5 6/5", "24/21 6/5", "13/10 6/5"
    return {
        "date": "2026-12-01", "kind": "position", "rules": "international", "position_id": START,
        "dice": [3, 1], "candidates": [
            {"play": best, "position_id": plays[best], "loss": 0.0, "rollout_equity": 0.15},
            {"play": second, "position_id": plays[second], "loss": 0.09, "rollout_equity": 0.06},
            {"play": third, "position_id": plays[third], "loss": 0.12, "rollout_equity": 0.03},
        ],
        "answer": {"play": best, "position_id": plays[best], "equity": 0.15},
        "reason": {"en": "Make the 5-point.", "de": "Baue den 5er-Punkt.", "tr": "5 hanesini yap."},
    }  # fmt: skip


def cube_puzzle() -> dict[str, Any]:
    return {
        "date": "2026-12-01", "kind": "cube", "rules": "international", "position_id": START, "dice": None,
        "candidates": [{"action": "no double", "equity": 0.5}, {"action": "double/take", "equity": 0.62},
                       {"action": "double/pass", "equity": 1.0}],
        "answer": {"action": "Double, take", "double": True, "response": "take",
                   "costs": {"no double": 0.12, "double": 0.0, "take": 0.0, "pass": 0.38}},
        "reason": {"en": "Double, take.", "de": "Doppeln, annehmen.", "tr": "Katla, kabul."},
    }  # fmt: skip


def test_a_play_by_notation_or_by_its_position() -> None:
    p = checker_puzzle()
    assert judge(p, {"notation": "8/5 6/5"}).correct
    assert judge(p, {"notation": "6/5 8/5"}).correct  # the same play, other order
    assert judge(p, {"position_id": p["answer"]["position_id"]}).correct
    wrong = judge(p, {"notation": "24/21 6/5"})
    assert (wrong.correct, wrong.loss, wrong.loss_exact) == (False, 0.09, True)
    unlisted = judge(p, {"notation": "24/23 24/21"})
    assert (unlisted.correct, unlisted.loss, unlisted.loss_exact) == (False, 0.12, False)


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({}, "notation"),
        ({"notation": "8/3"}, "notation"),
        ({"notation": "nonsense"}, "notation"),
        ({"position_id": "jGfkASjg8wcBMA"}, "position_id"),
    ],
)
def test_what_is_not_a_legal_answer_names_its_field(given: dict[str, Any], field: str) -> None:
    with pytest.raises(PulvezarError) as e:
        judge(checker_puzzle(), given)
    assert e.value.field == field


def test_a_cube_answer_is_right_when_both_halves_are() -> None:
    p = cube_puzzle()
    assert judge(p, {"double": True, "response": "take"}).correct
    late = judge(p, {"double": False, "response": "take"})
    assert (late.correct, late.loss) == (False, 0.12)
    both = judge(p, {"double": False, "response": "pass"})
    assert (both.correct, round(both.loss, 6)) == (False, 0.5)
    for given, field in (({"response": "take"}, "double"), ({"double": True}, "response")):
        with pytest.raises(PulvezarError) as e:
            judge(p, given)
        assert e.value.field == field


def test_hidden_puzzles_give_nothing_away() -> None:
    for p in (checker_puzzle(), cube_puzzle()):
        h = hidden(p)
        assert h["answer"] is None and h["reason"] is None
        assert all(set(c) <= {"play", "position_id", "action"} for c in h["candidates"])
        assert len(h["candidates"]) == len(p["candidates"]) and h["position_id"] == p["position_id"]
    plays = [c["play"] for c in hidden(checker_puzzle())["candidates"]]
    assert plays == sorted(plays)  # not best first
