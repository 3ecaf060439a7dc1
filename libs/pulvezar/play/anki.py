"""A player's flash cards as an Anki deck: :func:`apkg` writes the ``.apkg`` file's bytes (genanki, the
``interop`` extra, imported when a deck is written).

A card is what the player's cards keep (:mod:`pulvezar.play.cards`): its ``id``, ``source`` and
``puzzle``, a decision in a daily puzzle's shape with its answer (:func:`pulvezar.play.progress.
decision_card`); a REST card's ``decision`` is read as the puzzle when it carries the answer.  Each card
is one note of the note type :data:`MODEL_ID`, whose fields are :data:`FIELDS`:

- front: the board (a picture the caller draws: :data:`Draw`, an SVG or PNG media file) and the question:
  the dice to play, or the cube question;
- back: the best play (or cube action), the player's play and its equity loss where the card knows them
  (a card of an analysed match), the candidates with their losses, and the reason sentence.

Ids are stable so that importing a new export into Anki updates the notes instead of adding copies: the
deck's id comes from the player (:func:`deck_id`), a note's guid from the player and the card's id
(:func:`note_guid`, whatever else of the card changed), the note type's id is :data:`MODEL_ID` always, and
a picture's file name is its content's hash.  At most :data:`MAX_CARDS` cards make one deck.

>>> note_guid("p1", "c1") == note_guid("p1", "c1") != note_guid("p2", "c1")
True
>>> 2**52 <= deck_id("p1") < 2**53
True
"""

from __future__ import annotations

import base64
import hashlib
import html
import importlib
import io
import itertools
import json
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pulvezar import i18n
from pulvezar.errors import PulvezarError
from pulvezar.rules.diagram import ascii_board
from pulvezar.rules.position import Position

#: the note type's id: fixed forever (Anki knows a note type by it; a new id would be a second note type)
MODEL_ID = 1_746_205_045
MODEL_NAME = "pulvezar card"
#: the note type's fields, in order (the last, the card's id and source, is the sort field)
FIELDS = ("Board", "Question", "Best", "Played", "Candidates", "Reason", "Card")
#: the most cards one deck holds (the REST route refuses a larger deck; a deck of them stays a few MB)
MAX_CARDS = 1000
#: the candidates listed on the back, best first
SHOWN_CANDIDATES = 5

Lang = str
"""A language of the catalogs (:data:`pulvezar.i18n.LANGUAGES`)."""


@dataclass(frozen=True)
class Picture:
    """A card's board picture: the file's bytes and its kind (``svg`` or ``png``)."""

    data: bytes
    kind: Literal["svg", "png"]

    @property
    def name(self) -> str:
        """The media file's name: its content's hash (the same picture is one file)."""
        return f"pulvezar-{hashlib.sha256(self.data).hexdigest()[:20]}.{self.kind}"


#: draws a card's board from its puzzle
Draw = Callable[[Mapping[str, Any]], Picture]

#: the words of a note, from the catalogs (``anki.<word>``, :mod:`pulvezar.i18n`)
_WORDS = ("play_q", "cube_q", "best", "played", "loss", "candidates")


def _text(lang: str) -> dict[str, str]:
    """A note's words in ``lang`` (English for a language no catalog offers)."""
    lang = lang if lang in i18n.LANGUAGES else "en"
    return {w: i18n.t(f"anki.{w}", lang) for w in _WORDS}


_CSS = """.card { font-family: sans-serif; font-size: 18px; text-align: center; }
.board img { max-width: 100%; }
.ids { font-size: 12px; color: #777; }
.back { text-align: left; display: inline-block; }
.played.lost { color: #a3261f; }
table.cands { border-collapse: collapse; margin: 6px 0; }
table.cands td { padding: 1px 10px; }
.reason { font-style: italic; margin-top: 8px; }
"""
_FRONT = '<div class="board">{{Board}}</div><div class="question">{{Question}}</div>'
_BACK = (
    '{{FrontSide}}<hr id="answer"><div class="back"><div class="best">{{Best}}</div>'
    '{{#Played}}<div class="played lost">{{Played}}</div>{{/Played}}'
    "{{#Candidates}}{{Candidates}}{{/Candidates}}"
    '{{#Reason}}<div class="reason">{{Reason}}</div>{{/Reason}}</div>'
)


