"""GameRecords on SQLite and PostgreSQL: versions that refuse a stale write, events in order, idempotent
answers per owner, lists, delete and expiry."""

from __future__ import annotations

import threading
import time

import pytest

from services.store.db import session
from services.store.games import GameRecords, StaleGame
from services.store.models import GameRow


def test_create_save_and_stale_writes(store_url: str) -> None:
    games = GameRecords(store_url)
    games.create("g1", "k1", {"log": []}, {"score": [0, 0]}, "playing", events=[{"type": "created"}])
    g = games.get("k1", "g1")
    assert g is not None and g.version == 1 and g.status == "playing" and g.record == {"log": []}
    assert games.get("k2", "g1") is None and games.get("k1", "nope") is None
    v = games.save(g, {"log": [1]}, {"score": [1, 0]}, "playing", events=[{"type": "roll"}, {"type": "play"}])
    assert v == 2
    with pytest.raises(StaleGame):  # written over version 1 again: refused, nothing changes
        games.save(g, {"log": ["other"]}, {}, "finished", events=[{"type": "lost"}])
    now = games.get("k1", "g1")
    assert now is not None and now.record == {"log": [1]} and now.version == 2 and now.finished_at is None
    assert [(n, e["type"]) for n, e in games.events("g1")] == [(1, "created"), (2, "roll"), (3, "play")]
    assert [n for n, _ in games.events("g1", after=2)] == [3]
    games.save(now, {"log": [1, 2]}, {}, "finished", events=[{"type": "over"}])
    done = games.get("k1", "g1")
    assert done is not None and done.status == "finished" and done.finished_at is not None


def test_one_of_two_concurrent_actions_wins(store_url: str) -> None:
    games = GameRecords(store_url)
    games.create("g2", "k1", {"n": 0}, {}, "playing")
    g = games.get("k1", "g2")
    assert g is not None
    results: list[str] = []

    def act(n: int) -> None:
        try:
            games.save(g, {"n": n}, {}, "playing", events=[{"type": f"a{n}"}])
            results.append("won")
        except StaleGame:
            results.append("stale")

    threads = [threading.Thread(target=act, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["stale", "stale", "stale", "won"]
    assert len(games.events("g2")) == 1


def test_idempotent_answers_are_per_owner_and_atomic(store_url: str) -> None:
    games = GameRecords(store_url)
    games.create("g3", "k1", {}, {}, "playing", idempotency=("create-1", "f0", 201, {"id": "g3"}))
    g = games.get("k1", "g3")
    assert g is not None
    games.save(g, {"n": 1}, {}, "playing", idempotency=("act-1", "f1", 200, {"state": 1}))
    r = games.remembered("k1", "act-1")
    assert r is not None and (r.fingerprint, r.status, r.response) == ("f1", 200, {"state": 1})
    assert games.remembered("k2", "act-1") is None and games.remembered("k1", "act-2") is None
    c = games.remembered("k1", "create-1")
    assert c is not None and c.status == 201
    with pytest.raises(StaleGame):  # a refused write remembers nothing
        games.save(g, {"n": 2}, {}, "playing", idempotency=("act-2", "f2", 200, {}))
    assert games.remembered("k1", "act-2") is None


def test_list_delete_expire(store_url: str) -> None:
    games = GameRecords(store_url)
    for i in range(5):
        games.create(f"l{i}", "k1", {}, {"i": i}, "finished" if i < 2 else "playing", events=[{"i": i}])
        time.sleep(0.002)
    games.create("other", "k2", {}, {}, "playing")
    rows, cursor = games.list("k1", limit=3)
    assert [g.id for g in rows] == ["l4", "l3", "l2"] and cursor
    rest, end = games.list("k1", limit=3, cursor=cursor)
    assert [g.id for g in rest] == ["l1", "l0"] and end is None
    assert [g.id for g in games.list("k1", statuses=["finished"])[0]] == ["l1", "l0"]
    assert not games.delete("k2", "l4") and games.delete("k1", "l4") and not games.delete("k1", "l4")
    assert games.events("l4") == []
    with session(store_url) as s:
        s.get(GameRow, "l0").updated_at = time.time() - 100  # type: ignore[union-attr]
        s.get(GameRow, "l2").updated_at = time.time() - 100  # type: ignore[union-attr]
    assert games.expire(50) == 1  # l0: finished and old; l2 is old but still being played
    assert games.get("k1", "l0") is None and games.get("k1", "l2") is not None
