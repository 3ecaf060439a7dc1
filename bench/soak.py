"""A bounded soak of the platform as ``make run`` starts it: mixed traffic for ``--duration`` seconds.

    .venv/bin/python bench/soak.py --duration 600 --clients 4

Starts ``deploy/local/run.py`` (SQLite store, background worker with the daily puzzles, one rollout worker)
on free ports, then ``--clients`` threads send requests back to back, each drawn at random with the weights
below: legal plays, 0-ply evaluation, 0- and 1-ply hints, cube decisions, small rollout jobs (72 trials,
polled to the end), one-game match analyses at 0 ply (polled to the end), job lists with a cursor and job
status reads. Only loopback traffic; the run stops by itself.

It prints per kind of request: count, errors (any status >= 500, and unexpected 4xx), p50 and p99 latency
(for jobs: submission to done), and the resident memory of every process of the platform at the start
and at the end (psutil).  ``make run`` is stopped with Ctrl-C at the end and its exit code printed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import bench_platform as bp

ROOT = Path(__file__).resolve().parents[1]
MATCH = ROOT / "tests" / "services" / "data" / "match1495872.txt"  # 1 point, 1 game
START = "4HPwATDgc/ABMA"
WEIGHTS = {
    "legal-plays": 20,
    "evaluate": 20,
    "hint0": 15,
    "hint1": 5,
    "cube": 10,
    "rollout": 4,
    "analysis": 1,
    "list": 10,
    "status": 15,
}


def positions(n: int, seed: int) -> list[str]:
    """Position IDs of random games (both sides on roll, contact and races)."""
    from pulvezar import Position, Rules

    rng, rules, out = random.Random(seed), Rules.international(), []
    p = Position.start()
    while len(out) < n:
        plays = rules.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
        after = plays[rng.randrange(len(plays))].position.swap()
        if rules.game_result(after.swap()):
            p = Position.start()
            continue
        out.append(after.position_id)
        p = after
    return out


class Soak:
    def __init__(self, api: bp.Api, ids: list[str], seed: int) -> None:
        self.api, self.ids = api, ids
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, list[str]] = defaultdict(list)
        self.jobs: list[str] = []

    def one(self, kind: str, rng: random.Random) -> None:
        pid = rng.choice(self.ids)
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        t0 = time.perf_counter()
        try:
            if kind == "legal-plays":
                self.api.call("POST", "/v1/legal-plays", {"position": pid, "dice": dice})
            elif kind == "evaluate":
                self.api.call("POST", "/v1/evaluate", {"positions": [pid]})
            elif kind in ("hint0", "hint1"):
                self.api.call("POST", "/v1/hint", {"position": pid, "dice": dice, "ply": int(kind[-1])})
            elif kind == "cube":
                self.api.call("POST", "/v1/cube-decision", {"position": pid})
            elif kind == "rollout":
                status, _ = self.api.rollout(
                    {"position": pid, "trials": 72, "seed": rng.randrange(1000)}, 600
                )
                with self.lock:
                    self.jobs.append(status["job_id"] if "job_id" in status else status["id"])
            elif kind == "analysis":
                self.api.analysis({"file": MATCH.read_text(), "filename": MATCH.name, "level": "0ply"}, 600)
            elif kind == "list":
                page = self.api.call("GET", "/v1/jobs?limit=5")
                if page["next_cursor"]:
                    self.api.call("GET", f"/v1/jobs?limit=5&cursor={page['next_cursor']}")
            elif kind == "status":
                with self.lock:
                    job = rng.choice(self.jobs) if self.jobs else None
                if job is None:
                    return  # nothing to read yet: not counted
                self.api.call("GET", f"/v1/rollouts/{job}")
        except Exception as e:
            with self.lock:
                self.errors[kind].append(str(e)[:300])
            return
        with self.lock:
            self.latency[kind].append(time.perf_counter() - t0)

    def client(self, end: float, seed: int) -> None:
        rng = random.Random(seed)
        kinds, weights = zip(*WEIGHTS.items(), strict=True)
        while time.monotonic() < end:
            self.one(rng.choices(kinds, weights)[0], rng)


def memory(platform: bp.LocalPlatform) -> dict[str, float]:
    """Resident MiB of every process of the platform, by its command (the supervisor's children)."""
    import psutil

    out: dict[str, float] = {}
    for p in psutil.Process(platform.proc.pid).children(recursive=True):
        try:
            cmd = " ".join(p.cmdline())
            name = next(
                (n for n in ("redis", "rules", "evaluator", "gateway", "background", "rollout") if n in cmd),
                p.name(),
            )
            if "ForkPoolWorker" in cmd or p.parent().pid != platform.proc.pid:
                name += " (pool)"
            out[name] = out.get(name, 0.0) + p.memory_info().rss / 2**20
        except psutil.Error:
            continue
    return out


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=600.0)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    ids = positions(500, args.seed)
    with bp.LocalPlatform() as platform:
        api = bp.Api(platform.url)
        time.sleep(2)
        before = memory(platform)
        soak = Soak(api, ids, args.seed)
        end = time.monotonic() + args.duration
        t0 = time.perf_counter()
        threads = [
            threading.Thread(target=soak.client, args=(end, args.seed * 100 + i)) for i in range(args.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        after = memory(platform)
        code = platform.stop()
    total = sum(len(v) for v in soak.latency.values())
    errors = sum(len(v) for v in soak.errors.values())
    print(f"soak: {wall:.0f} s, {args.clients} clients, {total} requests and jobs done, {errors} errors")
    print(f"{'kind':<12} {'done':>6} {'errors':>6} {'p50 ms':>9} {'p99 ms':>9} {'mean ms':>9}")
    for kind in WEIGHTS:
        xs = soak.latency.get(kind, [])
        mean = statistics.fmean(xs) * 1e3 if xs else float("nan")
        print(
            f"{kind:<12} {len(xs):>6} {len(soak.errors.get(kind, [])):>6} "
            f"{pct(xs, 0.5) * 1e3:>9.1f} {pct(xs, 0.99) * 1e3:>9.1f} {mean:>9.1f}"
        )
    for kind, msgs in soak.errors.items():
        print(f"  {kind} errors, first: {msgs[0]}")
    print(f"{'process':<22} {'RSS MiB start':>14} {'end':>8}")
    for name in sorted(set(before) | set(after)):
        print(f"{name:<22} {before.get(name, 0):>14.0f} {after.get(name, 0):>8.0f}")
    print(f"make run stopped with exit code {code}")
    return 0 if errors == 0 and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
