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

from pulvezar import i18n

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
    "rating": 1500.0,  # Elo-like, from the games against the bots (:func:`rated`)
    "rated_games": 0,
    "ladder": {},  # "YYYY-MM": [the rating after the month's last game, games rated that month]
    "achievements": {},  # id: when it was reached (seconds since the epoch)
    "daily": {},  # "international" | "tavla" (the daily position), "cube": first attempts (:func:`_daily`)
    "cube": 1,  # the cube of the game in play (a gammon of a game with the cube on 4 or more)
    # the player's opening plays: rules name -> roll ("31") -> play -> [games, won] (:func:`_opening`)
    "openings": {},
    "opening_game": None,  # the game in play's opening so far: {"roll", "play"} while the player opened it
}
#: the bots' ratings (the app manual's, section 5.7)
LEVEL_RATINGS = {"easy": 1200.0, "medium": 1500.0, "hard": 1700.0, "master": 1900.0}


def _names(key: str) -> dict[str, str]:
    """A name in each language of the catalogs (:mod:`pulvezar.i18n`)."""
    return {lang: i18n.t(key, lang) for lang in i18n.LANGUAGES}


#: the ranks from the lowest, with the rating each starts at, and their names (``statistics.rank.<id>``)
RANKS = tuple(
    (r, start, _names(f"statistics.rank.{r}"))
    for r, start in (("apprentice", 0.0), ("journeyman", 1300.0), ("candidate_master", 1500.0),
                     ("master", 1700.0), ("grandmaster", 1900.0))
)  # fmt: skip
#: how far one game moves the rating: 32 for a player's first 30 rated games, then 16
K_NEW, K_SETTLED, NEW_GAMES = 32.0, 16.0, 30


def rated(rating: float, opponent: float, won: bool, games: int) -> float:
    """The rating after one game against a bot rated ``opponent`` (Elo: ``R + K (S - E)``, ``E = 1 / (1 +
    10^((opponent - R) / 400))``, ``S`` 1 for a win and 0 for a loss, ``K`` as :data:`K_NEW`).

    >>> round(rated(1500, 1500, True, 0), 1), round(rated(1500, 1200, False, 40), 1)
    (1516.0, 1486.4)
    """
    expected = 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))
    k = K_NEW if games < NEW_GAMES else K_SETTLED
    return rating + k * ((1.0 if won else 0.0) - expected)


def rank(rating: float) -> tuple[str, dict[str, str]]:
    """The rank of a rating: its id and its names."""
    found = RANKS[0]
    for r in RANKS:
        if rating >= r[1]:
            found = r
    return found[0], dict(found[2])


_LEVEL = {"games_played": 0, "games_won": 0, "matches_played": 0, "matches_won": 0}


#: the twenty achievements of the app manual (section 5.7): id, and the condition in each language
#: (``statistics.achievement.<id>``)
ACHIEVEMENTS: tuple[tuple[str, dict[str, str]], ...] = tuple(
    (a, _names(f"statistics.achievement.{a}"))
    for a in ("first_win", "ten_wins", "hundred_wins", "first_match", "long_match", "gammon", "backgammon",
              "cube_four", "master_game", "master_match", "flawless_game", "low_pr", "five_streak",
              "hundred_games", "daily_first_try", "daily_week", "daily_month", "imported_match",
              "analysed_game", "deep_analysis")
)  # fmt: skip


def _reach(out: dict[str, Any], achievement: str, when: float) -> None:
    out["achievements"].setdefault(achievement, when)


