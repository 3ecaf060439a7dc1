"""The five lessons of the app manual (section 5.12) as data: pip counting, openings, game plans, the risk of
a blot, bearing off.

A lesson is a list of steps.  A ``read`` step is text to read; a ``play`` step a position with dice and the
play to make on the board (:func:`answer` refuses any other); a ``pips`` step a position whose two pip counts
are asked.  Texts are in English, German and Turkish.

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


def _t(en: str, de: str, tr: str) -> dict[str, str]:
    return {"en": en, "de": de, "tr": tr}


def _read(en: str, de: str, tr: str) -> dict[str, Any]:
    return {"kind": "read", "text": _t(en, de, tr)}


def _play(position: str, dice: tuple[int, int], play: str, en: str, de: str, tr: str) -> dict[str, Any]:
    return {"kind": "play", "position": position, "dice": list(dice), "play": play, "text": _t(en, de, tr)}


def _pips(position: str, en: str, de: str, tr: str) -> dict[str, Any]:
    mine, theirs = Position.from_position_id(position).pips()
    return {"kind": "pips", "position": position, "pips": [mine, theirs], "text": _t(en, de, tr)}


LESSONS: list[dict[str, Any]] = [
    {"id": "pip-counting", "title": _t("Pip counting", "Pipzählen", "Pip sayma"), "steps": [
        _read("The pip count is the number of points all your checkers still have to travel: for each point, "
              "its number times its checkers; the bar counts 25.",
              "Die Pipzahl ist die Zahl der Felder, die alle deine Steine noch ziehen müssen: je Feld seine "
              "Nummer mal seine Steine; die Bar zählt 25.",
              "Pip sayısı, tüm taşlarının daha gitmesi gereken hane sayısıdır: her hane için numarası çarpı "
              "taş sayısı; bar 25 sayılır."),
        _pips(START, "Count both sides at the start: each has 167.", "Zähle beide Seiten am Anfang: je 167.",
              "Başlangıçta iki tarafı da say: her biri 167."),
        _pips(RACE, "A race: count both sides. Who leads, and by how much?",
              "Ein Rennen: zähle beide Seiten. Wer führt, und um wie viel?",
              "Bir yarış: iki tarafı da say. Kim önde, ne kadar?"),
    ]},
    {"id": "openings", "title": _t("Openings", "Eröffnungen", "Açılışlar"), "steps": [
        _read("With some opening rolls you make a point at once: 3-1 the 5-point, 4-2 the 4-point, 6-1 the "
              "bar point.",
              "Mit manchen Eröffnungswürfen baust du sofort einen Punkt: 3-1 den 5er-Punkt, 4-2 den "
              "4er-Punkt, 6-1 den Barpunkt.",
              "Bazı açılış zarlarıyla hemen bir kapı yaparsın: 3-1 ile 5 kapısını, 4-2 ile 4 kapısını, 6-1 "
              "ile bar kapısını."),
        _play(START, (3, 1), "8/5 6/5", "Make the 5-point with 3-1.", "Baue mit 3-1 den 5er-Punkt.",
              "3-1 ile 5 kapısını yap."),
        _play(START, (4, 2), "8/4 6/4", "Make the 4-point with 4-2.", "Baue mit 4-2 den 4er-Punkt.",
              "4-2 ile 4 kapısını yap."),
        _play(START, (6, 1), "13/7 8/7", "Make the bar point with 6-1.", "Baue mit 6-1 den Barpunkt.",
              "6-1 ile bar kapısını yap."),
    ]},
    {"id": "game-plans", "title": _t("Game plans", "Spielpläne", "Oyun planları"), "steps": [
        _read("Every position has a plan: build a prime, attack, hold an anchor, or race. The dice you roll "
              "serve the plan.",
              "Jede Stellung hat einen Plan: eine Blockade bauen, angreifen, einen Anker halten oder rennen. "
              "Die Würfel dienen dem Plan.",
              "Her pozisyonun bir planı vardır: blok kurmak, saldırmak, çapa tutmak ya da yarışmak. Zarlar "
              "plana hizmet eder."),
        _play(START, (5, 5), "13/3(2)", "5-5 at the start: bring two builders down and make the 3-point.",
              "5-5 am Anfang: bringe zwei Steine vom Mittelfeld und baue den 3er-Punkt.",
              "Başta 5-5: orta alandan iki taş getir ve 3 kapısını yap."),
        _play(START, (6, 6), "24/18(2) 13/7(2)", "6-6: take both bar points.", "6-6: nimm beide Barpunkte.",
              "6-6: iki bar kapısını da al."),
    ]},
    {"id": "blot-risk", "title": _t("The risk of a blot", "Risiko offener Steine", "Açık taş riski"),
     "steps": [
        _read("A single checker is a blot: the opponent hits it with the numbers that reach it. Count them "
              "before you leave one.",
              "Ein einzelner Stein ist offen: der Gegner schlägt ihn mit den Würfen, die ihn erreichen. "
              "Zähle sie, bevor du einen stehen lässt.",
              "Tek taş açıktır: rakip ona ulaşan zarlarla vurur. Açık bırakmadan önce say."),
        _play(START, (6, 5), "24/13", "6-5: run a back checker all the way to safety.",
              "6-5: laufe mit einem hinteren Stein ganz in Sicherheit.",
              "6-5: arka taşlardan birini güvenliğe kadar koş."),
    ]},
    {"id": "bearing-off", "title": _t("Bearing off", "Auswürfeln", "Taş toplama"), "steps": [
        _read("When all your checkers are home, bear off: a die takes off a checker from its point, or moves "
              "one inside.",
              "Sind alle deine Steine im Heimfeld, würfelst du aus: ein Würfel nimmt einen Stein von seinem "
              "Feld oder zieht einen hinein.",
              "Tüm taşların evdeyken topla: bir zar kendi hanesinden bir taş çıkarır ya da içeride oynar."),
        _play(BEAR_OFF, (6, 5), "6/off 5/off", "6-5: take two checkers off.", "6-5: nimm zwei Steine heraus.",
              "6-5: iki taş çıkar."),
        _play(BEAR_OFF, (4, 4), "4/off(3) 6/2", "4-4: three off from the 4-point; the last fills a gap.",
              "4-4: drei vom 4er-Feld heraus, mit dem letzten eine Lücke füllen.",
              "4-4: 4 hanesinden üç taş çıkar, sonuncusuyla bir boşluğu doldur."),
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
