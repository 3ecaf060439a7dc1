"""A player's cards as an Anki deck (:mod:`pulvezar.play.anki`): the ``.apkg`` opened as Anki reads it (a zip
of a SQLite collection, the media map and the media files), its notes' fields, guids, note type and deck,
and ids that stay the same from one export to the next."""

from __future__ import annotations

import io
import json
import sqlite3
import sys
import zipfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

pytest.importorskip("genanki")

from pulvezar import Position, Rules
from pulvezar.errors import PulvezarError
from pulvezar.play import anki
from pulvezar.play.anki import MODEL_ID, Picture, apkg, deck_id, note_guid, text_board

START = Position.start()


def after(play: str, dice: tuple[int, int] = (3, 1)) -> str:
    return Rules.international().legal_plays(START, dice).find(play).position.position_id


def checker_card(
    card_id: str = "c1", played: str | None = "24/21 24/23", loss: float = 0.128
) -> dict[str, Any]:
    candidates = [
        {"play": "8/5 6/5", "position_id": after("8/5 6/5"), "loss": 0.0},
        {"play": "24/21 24/23", "position_id": after("24/21 24/23"), "loss": loss},
        {"play": "13/10 6/5", "position_id": after("13/10 6/5"), "loss": 0.051},
    ]
    puzzle: dict[str, Any] = {
        "kind": "position", "rules": "international", "position_id": START.position_id,
        "match_id": "cAkAAAAAAAAA", "dice": [3, 1], "cube_value": 1, "candidates": candidates,
        "answer": {"play": "8/5 6/5", "position_id": after("8/5 6/5")},
        "position_type": {"kind": "opening", "side": None, "plan": ""},
        "reason": {"en": "8/5 6/5 leaves no shots", "de": "8/5 6/5 lässt keine Schüsse"},
    }  # fmt: skip
    if played is not None:
        puzzle |= {"played": played, "played_loss": loss}
    return {"id": card_id, "source": f"job:j1:0:0:{card_id}:checker", "puzzle": puzzle, "reps": 0}


def cube_card(card_id: str = "c2") -> dict[str, Any]:
    costs = {"no double": 0.0, "double": 0.21, "take": 0.0, "pass": 0.33}
    puzzle = {
        "kind": "cube", "rules": "international", "position_id": "sGfwATDgc/ABMA", "match_id": None,
        "dice": None, "cube_value": 1, "candidates": [{"action": a} for a in ("no double", "double/take")],
        "answer": {"action": "No double, take", "double": False, "response": "take", "costs": costs},
        "played": "double", "played_loss": 0.21,
    }  # fmt: skip
    return {"id": card_id, "source": "daily:2026-12-01:international:cube", "puzzle": puzzle}


def drawn(puzzle: Any) -> Picture:
    """A picture per position and dice (a stand-in for the gateway's board)."""
    return Picture(f"<svg>{puzzle['position_id']} {puzzle.get('dice')}</svg>".encode(), "svg")


class Opened:
    """An ``.apkg`` as Anki reads it."""

    def __init__(self, data: bytes, tmp: Path) -> None:
        z = zipfile.ZipFile(io.BytesIO(data))
        assert z.testzip() is None
        self.names = set(z.namelist())
        self.media_map: dict[str, str] = json.loads(z.read("media"))
        self.media = {name: z.read(number) for number, name in self.media_map.items()}
        path = tmp / f"collection-{len(list(tmp.iterdir()))}.anki2"
        path.write_bytes(z.read("collection.anki2"))
        db = sqlite3.connect(path)
        self.notes = {
            guid: {
                "mid": mid,
                "fields": dict(zip(anki.FIELDS, flds.split("\x1f"), strict=True)),
                "tags": tags,
            }
            for guid, mid, flds, tags in db.execute("SELECT guid, mid, flds, tags FROM notes")
        }
        self.card_decks = {did for (did,) in db.execute("SELECT did FROM cards")}
        self.n_cards = db.execute("SELECT count(*) FROM cards").fetchone()[0]
        models, decks = db.execute("SELECT models, decks FROM col").fetchone()
        self.models, self.decks = json.loads(models), json.loads(decks)
        db.close()


def test_a_deck_opens_with_one_note_per_card_its_fields_and_its_pictures(tmp_path: Path) -> None:
    cards = [checker_card(), cube_card()]
    out = Opened(apkg(cards, "p1", drawn, name="Ann"), tmp_path)
    assert out.names == {"collection.anki2", "media", "0", "1"}
    assert len(out.notes) == 2 and out.n_cards == 2  # one card (Front/Back) per note
    assert set(out.notes) == {note_guid("p1", "c1"), note_guid("p1", "c2")}
    assert {n["mid"] for n in out.notes.values()} == {MODEL_ID}
    model = out.models[str(MODEL_ID)]
    assert [f["name"] for f in model["flds"]] == list(anki.FIELDS) and model["name"] == anki.MODEL_NAME
    assert out.decks[str(deck_id("p1"))]["name"] == "pulvezar::Ann" and out.card_decks == {deck_id("p1")}

    checker = out.notes[note_guid("p1", "c1")]["fields"]
    assert "with 3-1" in checker["Question"] and "<b>8/5 6/5</b>" in checker["Best"]
    assert "24/21 24/23" in checker["Played"] and "0.128" in checker["Played"]
    assert "13/10 6/5" in checker["Candidates"] and "-0.051" in checker["Candidates"]
    assert checker["Reason"] == "8/5 6/5 leaves no shots"
    assert "c1" in checker["Card"] and START.position_id in checker["Board"]
    assert out.notes[note_guid("p1", "c1")]["tags"].split() == ["pulvezar", "checker", "opening"]
    cube = out.notes[note_guid("p1", "c2")]["fields"]
    assert "Double?" in cube["Question"] and "No double, take" in cube["Best"]
    assert "pass" in cube["Candidates"] and "-0.330" in cube["Candidates"] and cube["Reason"] == ""

    # each note's picture is a media file of the package, the drawn bytes
    for card in cards:
        picture = drawn(card["puzzle"])
        assert out.media[picture.name] == picture.data
        assert f'<img src="{picture.name}">' in out.notes[note_guid("p1", str(card["id"]))]["fields"]["Board"]


