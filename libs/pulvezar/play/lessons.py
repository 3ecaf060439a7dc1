"""The five lessons of the app manual (section 5.12) as data: pip counting, openings, game plans, the risk of
a blot, bearing off.

A lesson is a list of steps.  A ``read`` step is text to read; a ``play`` step a position with dice and the
play to make on the board (:func:`answer` refuses any other); a ``pips`` step a position whose two pip counts
are asked.  Texts come from the catalogs (``lessons.<id>.title``, ``lessons.<id>.step<n>``), in each of
their languages.

>>> [lesson["id"] for lesson in LESSONS]
['pip-counting', 'openings', 'game-plans', 'blot-risk', 'bearing-off']
>>> answer("openings", 1, {"notation": "6/5 8/5"})["correct"]
True
>>> answer("openings", 1, {"notation": "24/23 13/10"})["correct"]
False
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulvezar import i18n
from pulvezar.errors import PulvezarError
from pulvezar.rules.notation import parse_play
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

START = Position.start().position_id
#: a race: the player on roll has every checker home, the opponent every checker in its own home board
BEAR_OFF = Position.from_points(
    {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2}
).position_id
#: a race of 88 pips against 111
RACE = Position.from_points({8: 2, 7: 3, 6: 4, 5: 3, 4: 3}, {10: 3, 9: 3, 7: 3, 6: 3, 5: 3}).position_id


def _t(key: str) -> dict[str, str]:
    """The text ``key`` of the catalogs in each of their languages (:mod:`pulvezar.i18n`)."""
    return {lang: i18n.t(key, lang) for lang in i18n.LANGUAGES}


def _read(key: str) -> dict[str, Any]:
    return {"kind": "read", "text": _t(key)}


def _play(position: str, dice: tuple[int, int], play: str, key: str) -> dict[str, Any]:
    return {"kind": "play", "position": position, "dice": list(dice), "play": play, "text": _t(key)}


def _pips(position: str, key: str) -> dict[str, Any]:
    mine, theirs = Position.from_position_id(position).pips()
    return {"kind": "pips", "position": position, "pips": [mine, theirs], "text": _t(key)}


LESSONS: list[dict[str, Any]] = [
    {"id": "pip-counting", "title": _t("lessons.pip-counting.title"), "steps": [
        _read("lessons.pip-counting.step0"),
        _pips(START, "lessons.pip-counting.step1"),
        _pips(RACE, "lessons.pip-counting.step2"),
    ]},
    {"id": "openings", "title": _t("lessons.openings.title"), "steps": [
        _read("lessons.openings.step0"),
        _play(START, (3, 1), "8/5 6/5", "lessons.openings.step1"),
        _play(START, (4, 2), "8/4 6/4", "lessons.openings.step2"),
        _play(START, (6, 1), "13/7 8/7", "lessons.openings.step3"),
    ]},
    {"id": "game-plans", "title": _t("lessons.game-plans.title"), "steps": [
        _read("lessons.game-plans.step0"),
        _play(START, (5, 5), "13/3(2)", "lessons.game-plans.step1"),
        _play(START, (6, 6), "24/18(2) 13/7(2)", "lessons.game-plans.step2"),
    ]},
    {"id": "blot-risk", "title": _t("lessons.blot-risk.title"),
     "steps": [
        _read("lessons.blot-risk.step0"),
        _play(START, (6, 5), "24/13", "lessons.blot-risk.step1"),
    ]},
    {"id": "bearing-off", "title": _t("lessons.bearing-off.title"), "steps": [
        _read("lessons.bearing-off.step0"),
        _play(BEAR_OFF, (6, 5), "6/off 5/off", "lessons.bearing-off.step1"),
        _play(BEAR_OFF, (4, 4), "4/off(3) 6/2", "lessons.bearing-off.step2"),
    ]},
]  # fmt: skip

_BY_ID = {lesson["id"]: lesson for lesson in LESSONS}


def lesson(lesson_id: str) -> dict[str, Any] | None:
    return _BY_ID.get(lesson_id)


def answer(lesson_id: str, step: int, given: Mapping[str, Any]) -> dict[str, Any]:
    """Judge an answer to step ``step`` (0-based) of a lesson: a ``play`` step takes ``notation`` (the
    lesson's play in any order of its moves is right; any other legal play is refused), a ``pips`` step
    ``pips`` (both counts), a ``read`` step nothing.  ``{"correct", "expected"}``; :class:`PulvezarError`
    naming the field for what is not an answer."""
    found = lesson(lesson_id)
    if found is None:
        raise PulvezarError(f"no lesson {lesson_id!r}", field="lesson_id")
    if not 0 <= step < len(found["steps"]):
        raise PulvezarError(f"the lesson has steps 0..{len(found['steps']) - 1}", field="step")
    s = found["steps"][step]
    if s["kind"] == "read":
        return {"correct": True, "expected": None}
    if s["kind"] == "pips":
        pips = given.get("pips")
        if not isinstance(pips, list | tuple) or len(pips) != 2 or not all(type(p) is int for p in pips):
            raise PulvezarError("both pip counts: [yours, the opponent's]", field="pips")
        return {"correct": list(pips) == s["pips"], "expected": s["pips"]}
    notation = given.get("notation")
    if not isinstance(notation, str) or not notation.strip():
        raise PulvezarError("the play, e.g. 8/5 6/5", field="notation")
    position, dice = Position.from_position_id(s["position"]), (s["dice"][0], s["dice"][1])
    try:
        played = parse_play(notation, position, dice, Rules.international())
    except PulvezarError as e:
        raise PulvezarError(str(e), field="notation") from None
    right = parse_play(s["play"], position, dice, Rules.international())
    return {"correct": played.position == right.position, "expected": right.notation}