def fold(
    stats: Mapping[str, Any] | None, events: Sequence[Mapping[str, Any]], context: Mapping[str, Any]
) -> dict[str, Any]:
    """The counters ``stats`` (None: :data:`EMPTY`) with ``events`` added; ``context``: the session's
    ``level`` (the bot's, or None), ``match_length`` (0: money), ``opponent_rating`` (the bot's rating:
    a game against a bot without one is not rated) and ``month`` (``YYYY-MM``, the ladder's month)."""
    out = copy.deepcopy(dict(stats) if stats else EMPTY)
    for k, v in EMPTY.items():
        out.setdefault(k, copy.deepcopy(v))
    level = str(context.get("level") or "unknown")
    by_level = out["by_level"].setdefault(level, dict(_LEVEL))
    when = float(context.get("time") or 0.0)
    for e in events:
        kind, details = e.get("type"), e.get("details") or {}
        if kind == "daily":
            _daily(out, details, when)
            continue
        _opening(out, e, str(context.get("rules") or "international"))
        if kind in ("take", "beaver", "raccoon") and details.get("cube"):
            out["cube"] = int(details["cube"])  # the cube the game is now played for
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
            if won:
                _game_won(out, outcome, level, when)
            out["cube"] = 1
            if out["games_played"] >= 100:
                _reach(out, "hundred_games", when)
            opponent = context.get("opponent_rating")
            if opponent is not None:
                out["rating"] = rated(float(out["rating"]), float(opponent), won, int(out["rated_games"]))
                out["rated_games"] += 1
                month = str(context.get("month") or "")
                if month:
                    games = out["ladder"].get(month, [0.0, 0])[1]
                    out["ladder"][month] = [out["rating"], games + 1]
        elif (
            kind == "finished"
            and details.get("reason") in ("match", "timeout", "forfeit")  # a resigned match is a loss
            and context.get("match_length")
        ):
            out["matches_played"] += 1
            by_level["matches_played"] += 1
            if details.get("winner") == HUMAN:
                out["matches_won"] += 1
                by_level["matches_won"] += 1
                _reach(out, "first_match", when)
                if int(context.get("match_length") or 0) >= 7:
                    _reach(out, "long_match", when)
                if level == "master":
                    _reach(out, "master_match", when)
    return out


def _opening(out: dict[str, Any], e: Mapping[str, Any], rules: str) -> None:
    """Follow a game's opening: the roll and the play of a game the player opened (international: won
    the opening roll; Tavla: also opened a later game as its previous winner), counted with the game's
    result at its end in ``openings[rules][roll][play] = [games, won]``."""
    kind, d, player = e.get("type"), e.get("details") or {}, e.get("player")
    game = out.get("opening_game")
    if kind == "opening" and d.get("winner") is not None:
        dice = sorted((int(x) for x in d.get("dice") or ()), reverse=True)
        tavla = rules.startswith("tavla")  # the winner rolls again
        mine = d["winner"] == HUMAN and len(dice) == 2
        out["opening_game"] = (
            {"roll": None if tavla else f"{dice[0]}{dice[1]}", "play": None} if mine else None
        )
    elif kind == "game_start":
        out["opening_game"] = {"roll": None, "play": None} if d.get("opener") == HUMAN else None
    elif game is not None and player == HUMAN and kind == "roll" and game["roll"] is None:
        a, b = sorted((int(x) for x in d["dice"]), reverse=True)
        game["roll"] = f"{a}{b}"
    elif game is not None and player == HUMAN and kind == "play" and game["roll"] and game["play"] is None:
        game["play"] = str(d.get("notation") or "")
    elif kind == "game_end":
        if game is not None and game.get("play"):
            by_roll = out["openings"].setdefault(rules, {}).setdefault(game["roll"], {})
            counts = by_roll.setdefault(game["play"], [0, 0])
            counts[0] += 1
            counts[1] += int(d.get("winner") == HUMAN)
        out["opening_game"] = None


