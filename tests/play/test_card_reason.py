"""The cards of an analysed match keep the analysis's reason sentence (issue 45): ``decision_card`` and
``blunder_cards`` give a checker play's puzzle a ``reason`` in the daily cards' shape, which the Anki deck's
back shows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pulvezar.analysis.match import AnalysisSettings, MatchAnalysis, analyse_match
from pulvezar.formats import read_mat
from pulvezar.i18n import LANGUAGES
from pulvezar.play.progress import blunder_cards, card_reason, decision_card

MATCH = """
 3 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31: 24/21 24/23             64: 24/18 13/9
  2)  Doubles => 2                Drops
"""


@pytest.fixture(scope="module")
def analysis() -> MatchAnalysis:
    return analyse_match(read_mat(MATCH), AnalysisSettings.from_level("0ply", lang="de"))


def test_a_checker_error_keeps_its_reason_in_every_language(analysis: MatchAnalysis) -> None:
    errors = [d for d in analysis.decisions if d.kind == "checker" and d.played != d.best]
    assert len(errors) == 2
    for d in errors:
        card = decision_card(d, analysis.variant)
        assert card is not None
        assert set(card["reason"]) == set(LANGUAGES)
        assert card["reason"]["de"] == d.explanation  # the analysis's own sentence, in its language
        assert card["reason"]["en"].startswith(f"{d.best} is better than {d.played}")


def test_the_reason_survives_the_stored_analysis(analysis: MatchAnalysis) -> None:
    stored = MatchAnalysis.from_json(analysis.to_json())
    for before, after in zip(analysis.decisions, stored.decisions, strict=True):
        assert decision_card(after, stored.variant) == decision_card(before, analysis.variant)


def test_without_its_reasons_the_sentence_is_kept_in_the_analysis_language(analysis: MatchAnalysis) -> None:
    d = next(d for d in analysis.decisions if d.explanation)
    old = replace(d, reasons=())  # an analysis stored before the reasons were
    assert card_reason(old, "de") == {"de": d.explanation}
    assert decision_card(old, analysis.variant, "de")["reason"] == {"de": d.explanation}  # type: ignore[index]
    odd = replace(d, reasons=({"code": "no such reason", "better": 1, "other": 0},))
    assert card_reason(odd, "de") == {"de": d.explanation}


def test_no_sentence_no_reason(analysis: MatchAnalysis) -> None:
    cube = [d for d in analysis.decisions if d.kind != "checker" and d.cube is not None]
    assert cube
    for d in cube:
        card = decision_card(d, analysis.variant)
        assert card is not None and "reason" not in card
    d = next(d for d in analysis.decisions if d.kind == "checker")
    assert card_reason(replace(d, explanation="", reasons=()), "en") is None


def test_blunder_cards_carry_the_reason(analysis: MatchAnalysis) -> None:
    cards = dict(blunder_cards(analysis.games, 0, "job:j:0", "de"))
    checker = [p for p in cards.values() if p["kind"] == "position"]
    assert checker and all(p["reason"]["de"] for p in checker)


def test_the_deck_shows_the_reason(analysis: MatchAnalysis) -> None:
    pytest.importorskip("genanki")
    from pulvezar.play.anki import Picture, note_fields

    d = next(d for d in analysis.decisions if d.explanation)
    puzzle = decision_card(d, analysis.variant)
    assert puzzle is not None
    fields = note_fields({"id": "c1", "puzzle": puzzle}, Picture(b"<svg/>", "svg"), lang="en")
    assert puzzle["reason"]["en"].split(":")[0] in fields[5]
