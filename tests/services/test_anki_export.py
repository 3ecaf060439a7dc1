"""``GET /v1/players/{id}/cards.apkg`` (issue 45): a player's stored cards as an Anki deck, on a gateway with
the durable store (SQLite) and the route's router: one note per card with the stored answer, the board
pictures as media, the note guids of :func:`pulvezar.play.anki.note_guid` from one export to the next,
another key's player a 404, a deck over the cap a 413, and the route described in OpenAPI."""

from __future__ import annotations

import io
import json
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("genanki")

from fastapi.testclient import TestClient
from test_download_names import disposition

from pulvezar import Position, Rules
from pulvezar.play.anki import MODEL_ID, note_guid
from pulvezar.rules.matchid import MatchId
from services.gateway.app import create_app
from services.gateway.services import anki
from services.gateway.settings import GatewaySettings
from services.store.db import session, upgrade

KEY, OTHER = "anki-key", "other-anki-key"
START = Position.start()
MATCH_ID = MatchId(cube_value=2, cube_owner=1, dice_owner=0, match_length=7, score=(2, 4)).encode()


def after(play: str) -> str:
    return Rules.international().legal_plays(START, (3, 1)).find(play).position.position_id


CHECKER = {
    "kind": "position", "rules": "international", "position_id": START.position_id, "match_id": MATCH_ID,
    "dice": [3, 1], "cube_value": 2, "position_type": {"kind": "opening", "side": None, "plan": ""},
    "candidates": [
        {"play": "8/5 6/5", "position_id": after("8/5 6/5"), "loss": 0.0},
        {"play": "24/21 24/23", "position_id": after("24/21 24/23"), "loss": 0.131},
    ],
    "answer": {"play": "8/5 6/5", "position_id": after("8/5 6/5")}, "played": "24/21 24/23",
    "played_loss": 0.131, "game": 1, "move": 1,
}  # fmt: skip
CUBE = {
    "kind": "cube", "rules": "international", "position_id": START.position_id, "match_id": None,
    "dice": None, "cube_value": 1, "candidates": [{"action": "no double"}, {"action": "double/take"}],
    "answer": {"action": "No double, take", "double": False, "response": "take",
               "costs": {"no double": 0.0, "double": 0.2, "take": 0.0, "pass": 0.4}},
    "reason": {"en": "too early to double", "de": "zu früh zum Doppeln"},
}  # fmt: skip


@pytest.fixture(scope="module")
def gateway() -> Iterator[tuple[TestClient, str]]:
    url = f"sqlite:///{tempfile.mkdtemp(prefix='anki-')}/pulvezar.db"
    upgrade(url)
    limits = {"rate_per_s": 1000, "burst": 1000}
    app = create_app(
        GatewaySettings(
            api_keys={KEY: {"name": "anki", **limits}, OTHER: {"name": "other", **limits}},
            rules_address="127.0.0.1:9",
            evaluator_address="127.0.0.1:9",
        )  # type: ignore[call-arg]
    )
    app.state.database_url = url
    with TestClient(app, headers={"X-API-Key": KEY}, raise_server_exceptions=False) as c:
        yield c, url


def add_cards(url: str, player_id: str, puzzles: list[dict[str, Any]]) -> list[str]:
    """The cards, stored as the analyses and the daily attempts store them; their ids."""
    from sqlalchemy import select

    from services.store.cards import add_card
    from services.store.models import Card

    with session(url) as s:
        for i, puzzle in enumerate(puzzles):
            add_card(s, url, player_id, f"test:{i}:{puzzle['kind']}", puzzle, "2026-12-01")
    with session(url) as s:
        rows = s.scalars(select(Card).where(Card.player_id == player_id).order_by(Card.source)).all()
        return [r.id for r in rows]


def notes(data: bytes, tmp: Path) -> tuple[dict[str, list[str]], dict[str, bytes]]:
    """The package's notes (guid: fields) of the note type, and its media files by name."""
    z = zipfile.ZipFile(io.BytesIO(data))
    media = {name: z.read(n) for n, name in json.loads(z.read("media")).items()}
    path = tmp / f"c{len(list(tmp.iterdir()))}.anki2"
    path.write_bytes(z.read("collection.anki2"))
    db = sqlite3.connect(path)
    rows = db.execute("SELECT guid, mid, flds FROM notes").fetchall()
    db.close()
    assert {mid for _, mid, _ in rows} <= {MODEL_ID}
    return {g: f.split("\x1f") for g, _, f in rows}, media


