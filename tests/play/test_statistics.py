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

from pulvezar.i18n import LANGUAGES
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
    s = make(cfg, evaluator=Fixed(0.5), seed=bytes(32 * [1]))  # fixed dice: the player opens a game
    rng = random.Random(name)
    events = drive(s, rng, steps=400 if cfg["match_length"] == 0 else 3000)
    rules = "tavla" if name == "tavla" else "international"
    context = {"level": cfg["bot"]["level"], "match_length": cfg["match_length"], "rules": rules}
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

    # the opening plays of the games the player opened, from the match record: the roll before the first play
    opened: dict[str, dict[str, list[int]]] = {}
    for g in s.to_record().games:
        first = next((i for i, a in enumerate(g.actions) if a.kind == "play"), None)
        if first is None or g.winner is None or g.actions[first].player != 0 or not g.actions[first].notation:
            continue
        dice = g.actions[first - 1].dice
        assert dice is not None
        roll = f"{max(dice)}{min(dice)}"
        counts = opened.setdefault(roll, {}).setdefault(g.actions[first].notation or "", [0, 0])
        counts[0] += 1
        counts[1] += int(g.winner == 0)
    assert stats["openings"].get(rules, {}) == opened
    assert opened  # (these dice give the player an opening of its own in every configuration)

    r = report(stats)
    assert "openings" not in r and "opening_game" not in r
    assert r["win_rate"] == stats["games_won"] / stats["games_played"]
    assert r["dice"]["total"] == sum(stats["dice"]) and r["dice"]["expected"] == r["dice"]["total"] / 6


def test_an_empty_record() -> None:
    r = report(None)
    assert r["games_played"] == 0 and r["win_rate"] is None and r["match_win_rate"] is None
    assert r["by_level"] == {} and r["dice"] == {"counts": [0] * 6, "total": 0, "expected": 0.0}
    counters = fold(None, [], {})
    counters["dice"][0] += 1  # the counters are a copy: EMPTY stays empty
    assert EMPTY["dice"] == [0] * 6 and EMPTY["by_level"] == {}


def test_the_rating_moves_by_elo_and_the_ladder_carries_it_across_months() -> None:
    from pulvezar.play.statistics import K_NEW, K_SETTLED, NEW_GAMES, rank, rated

    def game(won: bool) -> list[dict[str, Any]]:
        return [{"type": "game_end", "player": 0, "details": {"winner": 0 if won else 1, "points": 1}}]

    # an even opponent moves the rating by K / 2; a settled player's K is smaller
    assert rated(1500, 1500, True, 0) == 1500 + K_NEW / 2
    assert rated(1500, 1500, False, NEW_GAMES) == 1500 - K_SETTLED / 2
    s = fold(None, game(True), {"level": "master", "opponent_rating": 1900, "month": "2026-09"})
    assert 1500 + K_NEW * 0.9 < s["rating"] < 1500 + K_NEW  # beating a much stronger bot: nearly K
    s = fold(s, game(False), {"level": "easy", "opponent_rating": 1200, "month": "2026-11"})
    s = fold(s, game(True), {"level": "easy"})  # no opponent rating: not rated
    assert s["rated_games"] == 2 and s["games_played"] == 3
    r = report(s, month="2027-01", language="de")["rating"]
    assert [x["month"] for x in r["ladder"]] == [
        "2026-08",
        "2026-09",
        "2026-10",
        "2026-11",
        "2026-12",
        "2027-01",
    ]
    assert [x["games"] for x in r["ladder"]] == [0, 1, 0, 1, 0, 0]
    sept, nov = s["ladder"]["2026-09"][0], s["ladder"]["2026-11"][0]
    assert [x["rating"] for x in r["ladder"]] == [1500.0] + [round(sept, 1)] * 2 + [round(nov, 1)] * 3
    assert r["value"] == round(nov, 1) and r["rank"] == {"id": rank(nov)[0], "name": rank(nov)[1]["de"]}
    assert [rank(x)[0] for x in (1000, 1300, 1650, 1700, 2100)] == [
        "apprentice", "journeyman", "candidate_master", "master", "grandmaster"
    ]  # fmt: skip
    names = rank(1950)[1]
    assert set(names) == set(LANGUAGES)
    want = {"en": "Grandmaster", "de": "Großmeister", "tr": "Büyük usta", "ru": "Гроссмейстер"}
    assert {k: names[k] for k in want} == want


