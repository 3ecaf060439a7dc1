"""Retention of every table (services/store/retention.py, docs/store.md "Retention"), on SQLite and
PostgreSQL: what aged out or is over an owner's cap goes, a player's record stays."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from pulvezar import Position, PulvezarError
from pulvezar.archive.similar import ArchiveEntry
from services.store import retention
from services.store.db import session
from services.store.exercises import Exercises
from services.store.games import GameRecords
from services.store.models import ArchiveRow, Base, Exercise, GameRow, IdempotentRequest
from services.store.players import PlayerRecords
from services.store.settings import StoreSettings

DAY = 86_400.0
DOCS = Path(__file__).resolve().parents[2] / "docs" / "store.md"


def aged(url: str, model: type, key: object, column: str, days: float) -> None:
    """Make a row look ``days`` old."""
    with session(url) as s:
        setattr(s.get(model, key), column, time.time() - days * DAY)


def test_apply_removes_what_aged_out_and_keeps_the_learners_record(store_url: str) -> None:
    games, players = GameRecords(store_url), PlayerRecords(store_url)
    ann = players.create("k1", "ann")
    for gid, status, player in [
        ("done-old", "finished", None), ("done-new", "finished", None), ("idle-old", "playing", None),
        ("idle-new", "playing", None), ("ann-old", "finished", ann.id), ("ann-idle", "playing", ann.id),
    ]:  # fmt: skip
        games.create(gid, "k1", {}, {}, status, events=[{"type": "x"}], player_id=player)
    for gid in ("done-old", "ann-old", "ann-idle"):
        aged(store_url, GameRow, gid, "updated_at", 400)
    aged(store_url, GameRow, "idle-old", "updated_at", 31)
    aged(store_url, GameRow, "idle-new", "updated_at", 29)
    games.create("g-idem", "k1", {}, {}, "playing", idempotency=("old-key", "f", 201, {}))
    games.create("g-idem2", "k1", {}, {}, "playing", idempotency=("new-key", "f", 201, {}))
    aged(store_url, IdempotentRequest, ("k1", "old-key"), "created_at", 2)
    ex = Exercises(store_url)
    old_ex, new_ex = ex.issue("k1", ann.id, "pips", {}, False), ex.issue("k1", ann.id, "pips", {}, False)
    aged(store_url, Exercise, old_ex, "issued_at", 31)

    gone = retention.apply(store_url, StoreSettings())

    assert gone["games"] == 2 and gone["idempotent"] == 1 and gone["exercises"] == 1
    kept = {g for g in ("done-old", "done-new", "idle-old", "idle-new", "ann-old", "ann-idle")}
    kept = {g for g in kept if games.get("k1", g) is not None}
    assert kept == {"done-new", "idle-new", "ann-old", "ann-idle"}  # a player's games stay with the player
    assert games.events("done-old") == [] and games.events("ann-old") != []
    assert games.remembered("k1", "old-key") is None and games.remembered("k1", "new-key") is not None
    assert ex.get("k1", old_ex) is None and ex.get("k1", new_ex) is not None  # type: ignore[arg-type]
    assert retention.apply(store_url, StoreSettings())["games"] == 0  # nothing more to do


def test_caps_per_owner(store_url: str) -> None:
    from services.store.archive import SqlArchive

    games = GameRecords(store_url)
    now = time.time()
    for i in range(4):
        games.create(f"a{i}", "k1", {}, {}, "finished", created=now + i)
    games.create("b0", "k2", {}, {}, "finished")
    ex = Exercises(store_url)
    for _ in range(3):
        ex.issue("k1", None, "pips", {}, False)
    a = SqlArchive(store_url, "k1")
    start = Position.start().position_id
    a.import_entries([ArchiveEntry(f"match:m:1:{i}", start, "match") for i in range(3)])
    time.sleep(0.01)
    a.import_entries([ArchiveEntry("match:m:1:9", start, "match")])
    lib, _ = a.save_library_position(ArchiveEntry("lib:x", start, "library", name="kept"))
    version = a.version()
    settings = StoreSettings(
        max_games_per_owner=2, max_exercises_per_owner=1, max_archive_entries_per_owner=2
    )

    gone = retention.apply(store_url, settings)

    assert gone["games"] == 2 and gone["exercises"] == 2 and gone["archive"] == 2
    assert [g.id for g in games.list("k1")[0]] == ["a3", "a2"] and games.get("k2", "b0") is not None
    left = {e.id for e in a.load_index()[1].entries}
    assert left == {"match:m:1:2", "match:m:1:9", lib.id}  # the oldest go; saved positions stay
    changes = a.changes_since(version)  # the gateways' indexes see the removal
    assert changes is not None and len(changes[2]) == 2


def test_tombstones_are_purged_after_the_retention(store_url: str) -> None:
    from services.store.archive import SqlArchive

    a = SqlArchive(store_url, "k1")
    a.import_entries([ArchiveEntry("match:m:1:1", Position.start().position_id, "match")])
    assert a.delete_entry("match:m:1:1")
    assert retention.apply(store_url, StoreSettings())["tombstones"] == 0  # young: gateways catch up
    aged(store_url, ArchiveRow, ("k1", "match:m:1:1"), "updated_at", 91)
    assert retention.apply(store_url, StoreSettings())["tombstones"] == 1
    with session(store_url) as s:
        assert s.get(ArchiveRow, ("k1", "match:m:1:1")) is None


def test_docs_give_every_table_a_retention() -> None:
    """docs/store.md's retention table names every table of the models."""
    text = DOCS.read_text()
    section = text[text.index("## Retention") :]
    named = set(re.findall(r"^\| `([a-z_]+)`", section, flags=re.M))
    assert set(Base.metadata.tables) <= named, set(Base.metadata.tables) - named


def test_players_and_open_games_are_capped_when_made(store_url: str) -> None:
    """One player or unfinished game over a key's cap is refused, naming what is full (a 422)."""
    players = PlayerRecords(store_url, max_per_owner=2)
    players.create("k1", "a")
    players.create("k1", "b")
    with pytest.raises(PulvezarError) as err:
        players.create("k1", "c")
    assert err.value.field == "players" and len(players.list("k1")[0]) == 2
    players.create("k2", "a")  # another key's count
    games = GameRecords(store_url, max_open_per_owner=1)
    games.create("open", "k1", {}, {}, "playing")
    with pytest.raises(PulvezarError) as err:
        games.create("second", "k1", {}, {}, "playing")
    assert err.value.field == "games" and games.get("k1", "second") is None
    games.create("done", "k1", {}, {}, "finished")  # finished games are retention's
    games.create("theirs", "k2", {}, {}, "playing")
