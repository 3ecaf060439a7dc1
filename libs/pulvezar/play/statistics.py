"""A player's statistics from the events of their games against the bots, kept as counters.

:func:`fold` adds a batch of a game's events (:class:`~pulvezar.play.PlaySession` events: ``opening``,
``roll``, ``game_end``, ``finished``, ...) to the counters; the store calls it with each batch as it is
saved, so a read never goes over the whole history.  Folding the events one batch at a time or all at once
gives the same counters.  :func:`report` adds what is derived (win rates, the dice's expected counts).

The human is player 0 of a session.  A game's gammon or backgammon (Tavla: mars) is counted when it was
borne off; a game that ended by a dropped double or an accepted resignation counts as won or lost only.

>>> s = fold(None, [
...     {"type": "roll", "player": 0, "details": {"dice": [6, 6]}},
...     {"type": "game_end", "player": 0, "details": {"winner": 0, "points": 2, "outcome": "gammon"}},
...     {"type": "finished", "player": 0, "details": {"reason": "match", "winner": 0}},
... ], {"level": "easy", "match_length": 1})
>>> r = report(s)
>>> (r["games_played"], r["games_won"], r["gammons_won"], r["matches_won"], r["longest_win_streak"])
(1, 1, 1, 1, 1)
>>> r["dice"]["counts"], r["dice"]["expected"]
([0, 0, 0, 0, 0, 4], 0.6666666666666666)
>>> r["by_level"]["easy"]
{'games_played': 1, 'games_won': 1, 'matches_played': 1, 'matches_won': 1}
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

HUMAN = 0
#: the counters of a player without games
EMPTY: dict[str, Any] = {
    "games_played": 0,
    "games_won": 0,
    "matches_played": 0,
    "matches_won": 0,
    "gammons_won": 0,
    "backgammons_won": 0,
    "gammons_lost": 0,
    "backgammons_lost": 0,
    "win_streak": 0,
    "longest_win_streak": 0,
    "points_won": 0,
    "points_lost": 0,
    "by_level": {},
    "dice": [0, 0, 0, 0, 0, 0],  # how often each number fell for the player (doubles count four times)
    "rolls": 0,
    "doubles": 0,
}
_LEVEL = {"games_played": 0, "games_won": 0, "matches_played": 0, "matches_won": 0}


def fold(
    stats: Mapping[str, Any] | None, events: Sequence[Mapping[str, Any]], context: Mapping[str, Any]
) -> dict[str, Any]:
    """The counters ``stats`` (None: :data:`EMPTY`) with ``events`` added; ``context``: the session's
    ``level`` (the bot's, or None) and ``match_length`` (0: money)."""
    out = copy.deepcopy(dict(stats) if stats else EMPTY)
    for k, v in EMPTY.items():
        out.setdefault(k, copy.deepcopy(v))
    level = str(context.get("level") or "unknown")
    by_level = out["by_level"].setdefault(level, dict(_LEVEL))
    for e in events:
        kind, details = e.get("type"), e.get("details") or {}
        if kind == "opening":
            dice = details.get("dice") or []
            if dice:
                out["dice"][int(dice[0]) - 1] += 1  # the player's die of the opening roll
        elif kind == "roll" and e.get("player") == HUMAN:
            a, b = (int(d) for d in details["dice"])
            out["rolls"] += 1
            if a == b:
                out["doubles"] += 1
                out["dice"][a - 1] += 4
            else:
                out["dice"][a - 1] += 1
                out["dice"][b - 1] += 1
        elif kind == "game_end":
            won = details.get("winner") == HUMAN
            points = int(details.get("points") or 0)
            outcome = details.get("outcome")
            out["games_played"] += 1
            by_level["games_played"] += 1
            if won:
                out["games_won"] += 1
                by_level["games_won"] += 1
                out["points_won"] += points
                out["win_streak"] += 1
                out["longest_win_streak"] = max(out["longest_win_streak"], out["win_streak"])
            else:
                out["points_lost"] += points
                out["win_streak"] = 0
            if outcome in ("gammon", "backgammon"):
                out[f"{outcome}s_{'won' if won else 'lost'}"] += 1
        elif (
            kind == "finished"
            and details.get("reason") in ("match", "timeout")
            and context.get("match_length")
        ):
            out["matches_played"] += 1
            by_level["matches_played"] += 1
            if details.get("winner") == HUMAN:
                out["matches_won"] += 1
                by_level["matches_won"] += 1
    return out


def _rate(won: int, played: int) -> float | None:
    return won / played if played else None


def report(stats: Mapping[str, Any] | None) -> dict[str, Any]:
    """The counters with what is derived from them: ``win_rate`` and ``match_win_rate`` (None before the
    first), and the dice: ``counts`` by number, ``total``, ``expected`` (each number's share, total / 6)."""
    s = fold(stats, [], {})
    s["by_level"] = {k: v for k, v in s["by_level"].items() if v["games_played"] or v["matches_played"]}
    counts = list(s.pop("dice"))
    total = sum(counts)
    return {
        **s,
        "win_rate": _rate(s["games_won"], s["games_played"]),
        "match_win_rate": _rate(s["matches_won"], s["matches_played"]),
        "dice": {"counts": counts, "total": total, "expected": total / 6},
    }