def _day_before(date: str) -> str:
    import datetime as dt

    return (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()


def _daily(out: dict[str, Any], d: Mapping[str, Any], when: float) -> None:
    """A first attempt at a daily puzzle (``date``, ``rules``, ``kind``, ``correct``, ``loss``): its rule
    set's (or the cube kind's) counters, the streak of consecutive days solved, the achievements."""
    key = "cube" if d.get("kind") == "cube" else str(d.get("rules") or "international")
    c = out["daily"].setdefault(
        key, {"tried": 0, "solved": 0, "streak": 0, "best_streak": 0, "loss_sum": 0.0, "last_solved": None}
    )
    date = str(d["date"])
    c["tried"] += 1
    c["loss_sum"] += float(d.get("loss") or 0.0)
    if d.get("correct"):
        c["solved"] += 1
        last = c["last_solved"]
        if last is None or date > last:  # an older puzzle solved later leaves the streak alone
            c["streak"] = c["streak"] + 1 if last == _day_before(date) else 1
            c["last_solved"] = date
        c["best_streak"] = max(c["best_streak"], c["streak"])
        _reach(out, "daily_first_try", when)
        if c["streak"] >= 7:
            _reach(out, "daily_week", when)
        if c["streak"] >= 30:
            _reach(out, "daily_month", when)
    elif c["last_solved"] is None or date > c["last_solved"]:
        c["streak"] = 0


def daily_report(stats: Mapping[str, Any] | None, today: str | None = None) -> dict[str, Any]:
    """The daily counters per rule set (and ``cube``): ``tried``, ``solved``, ``streak`` (0 once a day
    after the last solved one has passed without a solution, as of ``today``), ``best_streak``,
    ``mean_loss`` (of the first attempts; None before one)."""
    out = {}
    for key, c in ((stats or {}).get("daily") or {}).items():
        streak = c["streak"]
        if today is not None and c["last_solved"] is not None and c["last_solved"] < _day_before(today):
            streak = 0
        out[key] = {
            "tried": c["tried"], "solved": c["solved"], "streak": streak, "best_streak": c["best_streak"],
            "mean_loss": c["loss_sum"] / c["tried"] if c["tried"] else None,
        }  # fmt: skip
    return out


def _game_won(out: dict[str, Any], outcome: Any, level: str, when: float) -> None:
    """The achievements a won game may reach."""
    wins = out["games_won"]
    for n, achievement in ((1, "first_win"), (10, "ten_wins"), (100, "hundred_wins")):
        if wins >= n:
            _reach(out, achievement, when)
    if outcome in ("gammon", "backgammon"):
        _reach(out, str(outcome), when)
    if out["cube"] >= 4:
        _reach(out, "cube_four", when)
    if level == "master":
        _reach(out, "master_game", when)
    if out["win_streak"] >= 5:
        _reach(out, "five_streak", when)


def achievements(stats: Mapping[str, Any] | None, language: str = "en") -> list[dict[str, Any]]:
    """The twenty achievements in the manual's order: ``id``, ``condition`` (in ``language``) and
    ``reached`` (when, seconds since the epoch; None while not reached)."""
    reached = (stats or {}).get("achievements", {})
    return [
        {"id": a, "condition": text.get(language, text["en"]), "reached": reached.get(a)}
        for a, text in ACHIEVEMENTS
    ]


def _rate(won: int, played: int) -> float | None:
    return won / played if played else None


def _months(last: str, n: int) -> list[str]:
    year, month = (int(x) for x in last.split("-"))
    out = []
    for _ in range(n):
        out.append(f"{year:04d}-{month:02d}")
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return out[::-1]


def report(
    stats: Mapping[str, Any] | None, month: str | None = None, language: str = "en", today: str | None = None
) -> dict[str, Any]:
    """The counters with what is derived from them: ``win_rate`` and ``match_win_rate`` (None before the
    first), the dice (``counts`` by number, ``total``, ``expected``: each number's share, total / 6), and
    ``rating``: its ``value``, ``rank`` (``id`` and ``name`` in ``language``, one of
    :data:`pulvezar.i18n.LANGUAGES`) and ``ladder``,
    the six months up to ``month`` (``YYYY-MM``; default: the last month with a rated game), each with the
    rating at its end and the games rated in it."""
    s = fold(stats, [], {})
    s["by_level"] = {k: v for k, v in s["by_level"].items() if v["games_played"] or v["matches_played"]}
    counts = list(s.pop("dice"))
    total = sum(counts)
    value, ladder = float(s.pop("rating")), s.pop("ladder")
    # read by pulvezar.play.progress, .exercises and the lessons routes
    for derived in ("achievements", "cube", "analysed", "types", "plan", "exercises", "lessons", "openings",
                    "opening_game"):  # fmt: skip
        s.pop(derived, None)
    s["daily"] = daily_report(s, today)
    rank_id, names = rank(value)
    months = sorted(ladder)
    last = month or (months[-1] if months else None)
    rungs = []
    if last is not None:
        before = [m for m in months if m < _months(last, 6)[0]]
        carried = ladder[before[-1]][0] if before else 1500.0
        for m in _months(last, 6):
            if m in ladder:
                carried = ladder[m][0]
            rungs.append({"month": m, "rating": round(carried, 1), "games": ladder.get(m, [0, 0])[1]})
    return {
        **s,
        "win_rate": _rate(s["games_won"], s["games_played"]),
        "match_win_rate": _rate(s["matches_won"], s["matches_played"]),
        "dice": {"counts": counts, "total": total, "expected": total / 6},
        "rating": {
            "value": round(value, 1),
            "rank": {"id": rank_id, "name": names.get(language, names["en"])},
            "ladder": rungs,
        },
    }