def test_a_re_export_keeps_every_id_and_a_changed_card_its_guid(tmp_path: Path) -> None:
    first = Opened(apkg([checker_card(), cube_card()], "p1", drawn, timestamp=1.0e9), tmp_path)
    again = Opened(apkg([checker_card(), cube_card()], "p1", drawn, timestamp=1.1e9), tmp_path)
    assert set(first.notes) == set(again.notes) and first.decks.keys() == again.decks.keys()
    assert str(MODEL_ID) in first.models and str(MODEL_ID) in again.models

    changed = checker_card(played="13/10 6/5", loss=0.051) | {"reps": 3}  # answered, then re-analysed
    updated = Opened(apkg([changed], "p1", drawn), tmp_path)
    (guid,) = updated.notes
    assert guid == note_guid("p1", "c1") and "13/10 6/5" in updated.notes[guid]["fields"]["Played"]

    other = Opened(apkg([checker_card()], "p2", drawn), tmp_path)  # another player's card c1: another note
    assert set(other.notes).isdisjoint(first.notes) and str(deck_id("p2")) in other.decks
    assert deck_id("p1") != deck_id("p2")


def test_the_words_follow_the_language_and_a_daily_card_has_no_played_line(tmp_path: Path) -> None:
    out = Opened(apkg([checker_card(played=None)], "p1", drawn, lang="de"), tmp_path)
    fields = out.notes[note_guid("p1", "c1")]["fields"]
    assert fields["Question"].startswith("Du bist am Zug mit 3-1") and fields["Best"].startswith("Am besten")
    assert fields["Played"] == "" and fields["Reason"] == "8/5 6/5 lässt keine Schüsse"


def test_cards_without_their_answer_or_id_and_too_many_cards_are_refused(monkeypatch: Any) -> None:
    hidden = checker_card() | {"puzzle": None, "decision": {**checker_card()["puzzle"], "answer": None}}
    with pytest.raises(PulvezarError, match="no answer") as e:
        apkg([checker_card(), hidden], "p1", drawn)
    assert e.value.field == "cards[1]"
    with pytest.raises(PulvezarError, match="no id"):
        apkg([checker_card("")], "p1", drawn)
    monkeypatch.setattr(anki, "MAX_CARDS", 1)
    with pytest.raises(PulvezarError, match="at most 1") as e:
        apkg([checker_card("a"), checker_card("b")], "p1", drawn)
    assert e.value.field == "cards"
    # a REST card whose decision carries the answer is read as its puzzle
    rest = {"id": "c9", "decision": checker_card()["puzzle"]}
    assert apkg([rest], "p1", drawn)
    monkeypatch.setitem(sys.modules, "genanki", None)  # the interop extra not installed
    with pytest.raises(PulvezarError, match="pulvezar\\[interop\\]"):
        apkg([], "p1", drawn)


def test_the_text_board_is_an_svg_of_the_diagram() -> None:
    picture = text_board(checker_card()["puzzle"])
    root = ElementTree.fromstring(picture.data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and picture.kind == "svg"
    text = "".join(root.itertext()).replace("\xa0", " ")
    assert "pips 167" in text and "dice 3-1" in text
    assert picture.name.startswith("pulvezar-") and picture.name.endswith(".svg")


def test_anki_itself_imports_the_deck_and_a_re_export_updates_its_notes(tmp_path: Path) -> None:
    """With Anki's own library (PyPI ``anki``, not a dependency: skipped without it): the first import adds
    the notes, the next export's import updates them and adds only the new card."""
    collection = pytest.importorskip("anki.collection")
    col = collection.Collection(str(tmp_path / "collection.anki2"))

    def imported(data: bytes, name: str) -> tuple[int, int]:
        path = tmp_path / name
        path.write_bytes(data)
        options = collection.ImportAnkiPackageOptions(merge_notetypes=True, with_scheduling=False)
        log = col.import_anki_package(
            collection.ImportAnkiPackageRequest(package_path=str(path), options=options)
        ).log
        return len(log.new), len(log.updated)

    try:
        assert imported(apkg([checker_card(), cube_card()], "p1", drawn, timestamp=1.0e9), "a.apkg") == (2, 0)
        changed = checker_card(played="13/10 6/5", loss=0.051)
        second = apkg([changed, cube_card(), checker_card("c3")], "p1", drawn, timestamp=1.1e9)
        assert imported(second, "b.apkg") == (1, 2)
        assert col.note_count() == 3
        by_guid = {n.guid: n for n in map(col.get_note, col.find_notes(""))}
        note = by_guid[note_guid("p1", "c1")]
        assert "13/10 6/5" in note["Played"] and note.note_type()["id"] == MODEL_ID
    finally:
        col.close()
