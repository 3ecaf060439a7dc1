"""The adaptive opponent's strength for a player (issue 44; the seed's 5.1 "Anpassend").

The rule: an adaptive bot for a player plays at the grade of the player's recent games -- the mean PR of
their last :data:`RECENT` analysed matches (``rating_kind="pr"``) -- or, before their first analysed match,
at their Elo-like rating (:data:`START_RATING` for a new player).  The library maps either to a level and
margin once, when the game is created (:meth:`pulvezar.analysis.bots.Bot.for_rating`: Elo below 1400
easy, below 1600 medium, below 1800 hard, else master; a PR as ``2100 - 25 * PR``: PR 12 or better master,
up to 20 hard, up to 28 medium, above easy), and the bot keeps them for the match.  A rating the client
gives itself wins over both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

#: how many of the latest analysed matches make the "recent grade"
RECENT = 5
#: a new player's rating (the statistics start there too)
START_RATING = 1500.0
#: PRs beyond this (a few wild games) count as this: the bot's rating stays in its accepted range
MAX_PR = 99.0


def adaptive_basis(counters: Mapping[str, Any] | None) -> tuple[float, Literal["elo", "pr"]]:
    """``(rating, kind)`` an adaptive bot plays a player at, from the player's statistics counters: the
    mean PR of the last :data:`RECENT` analysed matches, else the player's rating."""
    stats = counters or {}
    trend = (stats.get("analysed") or {}).get("trend") or []
    prs = [float(p[1]) for p in trend[-RECENT:] if p[1] is not None]
    if prs:
        return round(min(MAX_PR, max(0.0, sum(prs) / len(prs))), 2), "pr"
    rating = stats.get("rating", START_RATING)
    if isinstance(rating, bool) or not isinstance(rating, int | float):
        rating = START_RATING
    return float(rating), "elo"


def adaptive_elo(rating: float, kind: str) -> float:
    """The Elo-like rating an adaptive bot plays at (a PR converted): what its games are rated against."""
    from pulvezar.analysis.bots import elo_from_pr

    return elo_from_pr(rating) if kind == "pr" else rating
