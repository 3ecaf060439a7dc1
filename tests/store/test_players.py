"""PlayerRecords on SQLite and PostgreSQL: a player belongs to its key, lists page newest first, a rename
touches only the owner's player, and deleting a player deletes what is recorded for it (its games and their
events) and nothing else."""

from __future__ import annotations

import time

import pytest

from services.store.games import GameRecords
from services.store.players import PlayerRecords


def test_a_player_belongs_to_its_key(store_url: str) -> None:
    players = PlayerRecords(store_url)
    ann = players.create("k1", "Ann")
    assert ann.id.startswith("p") and ann.name == "Ann" and ann.owner == "k1"
    assert players.get("k1", ann.id) == ann
    assert players.get("k2", ann.id) is None and players.get("k1", "p-none") is None
    assert players.rename("k2", ann.id, "Eve") is None  # another key's: not found, unchanged
    renamed = players.rename("k1", ann.id, "Anna")
    assert renamed is not None and renamed.name == "Anna" and renamed.updated_at >= ann.updated_at
    assert players.get("k1", ann.id).name == "Anna"  # type: ignore[union-attr]
    assert not players.delete("k2", ann.id) and players.get("k1", ann.id) is not None


def test_lists_page_newest_first_per_key(store_url: str) -> None:
    players = PlayerRecords(store_url)
    made = [players.create("k1", f"p{i}") for i in range(5)]
    players.create("k2", "other")
    first, cursor = players.list("k1", limit=2)
    assert cursor is not None
    second, cursor2 = players.list("k1", limit=2, cursor=cursor)
    third, end = players.list("k1", limit=2, cursor=cursor2)
    seen = [p.id for p in first + second + third]
    assert end is None and seen == [p.id for p in reversed(made)]
    with pytest.raises(ValueError):
        players.list("k1", cursor="not-a-cursor")


def test_deleting_a_player_deletes_its_games_only(store_url: str) -> None:
    players, games = PlayerRecords(store_url), GameRecords(store_url)
    ann, bob = players.create("k1", "Ann"), players.create("k1", "Bob")
    games.create("g-ann", "k1", {}, {}, "playing", events=[{"type": "created"}], player_id=ann.id)
    games.create("g-bob", "k1", {}, {}, "playing", player_id=bob.id)
    games.create("g-none", "k1", {}, {}, "playing")  # a game without a player records nothing
    assert games.get("k1", "g-ann").player_id == ann.id  # type: ignore[union-attr]
    assert players.games_of("k1", ann.id) == 1 and players.games_of("k2", ann.id) == 0
    assert players.delete("k1", ann.id)
    assert players.get("k1", ann.id) is None and games.get("k1", "g-ann") is None
    assert games.events("g-ann") == []
    assert games.get("k1", "g-bob") is not None and games.get("k1", "g-none") is not None
    assert players.get("k1", bob.id) is not None
    assert not players.delete("k1", ann.id)  # gone


def test_a_players_statistics_are_folded_with_each_saved_batch(store_url: str) -> None:
    players, games = PlayerRecords(store_url), GameRecords(store_url)
    ann = players.create("k1", "Ann")
    summary = {"bot": {"level": "easy"}, "match_length": 1}
    roll = {"type": "roll", "player": 0, "details": {"dice": [3, 3]}}
    games.create("g1", "k1", {}, summary, "playing", events=[{"type": "created"}, roll], player_id=ann.id)
    games.create("g2", "k1", {}, summary, "playing", events=[roll])  # no player: nothing recorded
    g = games.get("k1", "g1")
    assert g is not None
    end = {"type": "game_end", "player": 0, "details": {"winner": 0, "points": 1}}
    games.save(
        g,
        {},
        summary,
        "finished",
        events=[end, {"type": "finished", "details": {"reason": "match", "winner": 0}}],
    )
    stats = players.statistics("k1", ann.id)
    assert stats is not None and players.statistics("k2", ann.id) is None
    assert (stats["rolls"], stats["dice"][2], stats["games_won"], stats["matches_won"]) == (1, 4, 1, 1)
    assert stats["by_level"]["easy"]["matches_played"] == 1
    assert players.reset_statistics("k1", ann.id) and not players.reset_statistics("k2", ann.id)
    assert players.statistics("k1", ann.id) == {}
    assert games.get("k1", "g1") is not None  # the games stay


def test_games_against_an_adaptive_bot_are_rated_against_the_rating_it_plays_at(store_url: str) -> None:
    from pulvezar.play.statistics import rated

    players, games = PlayerRecords(store_url), GameRecords(store_url)
    ann = players.create("k1", "Ann")
    summary = {"bot": {"level": "hard"}, "match_length": 0, "adaptive_rating": 1650.0}
    end = {"type": "game_end", "player": 0, "details": {"winner": 0, "points": 1}}
    games.create("g1", "k1", {}, summary, "playing", events=[end], player_id=ann.id)
    stats = players.statistics("k1", ann.id)
    assert stats is not None and stats["by_level"]["adaptive"]["games_won"] == 1
    assert stats["rating"] == rated(1500.0, 1650.0, True, 0) and stats["rated_games"] == 1
    assert list(stats["ladder"]) == [time.strftime("%Y-%m", time.gmtime())]


def test_cards_once_per_source_on_the_schedule_and_deleted_with_the_player(store_url: str) -> None:
    from services.store.cards import Cards, add_card
    from services.store.db import session

    players, cards = PlayerRecords(store_url), Cards(store_url)
    ann = players.create("k1", "Ann")
    puzzle = {"kind": "position", "answer": {"position_id": "x"}, "candidates": []}
    with session(store_url) as s:
        add_card(s, store_url, ann.id, "daily:2026-12-01:international:position", puzzle, "2026-12-02")
        add_card(
            s, store_url, ann.id, "daily:2026-12-01:international:position", puzzle, "2026-12-09"
        )  # again
    assert cards.deck("k1", ann.id, "2026-12-01", 21) == {
        "count": 1, "due_today": 0, "next_due": "2026-12-02", "learned": 0
    }  # fmt: skip
    assert cards.deck("k2", ann.id, "2026-12-01", 21) is None
    (card,) = cards.due("k1", ann.id, "2026-12-01", 20) or []  # none due: the earliest
    intervals = []
    for correct in (True, True, True, False, True):
        out = cards.answered(
            "k1", ann.id, card.id, correct, "2026-12-02", lambda c: {"i": c.interval, "d": c.due}
        )
        assert out is not None
        intervals.append(out["i"])
    assert intervals == [1, 6, 15, 1, 1]
    assert cards.get("k1", ann.id, card.id).lapses == 1  # type: ignore[union-attr]
    assert cards.answered("k2", ann.id, card.id, True, "2026-12-02", lambda c: {}) is None
    players.delete("k1", ann.id)
    assert cards.get("k1", ann.id, card.id) is None
