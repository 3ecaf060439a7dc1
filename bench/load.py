"""``make load``: a realistic client mix against ``make run``, and a 2-ply hint's CPU through the gateway.

    .venv/bin/python bench/load.py [--url URL --key KEY [--attach PID]] [--clients 8,32] [--duration 60]
                                   [--cpu-hints 30] [--cpu-concurrency 8] [--json PATH]

Without ``--url`` it starts ``make run``'s platform (``deploy/local/run.py``, every service on free ports of
127.0.0.1, a fresh run directory, no daily puzzles at start) with one API key whose rate limit and job
quotas are high enough that the platform is measured, not the limiter; with ``--url`` it drives that
gateway instead (loopback only; RSS and CPU are read when ``--attach`` gives the pid of its ``run.py``).

The mix (Locust, closed loop: each client sends its next request when the last one answered), by weight:
legal plays 25, position lookups 15, 0-ply evaluations 10, 0-ply hints 20, 2-ply hints 10, games against
the bot 5 (start, roll, play, and the game's event stream read to its first events), rollout jobs 3
(submit a small truncated rollout, poll it until it is done).  Positions come from seeded random games.
Each client-count runs ``--duration`` seconds; it prints requests/s, p50/p99 per route, answers by status
(server errors apart from 429s) and the RSS of the gateway, evaluator and workers at its start and end.

``--cpu-hints N`` first sends N 2-ply hints one at a time through the gateway, then N others
``--cpu-concurrency`` at a time, and reads the CPU seconds of the gateway and evaluator processes (psutil)
before and after each set, then times the same hints in the library (``pulvezar.search.hint`` in a fresh
process, ``time.process_time``): the ratio is the deployed path's CPU per hint over the library's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import gevent  # locust's import patches the standard library for gevent: it comes before the rest
import gevent.pool
from locust import FastHttpUser, constant, events, task
from locust.env import Environment

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "deploy" / "local" / "run.py"
KEY = "load-key"
# high enough that the limiter and the daily quotas never answer: the platform is what is measured
KEY_LIMITS = {
    "name": "load",
    "rate_per_s": 100_000,
    "burst": 100_000,
    "daily_jobs": 1_000_000,
    "max_running_jobs": 10_000,
}
ROUTES = {  # process name in the platform -> what its command line holds
    "gateway": "services.gateway",
    "evaluator": "services.evaluator",
    "rules": "services.rules",
    "workers": "celery",
}


# ---------------------------------------------------------------------------------------- platform


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Platform:
    """``deploy/local/run.py`` on free ports in a fresh run directory; stopped with SIGINT, as Ctrl-C."""

    def __init__(self, run_dir: Path, timeout: float = 300) -> None:
        self.port = free_port()
        cmd = [sys.executable, str(RUN), "--run-dir", str(run_dir), "--device", "cpu", "--any-ports"]
        for name in ("redis", "rules", "evaluator"):
            cmd += [f"--{name}-port", str(free_port())]
        cmd += ["--gateway-port", str(self.port)]
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "PULVEZAR_GATEWAY_API_KEYS": json.dumps({KEY: KEY_LIMITS}),
            "PULVEZAR_DAILY_ON_START": os.environ.get("PULVEZAR_DAILY_ON_START", "0"),  # 1: as make run
        }
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.output: list[str] = []
        up = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.output.append(line)
                if line.startswith("pulvezar is up"):
                    up.set()
            up.set()

        threading.Thread(target=read, daemon=True).start()
        if not up.wait(timeout) or self.proc.poll() is not None:
            self.stop()
            raise SystemExit("make run did not come up:\n" + "".join(self.output[-40:]))

    def processes(self) -> dict[str, list[Any]]:
        return processes(self.proc.pid)

    def stop(self) -> None:
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Attached:
    """A platform started elsewhere (``--attach``): its ``run.py`` process id and its gateway's URL."""

    def __init__(self, pid: int, url: str) -> None:
        self.pid, self.url = pid, url

    def processes(self) -> dict[str, list[Any]]:
        return processes(self.pid)

    def stop(self) -> None:
        """Left running: whoever started it stops it."""


