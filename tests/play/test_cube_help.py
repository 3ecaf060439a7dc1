"""The trainer's help at a cube decision during play (issue 44): a roll, double, take or pass checked
before it is made (the verdict with ``warn``), and the cube hint (the right action and each choice's
equity), counted against the match's hint limit; nothing on the board changes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playkit import check_state

from pulvezar.play import PlaySession
from pulvezar.play.cube_help import check_cube, cube_hint, cube_moment
from pulvezar.play.errors import ActionNotAvailableError, InvalidActionError
from pulvezar.play.start import Start

OPENING = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"  # money, centred cube, no dice yet
DOUBLED = "XGID=-b----E-C---eE---c-e----B-:0:0:1:D:0:0:0:0:10"  # the side on roll has doubled


def test_a_double_is_checked_and_hinted_before_it_is_made(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 0, "trainer": True, "hint_limit": 1}, start=Start.parse(OPENING))
    before = check_state(s)
    assert cube_moment(s) == "double" and before["actions"][:2] == ["roll", "double"]
    double = check_cube(s, "double")
    assert double["warn"] and double["mark"] == "blunder" and double["best"] == "no double"
    assert "Not doubling was right" in double["explanation"]["en"]
    roll = check_cube(s, "roll")
    assert not roll["warn"] and roll["loss"] == 0
    hint, events = cube_hint(s)
    assert hint["moment"] == "double" and hint["best"] == "roll"
    eq = hint["equities"]
    assert eq["roll"] > eq["double_take"] and eq["double_pass"] == 1.0
    assert round(eq["roll"] - eq["double_take"], 3) == round(double["loss"], 3)
    assert events[0]["type"] == "hint"
    after = check_state(s)
    assert (after["board"], after["phase"]) == (before["board"], before["phase"]) and after["hints_left"] == 0
    with pytest.raises(ActionNotAvailableError, match="no hints left"):
        cube_hint(s)
    with pytest.raises(InvalidActionError) as e:
        check_cube(s, "take")
    assert e.value.field == "decision"


def test_an_answer_is_checked_and_hinted(make: Callable[..., PlaySession]) -> None:
    s = make({"match_length": 0, "trainer": True}, start=Start.parse(DOUBLED, "opponent"))
    assert cube_moment(s) == "answer" and set(check_state(s)["actions"]) >= {"take", "pass"}
    drop = check_cube(s, "pass")
    assert drop["warn"] and drop["played"] == "pass" and drop["best"] == "take"
    assert not check_cube(s, "take")["warn"]
    hint, _ = cube_hint(s)
    assert hint["best"] == "take" and hint["equities"]["take"] > hint["equities"]["pass"] == -1.0
    with pytest.raises(InvalidActionError, match="take, pass"):
        check_cube(s, "beaver")  # no beavers in this game
    moving = make({"match_length": 0, "trainer": True}, start=Start.parse(OPENING.replace(":00:", ":31:")))
    assert cube_moment(moving) is None  # a roll to play: no cube decision now
    with pytest.raises(ActionNotAvailableError, match="cube decision"):
        check_cube(moving, "double")
