"""``Cards.all``: every card of a player, due or not, in the order they were made (the Anki export's read),
on SQLite and PostgreSQL."""

from __future__ import annotations

from services.store.cards import Cards
from services.store.players import PlayerRecords

PUZZLE = {"kind": "position", "answer": {"position_id": "x"}, "candidates": []}


def test_all_is_every_card_in_the_order_made_at_most_limit_and_the_owners_only(store_url: str) -> None:
    players, cards = PlayerRecords(store_url), Cards(store_url)
    ann, bob = players.create("k1", "Ann"), players.create("k1", "Bob")
    # made on successive days, each due before the one made before it: due order is the reverse
    days = [f"2026-12-{30 - i:02d}" for i in range(12)]
    made = []
    for i, today in enumerate(days):
        found = cards.add("k1", ann.id, f"library:{i}:31", PUZZLE, today)
        assert found is not None
        made.append(found[0].id)
    cards.add("k1", bob.id, "library:0:31", PUZZLE, "2026-12-01")

    every = cards.all("k1", ann.id, 100)
    assert every is not None
    assert [c.id for c in every] == made  # all twelve (due() gives ten when none is due), as made
    assert [c.due for c in every] == days
    due_first = cards.due("k1", ann.id, "2026-11-01", 100) or []
    assert [c.id for c in due_first] == made[::-1][:10]  # what the export read before: ten, by due date

    limited = cards.all("k1", ann.id, 5)
    assert limited is not None and [c.id for c in limited] == made[:5]
    assert cards.all("k2", ann.id, 100) is None  # another key's player
    assert cards.all("k1", "no-such-player", 100) is None
    carol = players.create("k1", "Carol")
    assert cards.all("k1", carol.id, 100) == []