def _hash(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(("pulvezar", *parts)).encode()).digest()


def deck_id(player: str) -> int:
    """The deck's id, from the player alone (2**52 to 2**53: an integer JSON keeps exactly)."""
    return 2**52 + int.from_bytes(_hash("deck", player)[:6], "big")


def note_guid(player: str, card_id: str) -> str:
    """A note's guid: from the player and the card's id (base 64 of 16 bytes of a hash)."""
    return base64.b64encode(_hash("note", player, card_id)[:12]).decode()


def card_puzzle(card: Mapping[str, Any], where: str = "card") -> Mapping[str, Any]:
    """The card's decision with its answer (``puzzle``, or a REST card's ``decision``); a
    :class:`PulvezarError` naming ``where`` when it has none (a study round's cards hide it)."""
    puzzle = card.get("puzzle") or card.get("decision")
    if not isinstance(puzzle, Mapping) or not isinstance(puzzle.get("answer"), Mapping):
        raise PulvezarError(
            f"{where} has no answer (a study round's cards hide it): export the stored cards", field=where
        )
    if puzzle.get("kind") not in ("position", "cube") or not puzzle.get("position_id"):
        raise PulvezarError(f"{where} is not a position or cube decision", field=where)
    return puzzle


def _reason(puzzle: Mapping[str, Any], lang: str) -> str:
    reason = puzzle.get("reason")
    if isinstance(reason, Mapping):
        return str(reason.get(lang) or reason.get("en") or "")
    return str(reason or "")


def _loss(x: Any) -> str:
    return f"{float(x):.3f}"


def _candidates(puzzle: Mapping[str, Any], t: Mapping[str, str]) -> str:
    """The candidates (the cube actions with their costs) and their losses, best first."""
    if puzzle["kind"] == "cube":
        costs = puzzle["answer"].get("costs") or {}
        rows = [(str(k), float(v)) for k, v in costs.items()]
    else:
        rows = [(str(c.get("play")), float(c.get("loss") or 0.0)) for c in puzzle.get("candidates") or ()]
    rows.sort(key=lambda r: r[1])
    if not rows:
        return ""
    body = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{'' if loss <= 0 else '-' + _loss(loss)}</td></tr>"
        for name, loss in rows[:SHOWN_CANDIDATES]
    )
    return f'<div>{html.escape(t["candidates"])}</div><table class="cands">{body}</table>'


def note_fields(
    card: Mapping[str, Any], picture: Picture, lang: str = "en", where: str = "card"
) -> list[str]:
    """The note's fields (:data:`FIELDS`, HTML) of a card and its board picture."""
    t = _text(lang)
    puzzle = card_puzzle(card, where)
    answer = puzzle["answer"]
    ids = html.escape(":".join(str(x) for x in (puzzle["position_id"], puzzle.get("match_id")) if x))
    board = f'<img src="{picture.name}"><div class="ids">{ids}</div>'
    if puzzle["kind"] == "cube":
        question, best = t["cube_q"], str(answer.get("action") or "")
    else:
        d1, d2 = (int(x) for x in puzzle["dice"])
        question, best = t["play_q"].format(dice=f"{d1}-{d2}"), str(answer.get("play") or "")
    played = ""
    if puzzle.get("played"):
        played = f"{html.escape(t['played'])}: <b>{html.escape(str(puzzle['played']))}</b>"
        if puzzle.get("played_loss") is not None:
            played += f" ({html.escape(t['loss'])} {_loss(puzzle['played_loss'])})"
    source = html.escape(" ".join(str(card[k]) for k in ("id", "source") if card.get(k)))
    return [
        board,
        html.escape(question),
        f"{html.escape(t['best'])}: <b>{html.escape(best)}</b>",
        played,
        _candidates(puzzle, t),
        html.escape(_reason(puzzle, lang)),
        source,
    ]


def _tags(puzzle: Mapping[str, Any]) -> list[str]:
    kind = (puzzle.get("position_type") or {}).get("kind")
    tags = ["pulvezar", "cube" if puzzle["kind"] == "cube" else "checker"]
    return [*tags, str(kind)] if kind and str(kind).replace("-", "").isalnum() else tags


