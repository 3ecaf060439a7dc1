"""Why the better play is better: reason codes, their numbers and the three languages."""

from __future__ import annotations

import numpy as np
import pytest

from pulvezar import Position, Rules
from pulvezar.analysis.explain import LANGUAGES, WEIGHTS, Explanation, Reason, explain, tr_suffix
from pulvezar.eval.evaluator import Boards, Probs

INTL = Rules.international()
START = Position.start()


class BarGammons:
    """A stub evaluator: the side on roll is gammoned 20% per own checker on the bar."""

    def evaluate_boards(self, boards: Boards) -> Probs:
        boards = np.asarray(boards, dtype=np.uint8).reshape(-1, 50)
        out = np.zeros((len(boards), 5))
        out[:, 0] = 0.5
        out[:, 3] = np.minimum(0.5, 0.2 * boards[:, 24])
        return out


class Flat:
    """A stub evaluator that sees no difference at all (no gammons either)."""

    def evaluate_boards(self, boards: Boards) -> Probs:
        out = np.zeros((len(np.asarray(boards).reshape(-1, 50)), 5))
        out[:, 0] = 0.5
        return out


def _all_texts(e: Explanation) -> dict[str, str]:
    return {lang: e.text(lang) for lang in LANGUAGES}


def test_hit_against_a_quiet_play() -> None:
    # the opponent slotted its 5-point (the mover's 20); 4-1: hit, or play quietly
    pos = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 4, 8: 3, 6: 5, 5: 1})
    e = explain(pos, (4, 1), "24/20* 6/5", "13/8")
    assert e.reasons[0].as_dict() == {"code": "hits", "better": 1, "other": 0}
    t = _all_texts(e)
    assert t["en"].startswith("24/20* 6/5 is better than 13/8: it hits a blot")
    assert "schlägt einen Blot" in t["de"]
    assert "bir açık pul kırar" in t["tr"] and t["tr"].startswith("24/20* 6/5 hamlesi 13/8 hamlesinden")


def test_safe_play_against_a_17_shot_blot() -> None:
    # the opponent's last checker is on the mover's 12: 19/18 leaves a direct 6 (17 shots)
    pos = Position.from_points({19: 1, 13: 1, 6: 13}, {13: 1, 1: 14})
    e = explain(pos, (6, 1), "19/13 6/5", "19/18 13/7")
    assert e.reasons[0].as_dict() == {"code": "fewer_shots", "better": 0, "other": 17}
    assert len(e.reasons) <= 2
    t = _all_texts(e)
    assert "leaves no shots instead of 17 (out of 36)" in t["en"]
    assert "lässt dem Gegner keinen Schuss von 36 Würfen (statt 17)" in t["de"]
    assert "rakibe hiç vuruş zarı bırakmaz (diğer hamlede 36 zardan 17)" in t["tr"]
    # and the plural forms when some shots remain
    r = Reason("fewer_shots", 1, 17, 0.1)
    assert "leaves 1 shot instead of 17" in Explanation("a", "b", (r,)).text("en")
    r = Reason("fewer_shots", 11, 17, 0.1)
    assert "nur 11 Schüsse" in Explanation("a", "b", (r,)).text("de")


def test_making_an_anchor() -> None:
    pos = Position.from_points({24: 1, 23: 1, 13: 5, 8: 3, 6: 5}, {13: 5, 8: 3, 6: 4, 4: 2, 3: 1})
    e = explain(pos, (4, 3), "24/20 23/20", "24/20 13/10", evaluator=Flat())
    assert e.codes == ["fewer_shots", "makes_anchor"]
    assert e.reasons[1].as_dict() == {"code": "makes_anchor", "better": 1, "other": 0, "point": 20}
    t = _all_texts(e)
    assert "makes an anchor on the 20-point" in t["en"]
    assert "baut einen Anker auf dem 20er-Punkt" in t["de"]
    assert "20 numaralı hanede kapı kurar" in t["tr"]


def test_making_a_home_point_is_named_once() -> None:
    e = explain(START, (3, 1), "8/5 6/5", "24/21 24/23")
    assert "makes_point" in e.codes and "home_points" not in e.codes
    assert next(r for r in e.reasons if r.code == "makes_point").point == 5
    assert "baut den 5er-Punkt" in e.text("de")
    assert "5 numaralı hanede kapı yapar" in e.text("tr")


