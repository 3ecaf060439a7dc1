"""The trainer's hold (issue 44): an action sent with ``"hold": true`` is made when its verdict does not warn
and otherwise held (one search, nothing made, the verdict kept in the record); the same action sent again
("play anyway") is made with that verdict, without a second search.  One ``hint()`` fits the decision."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playkit import check_state

from pulvezar.play import PlaySession
from pulvezar.play.errors import InvalidActionError
from pulvezar.play.start import Start

OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"  # money, centred cube, no dice yet
ROLLED = OPENING.replace(":00:", ":31:")  # the human to play 31


def counted(s: PlaySession) -> list[Any]:
    """The trainer's searches of ``s`` from now on (a spy around the session's trainer)."""
    asked: list[Any] = []
    search = s._trainer

    def spy(q: Any) -> Any:
        asked.append(q.ask)
        return search(q)

    s._trainer = spy
    return asked


def test_a_warned_play_is_held_then_made_anyway_without_a_second_search(
    make: Callable[..., PlaySession],
) -> None:
    s = make({"match_length": 0, "trainer": True}, start=Start.parse(ROLLED))
    st = check_state(s)
    worst = max(st["legal_plays"], key=lambda p: s.check({"action": "check", **p})["loss"])
    asked = counted(s)
    before = s.to_json()
    events = s.apply({"action": "play", "position_id": worst["position_id"], "hold": True})
    assert asked == ["play"] and [e["type"] for e in events] == ["held"]
    held = events[0]["details"]
    assert held["action"] == "play" and held["notation"] == worst["notation"] and held["verdict"]["warn"]
    after = check_state(s)
    assert (after["board"], after["actions"], after["trainer"]) == (st["board"], st["actions"], None)
    assert s.held == held["verdict"] and len(s.log) == len(before["log"]) + 1
    again = PlaySession.from_json(s.to_json(), evaluator=s.evaluator)  # the held verdict is stored
    assert again.held == s.held
    made = s.apply({"action": "play", "notation": worst["notation"]})  # play anyway
    assert asked == ["play"] and made[0]["type"] == "play" and made[0]["details"]["anyway"] is True
    assert made[0]["details"]["verdict"] == held["verdict"] and s.held is None


def test_a_right_decision_is_made_at_once_and_a_wrong_double_held(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 0, "trainer": True}, start=Start.parse(OPENING))
    asked = counted(s)
    held = s.apply({"action": "double", "hold": True})
    assert [e["type"] for e in held] == ["held"] and held[0]["details"]["verdict"]["best"] == "no double"
    assert check_state(s)["cube"]["value"] == 1 and s.cube_moment() == "double"
    hint, _ = s.hint()  # at a cube decision the hint is the cube's
    assert hint["best"] == "roll" and s.held is not None  # a hint keeps the held verdict
    rolled = s.apply({"action": "roll", "hold": True})  # not doubling was right: made, one search
    assert asked == ["double", "double", "double"] and rolled[0]["type"] == "roll" and s.held is None
    assert "anyway" not in rolled[0]["details"] and not rolled[0]["details"]["verdict"]["warn"]


def test_hold_without_the_trainer_makes_the_action(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 0}, start=Start.parse(OPENING))
    asked = counted(s)
    events = s.apply({"action": "double", "hold": True})
    assert asked == [] and events[0]["type"] == "double"
    with pytest.raises(InvalidActionError) as e:
        make({"match_length": 0}, start=Start.parse(OPENING)).apply({"action": "roll", "hold": "yes"})
    assert e.value.field == "hold"