def apkg(
    cards: Sequence[Mapping[str, Any]],
    player: str,
    draw: Draw,
    *,
    name: str | None = None,
    lang: str = "en",
    timestamp: float | None = None,
) -> bytes:
    """The ``.apkg`` of ``cards`` (each with its ``id``) of ``player`` (its id: the deck's and the notes'
    ids come from it), the deck named ``pulvezar::<name>``; ``draw`` draws each card's board, ``lang``
    (:data:`pulvezar.i18n.LANGUAGES`) the words, ``timestamp`` the notes' modification time (now: an import
    updates them)."""
    if len(cards) > MAX_CARDS:
        raise PulvezarError(f"{len(cards)} cards: a deck holds at most {MAX_CARDS}", field="cards")
    try:
        genanki: Any = importlib.import_module("genanki")  # the interop extra; untyped
    except ImportError:
        raise PulvezarError(
            "Anki decks need genanki: pip install 'pulvezar[interop]'", field="cards"
        ) from None
    model = genanki.Model(
        MODEL_ID, MODEL_NAME, fields=[{"name": f} for f in FIELDS],
        templates=[{"name": "Decision", "qfmt": _FRONT, "afmt": _BACK}], css=_CSS,
        sort_field_index=FIELDS.index("Card"),
    )  # fmt: skip
    deck = genanki.Deck(deck_id(player), f"pulvezar::{name or player}")
    media: dict[str, bytes] = {}
    for i, card in enumerate(cards):
        where = f"cards[{i}]"
        if not card.get("id"):
            raise PulvezarError(f"{where} has no id", field=where)
        puzzle = card_puzzle(card, where)
        picture = draw(puzzle)
        media[picture.name] = picture.data
        fields = note_fields(card, picture, lang, where)
        deck.add_note(genanki.Note(model=model, fields=fields, guid=note_guid(player, str(card["id"])),
                                   tags=_tags(puzzle)))  # fmt: skip
    return _package(genanki.Package(deck), media, time.time() if timestamp is None else timestamp)


def _package(package: Any, media: Mapping[str, bytes], timestamp: float) -> bytes:
    """The package as ``.apkg`` bytes: a zip of the SQLite collection (``collection.anki2``), the media map
    (``media``: ``{"0": name}``) and the media files named by number (genanki's layout, written here from
    bytes, with no file left behind)."""
    with tempfile.TemporaryDirectory(prefix="pulvezar-anki-") as tmp:
        path = Path(tmp) / "collection.anki2"
        conn = sqlite3.connect(path)
        try:
            package.write_to_db(conn.cursor(), timestamp, itertools.count(int(timestamp * 1000)))
            conn.commit()
        finally:
            conn.close()
        out = io.BytesIO()
        names = sorted(media)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(path, "collection.anki2")
            z.writestr("media", json.dumps({str(i): n for i, n in enumerate(names)}))
            for i, n in enumerate(names):
                z.writestr(str(i), media[n])
    return out.getvalue()


def text_board(puzzle: Mapping[str, Any]) -> Picture:
    """A plain picture of a card's board: the text diagram (:func:`~pulvezar.rules.diagram.ascii_board`)
    as SVG, with the dice; for callers without the gateway's drawing (the command line)."""
    lines = ascii_board(Position.from_position_id(str(puzzle["position_id"]))).splitlines()
    if puzzle.get("dice"):
        lines.append(f"   dice {puzzle['dice'][0]}-{puzzle['dice'][1]}")
    elif puzzle["kind"] == "cube":
        lines.append(f"   cube {puzzle.get('cube_value') or 1}")
    width, height = 9 * max(map(len, lines)) + 20, 18 * len(lines) + 20
    text = "".join(
        f'<tspan x="10" dy="{18 if i else 0}">{html.escape(line).replace(" ", "&#160;")}</tspan>'
        for i, line in enumerate(lines)
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><rect width="100%" height="100%" fill="#fafafa"/>'
        f'<text x="10" y="24" font-family="monospace" font-size="15" fill="#1d1d1b">{text}</text></svg>'
    )
    return Picture(svg.encode(), "svg")