def test_bearing_off() -> None:
    side = {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}
    pos = Position.from_points(side, side)
    e = explain(pos, (6, 5), "6/off 5/off", "6/1 6/off")
    assert e.reasons[0].as_dict() == {"code": "bears_off", "better": 2, "other": 1}
    assert e.reasons[1].as_dict() == {"code": "home_points", "better": 6, "other": 5}
    assert e.text("en") == (
        "6/off 5/off is better than 6/1 6/off: it bears off 2 checkers instead of 1"
        " and has 6 home-board points instead of 5."
    )
    assert e.text("de") == (
        "6/off 5/off ist besser als 6/1 6/off: Der Zug trägt 2 Steine ab (statt 1)"
        " und hat 6 Punkte im Heimfeld (statt 5)."
    )
    assert e.text("tr") == (
        "6/off 5/off hamlesi 6/1 6/off hamlesinden daha iyidir: 1 yerine 2 pul toplar"
        " ve evinde 5 yerine 6 kapı tutar."
    )


def test_gammon_chances_from_the_evaluator() -> None:
    # a strong board against one checker on the bar: hitting a second raises the gammons
    pos = Position.from_points(
        {6: 4, 5: 2, 4: 2, 3: 2, 8: 2, 13: 3}, {25: 1, 23: 1, 13: 5, 8: 3, 6: 4, 24: 1}
    )
    e = explain(pos, (5, 1), "8/2*", "13/8 6/5", evaluator=BarGammons())
    assert e.codes == ["gammon_chances", "hits"]  # 0.2 of equity against one hit (0.12)
    assert e.reasons[0].as_dict() == {"code": "gammon_chances", "better": 0.4, "other": 0.2}
    t = _all_texts(e)
    assert "raises the gammon chances to 40% (from 20%) and hits a blot" in t["en"]
    assert "erhöht die Gammon-Chancen auf 40 % (statt 20 %) und schlägt einen Blot" in t["de"]
    assert "mars şansını %20'den %40'a çıkarır ve bir açık pul kırar" in t["tr"]
    # the shipped net agrees that the hit is the gammonish play
    real = explain(pos, (5, 1), "8/2*", "13/8 6/5")
    assert "hits" in real.codes


def test_gammon_risk_and_the_fallback_sentence() -> None:
    r = Reason("gammon_risk", 0.05, 0.12, 0.07)
    e = Explanation("x", "y", (r,))
    assert e.text("en") == "x is better than y: it lowers the gammon risk to 5% (from 12%)."
    assert e.text("de") == "x ist besser als y: Der Zug senkt das Gammon-Risiko auf 5 % (statt 12 %)."
    assert e.text("tr") == "x hamlesi y hamlesinden daha iyidir: mars olma riskini %12'den %5'e indirir."
    empty = Explanation("x", "y", ())
    assert "no single feature" in empty.text("en")
    assert "kein einzelnes Merkmal" in empty.text("de")
    assert "öne çıkan tek bir fark yok" in empty.text("tr")
    assert "aucun trait de la position" in empty.text("fr")
    with pytest.raises(ValueError, match="language"):
        empty.text("xx")


def test_at_most_two_reasons_largest_first_and_in_the_better_plays_favour() -> None:
    e = explain(START, (6, 4), "8/2 6/2", "24/14")
    assert 1 <= len(e.reasons) <= 2
    assert [r.score for r in e.reasons] == sorted((r.score for r in e.reasons), reverse=True)
    for r in e.reasons:
        assert r.score > 0 and r.code in WEIGHTS
    # the same plays the other way round: no reason of the first comparison survives
    back = explain(START, (6, 4), "24/14", "8/2 6/2")
    assert not set(e.codes) & set(back.codes)


def test_every_code_has_a_phrase_in_every_language() -> None:
    for code in WEIGHTS:
        for better, other in ((1, 0), (2, 3), (0, 5)):
            r = Reason(code, better, other, 0.1, point=7)
            for lang in LANGUAGES:
                text = Explanation("a", "b", (r, r)).text(lang)
                assert text.endswith(".") and "{" not in text


def test_turkish_suffixes_follow_vowel_harmony() -> None:
    assert [tr_suffix(n, "abl") for n in (1, 3, 6, 9, 10, 17, 40, 60, 100)] == [
        "1'den",
        "3'ten",
        "6'dan",
        "9'dan",
        "10'dan",
        "17'den",
        "40'tan",
        "60'tan",
        "100'den",
    ]
    assert [tr_suffix(n, "dat") for n in (2, 4, 6, 9, 20, 30, 50)] == [
        "2'ye",
        "4'e",
        "6'ya",
        "9'a",
        "20'ye",
        "30'a",
        "50'ye",
    ]