def test_a_players_cards_download_as_a_deck_only_for_its_key(
    gateway: tuple[TestClient, str], tmp_path: Path
) -> None:
    c, url = gateway
    ann = c.post("/v1/players", json={"name": "Ann Çelik"}).json()
    ids = add_cards(url, ann["id"], [CHECKER, CUBE])
    href = f"/v1/players/{ann['id']}/cards.apkg"

    r = c.get(href)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/apkg"
    kind, plain, name = disposition(r.headers["content-disposition"])
    assert (kind, name) == ("attachment", "pulvezar-Ann Çelik-cards.apkg") and plain and plain.isascii()
    got, media = notes(r.content, tmp_path)
    assert set(got) == {note_guid(ann["id"], i) for i in ids}
    fields = {f[1]: f for f in got.values()}  # by the question
    checker = next(f for q, f in fields.items() if "3-1" in q)
    assert "8/5 6/5" in checker[2] and "24/21 24/23" in checker[3] and "0.131" in checker[3]
    cube = next(f for q, f in fields.items() if "Double?" in q)
    assert "No double, take" in cube[2] and cube[5] == "too early to double"
    assert len(media) == 2 and all(n.endswith(".svg") and b"<svg" in b for n, b in media.items())
    assert any(b"2-4 in a 7-point match" in b for b in media.values())  # the score of the match card

    again = c.get(href, headers={"Accept-Language": "de"})
    got_de, _ = notes(again.content, tmp_path)
    assert set(got_de) == set(got)  # the same notes: an import updates them
    assert any(f[5] == "zu früh zum Doppeln" for f in got_de.values())

    png = c.get(href, params={"image": "png"})
    _, media = notes(png.content, tmp_path)
    assert media and all(n.endswith(".png") and b.startswith(b"\x89PNG") for n, b in media.items())

    # another key's player, an unknown player: 404 as GET .../cards answers
    with TestClient(c.app, headers={"X-API-Key": OTHER}) as other:
        for client, path in ((other, href), (c, "/v1/players/pnobody/cards.apkg")):
            r = client.get(path)
            assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json", r.text
            assert r.json()["errors"][0]["field"] == "player_id"
            assert client.get(path.removesuffix(".apkg")).status_code == 404
    assert c.get(href, params={"image": "gif"}).status_code == 422


def test_a_deck_over_the_cap_is_a_413_problem(
    gateway: tuple[TestClient, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    c, url = gateway
    bob = c.post("/v1/players", json={"name": "Bob"}).json()
    href = f"/v1/players/{bob['id']}/cards.apkg"
    empty = c.get(href)  # no cards yet: an empty deck
    assert empty.status_code == 200 and zipfile.ZipFile(io.BytesIO(empty.content)).read("media") == b"{}"
    add_cards(url, bob["id"], [CHECKER, CUBE])
    monkeypatch.setattr(anki, "MAX_DECK", 1)
    r = c.get(href)
    assert r.status_code == 413 and r.headers["content-type"] == "application/problem+json"
    assert "at most 1" in r.json()["detail"]
    monkeypatch.setattr(anki, "MAX_PNG_DECK", 1)
    assert c.get(href, params={"image": "png"}).json()["errors"][0]["field"] == "image"


def test_the_route_is_described(gateway: tuple[TestClient, str]) -> None:
    c, _ = gateway
    op = c.app.openapi()["paths"]["/v1/players/{player_id}/cards.apkg"]["get"]  # type: ignore[attr-defined]
    assert op["tags"] == ["cards"] and op["summary"]
    ok = op["responses"]["200"]
    assert "application/apkg" in ok["content"] and "Anki" in ok["description"]
    assert {"404", "413"} <= set(op["responses"])
    assert all(p.get("description") for p in op["parameters"] if p["in"] == "query")
