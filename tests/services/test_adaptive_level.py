"""The adaptive opponent's rule (issue 44; services/gateway/services/adaptive.py): the mean PR of the
player's last five analysed matches, else their rating; and the level the library plays at from it."""

from __future__ import annotations

from typing import Any

import pytest

from pulvezar.analysis.bots import Bot
from services.gateway.services.adaptive import RECENT, START_RATING, adaptive_basis, adaptive_elo


def trend(*prs: float) -> dict[str, Any]:
    return {
        "analysed": {
            "matches": len(prs),
            "trend": [[f"2026-12-0{i % 9 + 1}", pr, f"m{i}"] for i, pr in enumerate(prs)],
        }
    }


@pytest.mark.parametrize(
    ("counters", "basis", "level"),
    [
        (None, (START_RATING, "elo"), "medium"),  # a new player: the start rating
        ({"rating": 1320.0}, (1320.0, "elo"), "easy"),
        ({"rating": 1650}, (1650.0, "elo"), "hard"),
        ({"rating": 1950.5, "analysed": {"matches": 0, "trend": []}}, (1950.5, "elo"), "master"),
        ({"rating": True}, (START_RATING, "elo"), "medium"),  # an odd counter: the start rating
        # analysed matches win over the rating: their mean PR (lower is stronger)
        ({"rating": 1200.0, **trend(3.0, 5.0)}, (4.0, "pr"), "master"),
        ({"rating": 1900.0, **trend(30.0)}, (30.0, "pr"), "easy"),
        # only the last five count: the early weak games are forgotten
        ({**trend(40.0, 40.0, 14.0, 14.0, 14.0, 14.0, 14.0)}, (14.0, "pr"), "hard"),
        ({**trend(21.0, 23.0, 22.0)}, (22.0, "pr"), "medium"),
        ({**trend(500.0)}, (99.0, "pr"), "easy"),  # a wild PR is capped
    ],
)
def test_the_adaptive_level_from_recent_grades_else_the_rating(
    counters: dict[str, Any] | None, basis: tuple[float, str], level: str
) -> None:
    got = adaptive_basis(counters)
    assert got == basis
    rating, kind = got
    assert Bot.for_rating(rating, kind=kind).level == level


def test_recent_means_the_last_five_and_a_pr_is_rated_as_its_elo() -> None:
    assert RECENT == 5
    assert adaptive_elo(4.0, "pr") == 2000.0 and adaptive_elo(1650.0, "elo") == 1650.0
    # a better recent grade never gives a weaker bot
    bases = [adaptive_basis(trend(pr)) for pr in (40.0, 22.0, 14.0, 8.0, 2.0)]
    levels = [Bot.for_rating(rating, kind=kind).level for rating, kind in bases]
    order = ["easy", "medium", "hard", "master"]
    assert [order.index(x) for x in levels] == sorted(order.index(x) for x in levels)
