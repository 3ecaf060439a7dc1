"""Bot replies through the Play API, as a client meets them, against gnubg's 2-ply move in the same run.

Starts ``make run`` (:class:`bench_platform.LocalPlatform`; or ``--platform-url`` of a running one),
creates games against the master bot (2-ply checker play and cube decisions), plays the human side with
random legal actions, and times every ``POST /v1/games/{id}/actions`` whose answer holds a bot play: the
whole request (the action, the bot's search in the gateway with its evaluations in the Evaluator service,
the store's transaction).  Then gnubg-nn chooses its 2-ply move (``best_move(..., n=2)``) in the positions
the bot met, with the same dice, in this process.  Prints p50/p95/max and the ratios; the issue's target is
p95 <= 500 ms for master replies on this machine class.

    .venv/bin/python bench/games.py [--replies 120] [--level master] [--platform-url URL]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_platform import Api, LocalPlatform

from pulvezar import Position


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def play(
    api: Api, replies: int, level: str, seed: int
) -> tuple[list[float], list[tuple[str, tuple[int, int]]]]:
    """Seconds of each request answered with a bot play, and (bot's Position ID, dice) of each."""
    rng = random.Random(seed)
    times: list[float] = []
    met: list[tuple[str, tuple[int, int]]] = []
    while len(times) < replies:
        st = api.call("POST", "/v1/games", {"match_length": 7, "bot": {"level": level}})
        while st["status"] == "playing" and len(times) < replies:
            acts = st["actions"]
            if "play" in acts:
                action: dict[str, Any] = {
                    "action": "play",
                    "notation": rng.choice(st["legal_plays"])["notation"],
                }
            elif "take" in acts:
                action = {"action": "take"}
            elif "roll" in acts:
                action = {"action": "roll"}
            else:
                action = {"action": acts[0]}
            t0 = time.perf_counter()
            st = api.call("POST", f"/v1/games/{st['id']}/actions", action)
            dt = time.perf_counter() - t0
            events = st.pop("events")
            bot_plays = [e for e in events if e["type"] == "play" and e["player"] == 1]
            if bot_plays:
                times.append(dt)
                rolls = [e for e in events if e["type"] in ("roll", "opening") and e["player"] in (1, None)]
                if rolls and rolls[-1]["type"] == "roll":
                    met.append((_before(events), tuple(rolls[-1]["details"]["dice"])))  # type: ignore[arg-type]
    return times, met


def _before(events: list[dict[str, Any]]) -> str:
    """The Position ID the bot played from: the position after the human's last play, seen by the bot."""
    plays = [e for e in events if e["type"] == "play" and e["player"] == 0]
    if plays:
        return str(plays[-1]["details"]["position_id"])
    return ""


def gnubg_times(met: list[tuple[str, tuple[int, int]]]) -> list[float] | None:
    try:
        import gnubg_nn
    except ImportError:
        return None
    out = []
    for pid, (d1, d2) in met:
        if not pid:
            continue
        pos = Position.from_position_id(pid)  # the human's view after its play: the bot is "theirs"
        board = [list(pos.mine), list(pos.theirs)]  # best_move: the player on roll second
        t0 = time.perf_counter()
        gnubg_nn.best_move(board, d1, d2, n=2, b=1)
        out.append(time.perf_counter() - t0)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--replies", type=int, default=120)
    ap.add_argument("--level", default="master")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--platform-url", default=None)
    args = ap.parse_args(argv)
    platform = None if args.platform_url else LocalPlatform()
    try:
        api = Api(args.platform_url or platform.url)  # type: ignore[union-attr]
        play(api, 6, args.level, args.seed + 100)  # warm-up: the gateway's first search, the service's net
        times, met = play(api, args.replies, args.level, args.seed)
    finally:
        if platform is not None:
            platform.stop()
    ms = [1000 * t for t in times]
    print(f"{args.level} bot replies through the API: n={len(ms)}")
    print(
        f"  p50 {pct(ms, 0.5):.0f} ms, p95 {pct(ms, 0.95):.0f} ms, max {max(ms):.0f} ms"
        " (target p95 <= 500 ms)"
    )
    g = gnubg_times(met)
    if g:
        gms = [1000 * t for t in g]
        print(f"gnubg-nn best_move 2-ply in the same positions: n={len(gms)}")
        print(f"  p50 {pct(gms, 0.5):.0f} ms, p95 {pct(gms, 0.95):.0f} ms")
        print(f"ratio p50 API / gnubg: {pct(ms, 0.5) / max(pct(gms, 0.5), 1e-3):.1f}")
        print("  (gnubg: the move alone in process; the API: request, search, evaluator service, store)")
    print(f"median of all: {statistics.median(ms):.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
