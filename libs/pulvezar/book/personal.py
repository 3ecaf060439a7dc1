"""The "you" row of the opening book (the app manual's 5.12): a player's own most frequent play with each
opening roll, how often, its win rate, and its gap to the book's best.

``counts`` are the player's opening plays as :func:`pulvezar.play.statistics.fold` keeps them for one rule
set: ``{"31": {"8/5 6/5": [games, won], ...}, ...}``.  A play is matched to the book's candidates by the
position it leaves (so any notation of it matches); a play the book does not hold gets its gap from
``gap_of(dice, position_id)`` when given (``(gap, ply)``: e.g. a search), else none.

>>> from pulvezar.book import load_book
>>> rows = your_openings(load_book("international"), {"31": {"8/5 6/5": [3, 2], "24/21 13/12": [1, 0]}})
>>> r = next(x for x in rows if x["roll"] == "31")
>>> r["you"]["play"], r["you"]["times"], r["you"]["games"], r["you"]["win_rate"], r["you"]["gap"]
('8/5 6/5', 3, 4, 0.6666666666666666, 0.0)
>>> next(x for x in rows if x["roll"] == "42")["you"] is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pulvezar.book.model import Book
from pulvezar.errors import PulvezarError
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

GapOf = Callable[[tuple[int, int], str], tuple[float, int] | None]


def _rules(book: Book) -> Rules:
    r = book.rules
    if r["variant"] == "tavla":
        return Rules.tavla(bool(r.get("hit_and_stop")), bool(r.get("must_bear_off")))
    return Rules.international()


def your_openings(
    book: Book, counts: Mapping[str, Mapping[str, Sequence[int]]], gap_of: GapOf | None = None
) -> list[dict[str, Any]]:
    """Per roll of ``book`` (in its order): ``roll``, ``dice``, ``best`` (the book's best play, its equity)
    and ``you``: ``play`` (the player's most frequent; ties: the more often won, then by name), ``times``,
    ``games`` (all the player's games opened with the roll), ``win_rate`` (of the games with that play),
    ``gap`` (the book's best equity minus the play's: 0 for the best), ``gap_from`` (``"book"`` or the
    search's ``"N-ply"``) and ``in_book``; None before the player opened with the roll."""
    rules, start = _rules(book), Position.from_position_id(book.position_id)
    rows = []
    for r in book.rolls:
        plays = {p: (int(c[0]), int(c[1])) for p, c in counts.get(r.roll, {}).items() if int(c[0]) > 0}
        row: dict[str, Any] = {
            "roll": r.roll,
            "dice": list(r.dice),
            "best": {"play": r.best.play, "equity": r.best.equity},
            "you": None,
        }
        if plays:
            play, (times, won) = max(plays.items(), key=lambda kv: (kv[1][0], kv[1][1], kv[0]))
            try:
                pid = rules.legal_plays(start, r.dice).find(play).position.position_id
            except PulvezarError:
                pid = None  # a notation the rules no longer read: shown, without a gap
            cand = next((c for c in r.candidates if c.position_id == pid), None)
            gap, source = (cand.loss, "book") if cand is not None else (None, None)
            if cand is None and pid is not None and gap_of is not None:
                found = gap_of(r.dice, pid)
                if found is not None:
                    gap, source = round(found[0], 6), f"{found[1]}-ply"
            row["you"] = {
                "play": play,
                "times": times,
                "games": sum(n for n, _ in plays.values()),
                "win_rate": won / times,
                "gap": gap,
                "gap_from": source,
                "in_book": cand is not None,
            }
        rows.append(row)
    return rows
