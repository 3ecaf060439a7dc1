"""A player's statistics (``pulvezar.play.statistics``) from random sessions against the bot: every counter
agrees with a count made here from the same events, and folding the events batch by batch (as the store does,
one request at a time) gives what folding them at once gives."""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import groupby
from typing import Any

import pytest
from playkit import Fixed, drive

from pulvezar.play import PlaySession
from pulvezar.play.statistics import EMPTY, fold, report

CONFIGS = {
    "match": {"match_length": 3, "bot": {"level": "easy"}},
    "tavla": {"rules": {"variant": "tavla"}, "match_length": 3, "bot": {"level": "hard"}},
    "money": {"match_length": 0, "bot": {"level": "medium"}},
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_counters_agree_with_the_events(name: str, make: Callable[..., PlaySession]) -> None:
    cfg = CONFIGS[name]
    s = make(cfg, evaluator=Fixed(0.5))
    rng = random.Random(name)
    events = drive(s, rng, steps=400 if cfg["match_length"] == 0 else 3000)
    context = {"level": cfg["bot"]["level"], "match_length": cfg["match_length"]}
    stats = fold(None, events, context)

    # batch by batch, at random cuts, as the store folds each request's events
    cuts = sorted(rng.sample(range(len(events)), 5))
    batched: dict[str, Any] | None = None
    for a, b in zip([0, *cuts], [*cuts, len(events)], strict=True):
        batched = fold(batched, events[a:b], context)
    assert batched == stats

    ends = [e["details"] for e in events if e["type"] == "game_end"]
    won = [d["winner"] == 0 for d in ends]
    assert stats["games_played"] == len(ends) > 0 and stats["games_won"] == sum(won)
    runs = [len(list(g)) for k, g in groupby(won) if k]
    assert stats["longest_win_streak"] == max(runs, default=0)
    for outcome in ("gammon", "backgammon"):
        assert stats[f"{outcome}s_won"] == sum(d.get("outcome") == outcome and d["winner"] == 0 for d in ends)
        assert stats[f"{outcome}s_lost"] == sum(
            d.get("outcome") == outcome and d["winner"] == 1 for d in ends
        )
    assert stats["points_won"] + stats["points_lost"] == sum(d["points"] for d in ends)

    rolls = [e["details"]["dice"] for e in events if e["type"] == "roll" and e["player"] == 0]
    openings = [e for e in events if e["type"] == "opening"]
    assert stats["rolls"] == len(rolls) and stats["doubles"] == sum(a == b for a, b in rolls)
    assert sum(stats["dice"]) == len(openings) + sum(4 if a == b else 2 for a, b in rolls)

    finished = [e["details"] for e in events if e["type"] == "finished"]
    if cfg["match_length"]:
        assert s.status == "finished" and stats["matches_played"] == 1
        assert stats["matches_won"] == int(finished[-1]["winner"] == 0)
    else:
        assert stats["matches_played"] == 0
    level = stats["by_level"][cfg["bot"]["level"]]
    assert (level["games_played"], level["games_won"]) == (stats["games_played"], stats["games_won"])

    r = report(stats)
    assert r["win_rate"] == stats["games_won"] / stats["games_played"]
    assert r["dice"]["total"] == sum(stats["dice"]) and r["dice"]["expected"] == r["dice"]["total"] / 6


def test_an_empty_record() -> None:
    r = report(None)
    assert r["games_played"] == 0 and r["win_rate"] is None and r["match_win_rate"] is None
    assert r["by_level"] == {} and r["dice"] == {"counts": [0] * 6, "total": 0, "expected": 0.0}
    counters = fold(None, [], {})
    counters["dice"][0] += 1  # the counters are a copy: EMPTY stays empty
    assert EMPTY["dice"] == [0] * 6 and EMPTY["by_level"] == {}