def processes(pid: int) -> dict[str, list[Any]]:
    """The processes under ``run.py``'s ``pid`` by service (a worker's forked children included)."""
    import psutil

    found: dict[str, list[Any]] = {name: [] for name in ROUTES}
    for p in psutil.Process(pid).children(recursive=True):
        try:
            line = " ".join(p.cmdline())
        except psutil.Error:
            continue
        for name, mark in ROUTES.items():
            if mark in line:
                found[name].append(p)
                break
    return found


def rss_mb(procs: dict[str, list[Any]]) -> dict[str, float]:
    import psutil

    out = {}
    for name, ps in procs.items():
        total = 0
        for p in ps:
            with contextlib.suppress(psutil.Error):
                total += p.memory_info().rss
        out[name] = round(total / 2**20, 1)
    return out


def cpu_s(procs: list[Any]) -> float:
    total = 0.0
    for p in procs:
        t = p.cpu_times()
        total += t.user + t.system
    return total


# ---------------------------------------------------------------------------------------- workload


def random_positions(n: int, seed: int) -> list[tuple[str, list[int]]]:
    """(Position ID, dice) of distinct positions from seeded random games (``bench/api.py``'s sampler)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import api

    rng = random.Random(seed)
    return [(p, [rng.randint(1, 6), rng.randint(1, 6)]) for p in api.random_positions(n, seed)]


LIBRARY_CPU = """
import json, sys, time
from pulvezar import Position, Rules
from pulvezar.eval.evaluator import default_evaluator
from pulvezar.search import hint
sets = json.loads(sys.stdin.read())
ev = default_evaluator()
hint(Position.start(), (3, 1), ply=2, evaluator=ev)  # warm: kernels, tables
out = []
for cases in sets:
    t0 = time.process_time()
    for pid, dice in cases:
        hint(Position.from_position_id(pid), tuple(dice), ply=2, rules=Rules.international(), evaluator=ev)
    out.append(time.process_time() - t0)
