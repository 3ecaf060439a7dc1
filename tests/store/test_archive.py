"""The archive of positions per owner and the daily puzzles in the durable store (SQLite and PostgreSQL):
the same behaviour as the Redis archive, an owner's entries invisible to another, an index that catches
up from the versions and tombstones, puzzles written once."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from procutil import run_coroutine

from pulvezar import Position, PulvezarError, Rules
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex
from services.store.archive import DailyRecords, SqlArchive, library_id, match_entry


def entries(match: str, n: int, seed: int) -> list[dict[str, object]]:
    """Decisions along a random-play game, as the analysis jobs add them."""
    rng = np.random.default_rng(seed)
    rules, p, out = Rules.international(), Position.start(), []
    while len(out) < n:
        if rules.game_result(p) is not None:
            p = Position.start()
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = rules.legal_plays(p, dice)
        play = plays[int(rng.integers(len(plays)))]
        out.append({
            "match": match, "game": 1 + len(out) // 40, "move": 1 + len(out) % 40,
            "position_id": p.position_id, "play": play.notation, "dice": list(dice), "date": "2026-11-30",
        })  # fmt: skip
        p = play.position.swap()
    return out


def ids(index: ArchiveIndex) -> list[str]:
    return sorted(e.id for e in index.entries)


def test_match_positions_per_owner(store_url: str) -> None:
    a, b = SqlArchive(store_url, "owner-a"), SqlArchive(store_url, "owner-b")
    assert a.version() == 0 and len(a.load_index()[1]) == 0
    batch = entries("m1", 50, seed=1)
    assert a.add_match_positions(batch) == 50 and a.version() == 1
    v, index = a.load_index()
    assert v == 1 and len(index) == 50
    assert len(b.load_index()[1]) == 0 and b.version() == 0  # another key's archive is its own
    local = ArchiveIndex(match_entry(e) for e in batch)
    q = Position.from_position_id(str(batch[17]["position_id"]))
    assert [h.entry.id for h in index.query(q)] == [h.entry.id for h in local.query(q)]
    got = a.get_entry("match:m1:1:18")
    assert got is not None and got.play == batch[17]["play"] and got.date == "2026-11-30"
    assert b.get_entry("match:m1:1:18") is None
    # bad entries: nothing is written, the first bad field is named
    with pytest.raises(PulvezarError) as err:
        a.add_match_positions([batch[0], {**batch[1], "date": "2026-02-30"}])
    assert err.value.field == "entries[1].date" and a.version() == 1
    # the same match again replaces its entries
    again = [{**e, "play": "x"} for e in batch[:5]]
    assert a.add_match_positions(again) == 5 and len(a.load_index()[1]) == 50
    replaced = a.get_entry("match:m1:1:1")
    assert replaced is not None and replaced.play == "x"


def test_library_once_delete_and_tombstones(store_url: str) -> None:
    a = SqlArchive(store_url, "owner-a")
    e = ArchiveEntry("lib:new", Position.start().position_id, "library", name="start", tags=("a",))
    stored, created = a.save_library_position(e)
    assert created and stored.id == library_id(e.position_id, None)
    again, created2 = a.save_library_position(ArchiveEntry("lib:new", e.position_id, "library", name="other"))
    assert not created2 and again == stored and again.name == "start"
    assert SqlArchive(store_url, "owner-b").save_library_position(e)[1]  # per owner: new for b
    with pytest.raises(PulvezarError) as err:
        a.save_library_position(ArchiveEntry("x", e.position_id, "match"))
    assert err.value.field == "source"
    a.add_match_positions(entries("m2", 3, seed=2))
    assert [x.id for x in a.library_positions()] == [stored.id]  # matches are not library positions
    assert a.delete_entry(stored.id) and not a.delete_entry(stored.id) and not a.delete_entry("lib:nope")
    assert a.get_entry(stored.id) is None and a.library_positions() == []
    saved, created3 = a.save_library_position(e)  # after a delete it can be saved again
    assert created3 and saved.id == stored.id


def test_index_catches_up_from_versions(store_url: str) -> None:
    """The gateway's per-owner index applies the changes since its version; a database older than the
    index (restored from a backup) makes it reload."""
    from services.gateway.routers.similar import IndexCache

    a = SqlArchive(store_url, "owner-a")
    a.add_match_positions(entries("inc", 30, seed=9))
    cache = IndexCache()
    run_coroutine(cache.current(a))
    assert cache.reloads == 1 and len(cache.index) == 30
    old = cache.index
    a.delete_entry("match:inc:1:3")
    a.add_match_positions(entries("inc", 5, seed=10))  # replaces 1..5, so 1:3 comes back
    a.delete_entry("match:inc:1:9")
    a.add_match_positions(entries("more", 4, seed=11))
    SqlArchive(store_url, "owner-b").add_match_positions(entries("theirs", 6, seed=12))
    run_coroutine(cache.current(a))
    assert cache.reloads == 1  # applied from the versions, not reloaded
    v, fresh = a.load_index()
    assert cache.version == v and ids(cache.index) == ids(fresh)
    assert "match:inc:1:3" in ids(cache.index) and "match:inc:1:9" not in ids(cache.index)
    assert not [i for i in ids(cache.index) if i.startswith("match:theirs")]
    assert len(old) == 30  # queries in flight keep the index they had
    last = Position.from_position_id(str(entries("more", 4, seed=11)[3]["position_id"]))
    for q in (Position.start(), last):
        mine = {h.entry.id: round(h.similarity, 12) for h in cache.index.query(q, 1000, 0.0)}
        assert mine == {h.entry.id: round(h.similarity, 12) for h in fresh.query(q, 1000, 0.0)}
    cache.version += 100  # as if the database went back in time
    run_coroutine(cache.current(a))
    assert cache.reloads == 2 and ids(cache.index) == ids(fresh)


def test_concurrent_writers_get_distinct_versions(store_url: str) -> None:
    """Every change increments the owner's version once, whichever process makes it."""
    a = SqlArchive(store_url, "owner-c")
    errors: list[BaseException] = []

    def add(k: int) -> None:
        try:
            SqlArchive(store_url, "owner-c").add_match_positions(entries(f"w{k}", 5, seed=k))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=add, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert a.version() == 6 and len(a.load_index()[1]) == 30
    changes = a.changes_since(0)
    assert changes is not None and changes[0] == 6 and len(changes[1]) == 30 and changes[2] == []


