"""A player's statistics read with 10,000 games recorded (issue 29: under 50 ms p99).

    .venv/bin/python bench/learner_stats.py [--games 10000] [--analysed 300] [--reads 500]

Starts the platform as ``make run`` does (``bench_platform.LocalPlatform``: its SQLite store in a temporary
run directory; no worker is needed), makes a player over the API, and records ``--games`` finished one-point
games for it through the store's own write path (``GameRecords.create`` with each game's events: the rolls,
the game's end and the match's end, folded into the counters and the player's archive in the game's
transaction, as the Play API saves them), plus ``--analysed`` analysed matches folded into the counters
(``pulvezar.play.progress.fold_match``; their PR trend and mistakes by position type).  Then it reads, over
HTTP one request at a time, ``GET /v1/players/{id}/statistics`` (``--reads`` times) and the achievements,
archive page and weekly plan, and prints p50 / p90 / p99 / max.

The reference is the design the counters replace, measured in the same run: reading the player's events
from the same database and folding them all for each request (``pulvezar.play.statistics.fold``), printed
with its time and the ratio.  gnubg keeps no learner's record, so there is no gnubg column here.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from bench_platform import LOCAL_KEY, Api, LocalPlatform  # noqa: E402

LEVELS = ("easy", "medium", "hard", "master")
TYPES = ("opening", "race", "bear-off", "blitz", "backgame", "prime", "holding", "contact")


def game_events(rng: random.Random) -> tuple[list[dict[str, Any]], bool]:
    """A one-point game's events as a session makes them: rolls of both sides, the end, the match's end."""
    events: list[dict[str, Any]] = [{"type": "opening", "player": None, "details": {"dice": [3, 1]}}]
    for turn in range(rng.randint(30, 60)):
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        events.append({"type": "roll", "player": turn % 2, "details": {"dice": dice}})
        events.append({"type": "play", "player": turn % 2, "details": {"notation": "8/5 6/5"}})
    won = rng.random() < 0.5
    outcome = rng.choices(["single", "gammon", "backgammon"], [0.75, 0.22, 0.03])[0]
    points = {"single": 1, "gammon": 2, "backgammon": 3}[outcome]
    winner = 0 if won else 1
    events.append({"type": "game_end", "player": winner, "details": {"winner": winner, "points": points,
                                                                       "outcome": outcome}})  # fmt: skip
    events.append({"type": "finished", "player": None, "details": {"reason": "match", "winner": winner}})
    return events, won


def fill(url: str, player_id: str, games: int, analysed: int, seed: int) -> float:
    """Record the games and analyses; seconds taken."""
    from pulvezar.play.progress import fold_match
    from services.store.db import session
    from services.store.games import GameRecords
    from services.store.models import PlayerRow

    rng = random.Random(seed)
    records = GameRecords(url)
    t0 = time.perf_counter()
    for n in range(games):
        events, _ = game_events(rng)
        level = rng.choice(LEVELS)
        summary = {"rules": "international", "match_length": 1, "bot": {"level": level}, "score": [0, 0]}
        records.create(f"gbench{n:08d}", None, {}, summary, "finished", events, player_id=player_id)
        if n and n % 2000 == 0:
            print(f"  {n} games recorded ({time.perf_counter() - t0:.0f} s)", flush=True)
    with session(url) as s:
        row = s.get(PlayerRow, player_id)
        assert row is not None
        stats = row.stats
        for m in range(analysed):
            part = {
                "pr": rng.uniform(2, 15), "decisions": 60, "source": "import", "ref": f"job:bench:{m}",
                "games": [{"types": {rng.choice(TYPES): [rng.randint(5, 30), rng.uniform(0, 0.5), 2]
                                     for _ in range(3)}, "flawless": False}],
            }  # fmt: skip
            stats = fold_match(stats, part, time.time())
        row.stats = stats
    return time.perf_counter() - t0


def timed_get(api: Api, path: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        req = urllib.request.Request(api.url + path, headers={"X-API-Key": api.key})
        t0 = time.perf_counter()
        with urllib.request.urlopen(req, timeout=30) as r:
            json.loads(r.read())
        out.append((time.perf_counter() - t0) * 1000)
    return out


def refold(url: str, player_id: str) -> float:
    """The design the counters replace: one read of all the player's events, folded; ms."""
    from sqlalchemy import select

    from pulvezar.play.statistics import fold, report
    from services.store.db import session
    from services.store.models import GameEvent, GameRow

    t0 = time.perf_counter()
    with session(url) as s:
        q = select(GameEvent.event).join(GameRow, GameRow.id == GameEvent.game_id)
        q = q.where(GameRow.player_id == player_id).order_by(GameEvent.game_id, GameEvent.seq)
        events = list(s.scalars(q))
    report(fold(None, events, {"level": "easy", "match_length": 1}))
    return (time.perf_counter() - t0) * 1000


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--analysed", type=int, default=300)
    ap.add_argument("--reads", type=int, default=500)
    ap.add_argument("--seed", type=int, default=29)
    args = ap.parse_args()
    # the local key without its rate limit: the reads come one after another, as fast as they are answered
    keys = {LOCAL_KEY: {"name": "bench", "rate_per_s": 100_000, "burst": 100_000}}
    with LocalPlatform("--no-worker", env={"PULVEZAR_GATEWAY_API_KEYS": json.dumps(keys)}) as platform:
        api = Api(platform.url, LOCAL_KEY)
        url = f"sqlite:///{platform.run_dir / 'pulvezar.db'}"
        player = api.call("POST", "/v1/players", {"name": "bench"})
        print(f"platform up ({platform.url}); recording {args.games} games for {player['id']}", flush=True)
        took = fill(url, player["id"], args.games, args.analysed, args.seed)
        stats = api.call("GET", f"/v1/players/{player['id']}/statistics")
        assert stats["games_played"] == args.games, stats["games_played"]
        print(f"recorded {args.games} games and {args.analysed} analysed matches in {took:.0f} s")
        timed_get(api, f"/v1/players/{player['id']}/statistics", 20)  # warm up
        print(f"{'GET':<44} {'p50':>7} {'p90':>7} {'p99':>7} {'max':>7}  (ms, {args.reads} reads)")
        rows = {}
        for name, path in (
            ("statistics", "/statistics"),
            ("achievements", "/achievements"),
            ("matches (archive, 50)", "/matches?limit=50"),
            ("plan", "/plan"),
        ):
            ms = timed_get(api, f"/v1/players/{player['id']}{path}", args.reads)
            rows[name] = ms
            print(f"/v1/players/{{id}}{path:<28} {pct(ms, 0.5):7.1f} {pct(ms, 0.9):7.1f} "
                  f"{pct(ms, 0.99):7.1f} {max(ms):7.1f}")  # fmt: skip
        refolds = [refold(url, player["id"]) for _ in range(5)]
        p99 = pct(rows["statistics"], 0.99)
        mean = statistics.mean(rows["statistics"])
        print(
            f"reference, all events read and folded per request: {statistics.median(refolds):.0f} ms "
            f"(median of 5; {statistics.median(refolds) / mean:.0f}x the counters' mean {mean:.1f} ms)"
        )
        print(f"target p99 < 50 ms: {'met' if p99 < 50 else 'NOT met'} ({p99:.1f} ms)")


if __name__ == "__main__":
    main()