print(json.dumps(out))
"""


def cpu_per_hint(
    url: str, key: str, platform: Platform | Attached, n: int, seed: int, concurrency: int = 8
) -> dict[str, float]:
    """CPU seconds per 2-ply hint: gateway + evaluator processes, and the library alone (see the notes);
    ``n`` hints one at a time, then ``n`` others ``concurrency`` at a time."""
    import httpx

    cases = random_positions(2 * n, seed + 1)
    sets = [cases[:n], cases[n:]]
    procs = platform.processes()
    deployed = procs["gateway"] + procs["evaluator"]
    used, split = [], []
    with httpx.Client(base_url=url, headers={"X-API-Key": key}, timeout=60) as http:

        def one(case: tuple[str, list[int]]) -> None:
            pid, dice = case
            http.post("/v1/hint", json={"position": pid, "dice": dice, "ply": 2}).raise_for_status()

        one(("4HPwATDgc/ABMA", [3, 1]))  # warm
        for at_once, hints in zip((1, concurrency), sets, strict=True):
            time.sleep(1)
            start, parts = cpu_s(deployed), [cpu_s(procs[k]) for k in ("gateway", "evaluator")]
            gevent.pool.Pool(at_once).map(one, hints)
            used.append(cpu_s(deployed) - start)
            split.append([cpu_s(procs[k]) - s for k, s in zip(("gateway", "evaluator"), parts, strict=True)])
    lib = subprocess.run(
        [sys.executable, "-c", LIBRARY_CPU],
        input=json.dumps(sets),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    library = json.loads(lib.stdout.strip().splitlines()[-1])
    return {
        "hints": n,
        "deployed_cpu_per_hint_s": used[0] / n,
        "gateway_cpu_per_hint_s": split[0][0] / n,  # of which the gateway's (HTTP, JSON, explanation)
        "evaluator_cpu_per_hint_s": split[0][1] / n,  # and the evaluator service's (the search, gRPC)
        "library_cpu_per_hint_s": library[0] / n,
        "ratio": used[0] / library[0],
        "concurrency": concurrency,
        "concurrent_cpu_per_hint_s": used[1] / n,
        "concurrent_library_cpu_per_hint_s": library[1] / n,
        "concurrent_ratio": used[1] / library[1],
    }


def run_mix(url: str, key: str, clients: int, duration: float, seed: int) -> dict[str, Any]:
    """``clients`` Locust users on the mix for ``duration`` seconds; per-route figures and statuses."""
    cases = random_positions(400, seed)
    statuses: dict[str, dict[int, int]] = {}

    class Client(FastHttpUser):
        host = url
        wait_time = constant(0)

        def on_start(self) -> None:
            self.rng = random.Random(seed + id(self))

        def _case(self) -> tuple[str, list[int]]:
            return self.rng.choice(cases)

        def _post(self, path: str, body: object, name: str) -> Any:
            return self.client.post(path, json=body, name=name, headers={"X-API-Key": key})

        def _get(self, path: str, name: str, **kw: Any) -> Any:
            return self.client.get(path, name=name, headers={"X-API-Key": key}, **kw)

        @task(25)
        def legal_plays(self) -> None:
            pid, dice = self._case()
            self._post("/v1/legal-plays", {"position": pid, "dice": dice}, "POST /v1/legal-plays")

        @task(15)
        def position(self) -> None:
            pid, _ = self._case()
            self._get(f"/v1/positions/{pid}", "GET /v1/positions/{position}")

        @task(10)
        def evaluate(self) -> None:
            self._post("/v1/evaluate", {"positions": [self._case()[0]]}, "POST /v1/evaluate")

        @task(20)
        def hint0(self) -> None:
            pid, dice = self._case()
            self._post("/v1/hint", {"position": pid, "dice": dice, "ply": 0}, "POST /v1/hint ply 0")

        @task(10)
        def hint2(self) -> None:
            pid, dice = self._case()
            self._post("/v1/hint", {"position": pid, "dice": dice, "ply": 2}, "POST /v1/hint ply 2")

        @task(5)
        def game(self) -> None:
            r = self._post("/v1/games", {"bot": {"level": "easy"}}, "POST /v1/games")
            if r.status_code != 201:
                return
            game = r.json()
            href = game["href"]
            for _ in range(3):
                actions = game.get("actions") or []
                if "roll" in actions:
                    action: dict[str, Any] = {"action": "roll"}
                elif "play" in actions and game.get("legal_plays"):
                    first = game["legal_plays"][0]
                    action = {
                        "action": "play",
                        "notation": first if isinstance(first, str) else first["notation"],
                    }
                else:
                    break
                r = self._post(f"{href}/actions", action, "POST /v1/games/{id}/actions")
                if r.status_code != 200:
                    break
                game = r.json()
            with self.client.get(
                f"{href}/events", name="GET /v1/games/{id}/events", headers={"X-API-Key": key}, stream=True
            ) as s:
                if s.status_code == 200:
                    s.stream.read(512)  # the first events; then the client goes away

        @task(3)
        def rollout(self) -> None:
            pid, _ = self._case()
            body = {"position": pid, "trials": 36, "truncate": 2, "seed": self.rng.randrange(1 << 30)}
            r = self._post("/v1/rollouts", body, "POST /v1/rollouts")
            if r.status_code not in (200, 201, 202):
                return
            href = r.json().get("href")
            for _ in range(60):
                got = self._get(href, "GET /v1/rollouts/{job_id}")
                if got.status_code != 200 or got.json().get("state") in ("done", "failed", "cancelled"):
                    return
                gevent.sleep(0.25)

    env = Environment(user_classes=[Client], events=events, stop_timeout=60)  # stop lets tasks finish

    def on_request(name: str, response: Any = None, exception: Any = None, **_: Any) -> None:
        code = getattr(response, "status_code", 0) or 0
        statuses.setdefault(name, {}).setdefault(code, 0)
        statuses[name][code] += 1

    env.events.request.add_listener(on_request)
    runner = env.create_local_runner()
    t0 = time.monotonic()
    runner.start(clients, spawn_rate=clients)
    gevent.sleep(duration)
    runner.stop()
    runner.quit()
    elapsed = time.monotonic() - t0
    total = env.stats.total
    routes = {}
    for entry in sorted(env.stats.entries.values(), key=lambda e: e.name):
        routes[entry.name] = {
            "requests": entry.num_requests,
            "p50_ms": entry.get_response_time_percentile(0.5),
            "p99_ms": entry.get_response_time_percentile(0.99),
            "statuses": {str(k): v for k, v in sorted(statuses.get(entry.name, {}).items())},
        }
    codes: dict[int, int] = {}
    for per in statuses.values():
        for k, v in per.items():
            codes[k] = codes.get(k, 0) + v
    return {
        "clients": clients,
        "duration_s": duration,
        "requests": total.num_requests,
        "requests_per_s": total.num_requests / elapsed,
        "server_errors": sum(v for k, v in codes.items() if k >= 500 or k == 0),
        "rate_limited": codes.get(429, 0),
        "client_errors": sum(v for k, v in codes.items() if 400 <= k < 500 and k != 429),
        "routes": routes,
    }


def show(mix: dict[str, Any]) -> None:
    print(
        f"\n{mix['clients']} clients, {mix['duration_s']:.0f} s: {mix['requests']} requests, "
        f"{mix['requests_per_s']:.1f} requests/s, server errors {mix['server_errors']}, "
        f"429s {mix['rate_limited']}, other 4xx {mix['client_errors']}"
    )
    print(f"  {'route':<34} {'n':>6} {'p50 ms':>8} {'p99 ms':>8}  statuses")
    for name, r in mix["routes"].items():
        print(f"  {name:<34} {r['requests']:>6} {r['p50_ms']:>8.0f} {r['p99_ms']:>8.0f}  {r['statuses']}")
    if "rss_mb_start" in mix:
        print(f"  RSS MB at start {mix['rss_mb_start']}, at end {mix['rss_mb_end']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running gateway (loopback); default: start make run's platform")
    parser.add_argument("--key", default=KEY, help="the API key for --url")
    parser.add_argument(
        "--attach", type=int, metavar="PID", help="with --url: the pid of the run.py serving it (RSS, CPU)"
    )
    parser.add_argument("--clients", default="8,32", help="client counts, one run each")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per client count")
    parser.add_argument("--cpu-hints", type=int, default=30, help="2-ply hints for the CPU ratio (0: none)")
    parser.add_argument("--cpu-concurrency", type=int, default=8, help="then as many hints at a time")
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument(
        "--run-dir", type=Path, help="make run's run directory (its logs); default: temporary"
    )
    args = parser.parse_args(argv)
    if args.url and not args.url.startswith(("http://127.", "http://localhost", "http://[::1]")):
        parser.error("--url must be a loopback address")
    result: dict[str, Any] = {"mixes": []}
    with tempfile.TemporaryDirectory(prefix="pulvezar-load-") as tmp:
        platform: Platform | Attached | None
        if args.url:
            platform = Attached(args.attach, args.url) if args.attach else None
            url, key = args.url, args.key
        else:
            platform = Platform(args.run_dir or Path(tmp) / "run")
            url, key = platform.url, KEY
        try:
            if platform is not None and args.cpu_hints:
                result["cpu"] = cpu_per_hint(
                    url, key, platform, args.cpu_hints, args.seed, args.cpu_concurrency
                )
                c = result["cpu"]
                print(
                    f"2-ply hint CPU: gateway+evaluator {c['deployed_cpu_per_hint_s'] * 1e3:.1f} ms "
                    f"(gateway {c['gateway_cpu_per_hint_s'] * 1e3:.1f}, evaluator "
                    f"{c['evaluator_cpu_per_hint_s'] * 1e3:.1f}), "
                    f"library {c['library_cpu_per_hint_s'] * 1e3:.1f} ms per hint: ratio {c['ratio']:.2f} "
                    f"({c['hints']} hints one at a time); {c['concurrency']} at a time "
                    f"{c['concurrent_cpu_per_hint_s'] * 1e3:.1f} ms against "
                    f"{c['concurrent_library_cpu_per_hint_s'] * 1e3:.1f} ms: "
                    f"ratio {c['concurrent_ratio']:.2f}"
                )
            for clients in (int(c) for c in args.clients.split(",") if c):
                start = rss_mb(platform.processes()) if platform is not None else None
                mix = run_mix(url, key, clients, args.duration, args.seed)
                if platform is not None:
                    mix["rss_mb_start"], mix["rss_mb_end"] = start, rss_mb(platform.processes())
                result["mixes"].append(mix)
                show(mix)
        finally:
            if platform is not None:
                platform.stop()
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