def test_daily_puzzles_written_once(store_url: str) -> None:
    daily = DailyRecords(store_url)
    assert daily.get("2026-12-01", "international", "position") is None
    first = json.dumps({"date": "2026-12-01", "answer": {"play": "8/5 6/5"}})
    assert daily.put("2026-12-01", "international", "position", first)
    assert not daily.put("2026-12-01", "international", "position", json.dumps({"other": 1}))
    assert daily.get("2026-12-01", "international", "position") == json.loads(first)
    assert daily.get("2026-12-01", "tavla", "position") is None
    assert daily.put("2026-12-01", "tavla", "position", json.dumps({"t": 1}))


def test_daily_rechecks_written_once_per_net(store_url: str) -> None:
    daily = DailyRecords(store_url)
    date, a, b = "2026-12-02", "a" * 64, "b" * 64
    assert daily.put(date, "international", "cube", json.dumps({"answer": {"action": "No double, take"}}))
    assert daily.get_recheck(date, "international", "cube", a) is None
    first = json.dumps({"model": "net-a", "agrees": False, "answer": {"action": "Double, take"}})
    assert daily.put_recheck(date, "international", "cube", a, False, first)
    assert not daily.put_recheck(date, "international", "cube", a, True, json.dumps({"other": 1}))
    assert daily.get_recheck(date, "international", "cube", a) == json.loads(first)
    assert daily.get_recheck(date, "international", "cube", b) is None  # per net
    assert daily.put_recheck(date, "international", "cube", b, True, json.dumps({"model": "net-b"}))
    assert daily.get_recheck(date, "tavla", "position", a) is None
    assert (date, "international", "cube") in daily.puzzle_keys()
    assert daily.puzzle_keys() == sorted(daily.puzzle_keys())
    assert daily.get(date, "international", "cube") == {"answer": {"action": "No double, take"}}  # unchanged