def test_achievements_are_reached_once_with_the_time_of_the_game_that_reached_them() -> None:
    from pulvezar.play.statistics import ACHIEVEMENTS, achievements

    def win(**details: Any) -> dict[str, Any]:
        return {"type": "game_end", "player": 0, "details": {"winner": 0, "points": 1, **details}}

    assert len(ACHIEVEMENTS) == 20 and len({a for a, _ in ACHIEVEMENTS}) == 20
    assert all(set(text) == set(LANGUAGES) for _, text in ACHIEVEMENTS)
    s = fold(None, [win()], {"level": "easy", "time": 10.0})
    take4 = {"type": "take", "player": 1, "details": {"cube": 4, "owner": 1}}
    s = fold(s, [take4, win(outcome="gammon")], {"level": "master", "time": 20.0})
    s = fold(s, [win(), win(), win()], {"level": "easy", "time": 30.0})
    s = fold(s, [win(), {"type": "finished", "details": {"reason": "match", "winner": 0}}],
             {"level": "easy", "match_length": 7, "time": 40.0})  # fmt: skip
    got = {a["id"]: a["reached"] for a in achievements(s) if a["reached"] is not None}
    assert got == {
        "first_win": 10.0, "cube_four": 20.0, "gammon": 20.0, "master_game": 20.0, "five_streak": 30.0,
        "first_match": 40.0, "long_match": 40.0,
    }  # fmt: skip
    assert s["cube"] == 1  # the next game starts with the cube in the middle
    lost = fold(s, [{"type": "game_end", "player": 1, "details": {"winner": 1, "points": 1}}], {"time": 50.0})
    assert achievements(lost) == achievements(s)  # nothing is taken back
    assert achievements(s, "tr")[0]["condition"] == "Bir oyun kazan"


def test_daily_first_attempts_make_streaks_per_rule_set() -> None:
    from pulvezar.play.statistics import achievements, daily_report

    def day(date: str, correct: bool, rules: str = "international", kind: str = "position") -> dict[str, Any]:
        details = {
            "date": date,
            "rules": rules,
            "kind": kind,
            "correct": correct,
            "loss": 0.0 if correct else 0.1,
        }
        return {"type": "daily", "player": 0, "details": details}

    days = [day(f"2026-11-{d:02d}", True) for d in range(1, 8)]  # seven days in a row
    s = fold(None, days, {"time": 7.0})
    s = fold(s, [day("2026-11-08", False), day("2026-11-09", True)], {"time": 9.0})
    s = fold(s, [day("2026-10-01", True)], {"time": 10.0})  # an old puzzle solved later: no streak change
    s = fold(s, [day("2026-11-09", True, "tavla"), day("2026-11-09", True, "international", "cube")], {})
    r = daily_report(s, today="2026-11-10")
    assert r["international"] == {"tried": 10, "solved": 9, "streak": 1, "best_streak": 7, "mean_loss": 0.01}
    assert r["tavla"]["streak"] == 1 and r["cube"]["solved"] == 1
    assert daily_report(s, today="2026-11-12")["international"]["streak"] == 0  # a day passed unsolved
    reached = {a["id"]: a["reached"] for a in achievements(s) if a["reached"] is not None}
    assert reached == {"daily_first_try": 7.0, "daily_week": 7.0}
    assert s["games_played"] == 0  # dailies are not games
