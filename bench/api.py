"""Latency and throughput of the REST API under concurrent load, and the evaluator's batches under it.

    .venv/bin/python bench/api.py [--duration 10] [--clients 1,8,32] [--endpoints evaluate,hint0,hint1]

Starts its own platform on free ports of 127.0.0.1 (the Rules and Evaluator gRPC services and the
gateway, as ``make run`` would; no Redis or workers: these endpoints do not use them), then, for each
endpoint and each number of concurrent clients, runs that many ``httpx.AsyncClient`` loops for
``--duration`` seconds, each sending its next request as soon as the last one answered (closed loop).
Requests use distinct positions from random games (no cache helps) and random dice:

- ``evaluate``: ``POST /v1/evaluate`` with ``--positions`` positions (0-ply, through the Evaluator service),
- ``hint0`` / ``hint1``: ``POST /v1/hint`` at 0 and 1 ply.

Per run it prints requests, errors, throughput, latency p50/p99 and, read from the evaluator's
``/metrics`` before and after the run, the batches it ran: how many, mean boards and requests per batch
and the p50/p99 bucket of boards per batch (``pulvezar_evaluator_batch_size`` and
``pulvezar_evaluator_batch_requests``).  The load generator runs on the same machine as the services.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

KEY = "bench-key"


# ---------------------------------------------------------------------------------------- platform


class Service:
    """``python -m <module> --host 127.0.0.1 --port 0 ...`` and the port its ``listening`` log names."""

    def __init__(
        self, module: str, *args: str, env: dict[str, str] | None = None, timeout: float = 120
    ) -> None:
        cmd = [
            sys.executable,
            "-m",
            module,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--metrics-port",
            "0",
            *args,
        ]
        self.name = module.rsplit(".", 1)[-1]
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.tail: list[str] = []
        self._listening: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        try:
            entry = self._listening.get(timeout=timeout)
        except queue.Empty:
            entry = None
        if entry is None:
            self.stop()
            raise SystemExit(f"{self.name} did not start:\n" + "\n".join(self.tail[-20:]))
        self.port = int(entry["port"])
        self.metrics_port = int(entry.get("metrics_port", self.port))
        self.address = f"127.0.0.1:{self.port}"

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.tail = [*self.tail[-50:], line.rstrip()]
            with contextlib.suppress(json.JSONDecodeError, AttributeError):
                entry = json.loads(line)
                if entry.get("msg") == "listening":
                    self._listening.put(entry)
        self._listening.put(None)

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


class Uvicorn:
    """The gateway app served by uvicorn's own listening socket (``uvicorn services.gateway.app:create_app
    --factory``, the fallback of ``make run``), for comparison with ``python -m services.gateway``."""

    def __init__(self, env: dict[str, str]) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.address = f"127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "uvicorn", "services.gateway.app:create_app", "--factory"]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port), "--no-access-log", "--log-level", "warning"]
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT), **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    stop = Service.stop


def wait_ready(base: str, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{base}/readyz", timeout=2) as r:
            if r.status == 200:
                return
        time.sleep(0.2)
    raise SystemExit(f"the gateway at {base} was not ready within {timeout:.0f} s")


# ---------------------------------------------------------------------------------------- workload


def random_positions(n: int, seed: int) -> list[str]:
    """Position IDs of distinct positions from random games (the player on roll's view, game not over)."""
    from pulvezar import Rules

    rules = Rules.international()
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    pos = rules.start_position()
    while len(seen) < n:
        plays = list(rules.legal_plays(pos, (rng.randint(1, 6), rng.randint(1, 6))))
        nxt = rng.choice(plays).position.swap() if plays else pos.swap()
        if rules.game_result(nxt) is not None:
            pos = rules.start_position()
            continue
        pos = nxt
        seen.setdefault(pos.position_id, None)
    return list(seen)


@dataclass
class Endpoint:
    name: str
    path: str
    positions_per_request: int = 1
    ply: int | None = None

    def body(self, rng: random.Random, positions: list[str]) -> dict[str, Any]:
        if self.ply is None:
            return {"positions": rng.sample(positions, self.positions_per_request)}
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        return {"position": rng.choice(positions), "dice": dice, "ply": self.ply, "limit": 5}


async def run_load(
    base: str, endpoint: Endpoint, clients: int, duration: float, positions: list[str], seed: int
) -> dict[str, Any]:
    import httpx

    latencies: list[float] = []
    errors: dict[str, int] = {}
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    # TCP_NODELAY: httpx writes a POST's headers and body separately; with Nagle's algorithm the body
    # waits for the server's delayed ACK of the headers, which adds ~40 ms to every request
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    transport = httpx.AsyncHTTPTransport(limits=limits, socket_options=nodelay)
    async with httpx.AsyncClient(
        base_url=base, headers={"X-API-Key": KEY}, timeout=60, transport=transport
    ) as http:
        t0 = time.perf_counter()
        end = t0 + duration

        async def loop(i: int) -> None:
            rng = random.Random(seed * 1000 + i)
            while time.perf_counter() < end:
                body = endpoint.body(rng, positions)
                start = time.perf_counter()
                try:
                    r = await http.post(endpoint.path, json=body)
                    ok, why = r.status_code == 200, str(r.status_code)
                except httpx.HTTPError as e:
                    ok, why = False, type(e).__name__
                if ok:
                    latencies.append(time.perf_counter() - start)
                else:
                    errors[why] = errors.get(why, 0) + 1

        await asyncio.gather(*(loop(i) for i in range(clients)))
        elapsed = time.perf_counter() - t0
    latencies.sort()

    def pct(q: float) -> float:
        if not latencies:
            return float("nan")
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))]

    return {
        "endpoint": endpoint.name,
        "clients": clients,
        "requests": len(latencies),
        "errors": errors,
        "seconds": elapsed,
        "rps": len(latencies) / elapsed,
        "positions_per_s": len(latencies) * endpoint.positions_per_request / elapsed
        if endpoint.ply is None
        else None,
        "p50_ms": 1e3 * pct(0.50),
        "p99_ms": 1e3 * pct(0.99),
        "max_ms": 1e3 * latencies[-1] if latencies else float("nan"),
    }


# ---------------------------------------------------------------------------------------- metrics

_SAMPLE = re.compile(r"([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$")


def scrape(port: int) -> dict[tuple[str, str], float]:
    """``{(name, le or ""): value}`` of the evaluator's batch histograms."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    out: dict[tuple[str, str], float] = {}
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if not m or not m.group(1).startswith(
            ("pulvezar_evaluator_batch_size", "pulvezar_evaluator_batch_requests")
        ):
            continue
        le = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or "")).get("le", "")
        out[(m.group(1), le)] = float(m.group(3))
    return out


def batch_stats(before: dict[tuple[str, str], float], after: dict[tuple[str, str], float]) -> dict[str, Any]:
    def delta(key: tuple[str, str]) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)

    stats: dict[str, Any] = {}
    for short, name in (
        ("boards", "pulvezar_evaluator_batch_size"),
        ("requests", "pulvezar_evaluator_batch_requests"),
    ):
        count = delta((f"{name}_count", ""))
        total = delta((f"{name}_sum", ""))
        stats["batches"] = int(count)
        stats[f"mean_{short}"] = total / count if count else None
        buckets = sorted(
            ((float(le), delta((f"{name}_bucket", le))) for (n, le) in after if n == f"{name}_bucket" and le),
            key=lambda b: b[0],
        )

        def bucket(
            q: float, buckets: list[tuple[float, float]] = buckets, count: float = count
        ) -> float | None:
            if not count:
                return None
            for le, cum in buckets:
                if cum >= q * count:
                    return le
            return None

        stats[f"p50_{short}_le"] = bucket(0.5)
        stats[f"p99_{short}_le"] = bucket(0.99)
    return stats


# ---------------------------------------------------------------------------------------- main


def fmt(x: Any, spec: str = ".1f") -> str:
    if x is None:
        return "-"
    if isinstance(x, float) and x == float("inf"):
        return "inf"
    return format(x, spec) if isinstance(x, float) else str(x)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/api.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per endpoint and client count")
    parser.add_argument("--clients", default="1,8,32", help="concurrent clients, comma-separated")
    parser.add_argument("--endpoints", default="evaluate,hint0,hint1", help="evaluate, hint0, hint1")
    parser.add_argument("--positions", type=int, default=1, help="positions per evaluate request")
    parser.add_argument(
        "--device", default="cpu", choices=("cpu", "cuda", "auto"), help="the evaluator's device"
    )
    parser.add_argument("--model-path", help="the evaluator's model (default: the shipped net)")
    parser.add_argument("--max-wait-ms", help="the evaluator's micro-batching wait (default: its setting)")
    parser.add_argument(
        "--gateway",
        default="module",
        choices=("module", "uvicorn"),
        help="python -m services.gateway (as deployed), or uvicorn binding its own socket",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    known = {
        "evaluate": Endpoint("evaluate", "/v1/evaluate", positions_per_request=args.positions),
        "hint0": Endpoint("hint 0-ply", "/v1/hint", ply=0),
        "hint1": Endpoint("hint 1-ply", "/v1/hint", ply=1),
    }
    endpoints = [known[e] for e in args.endpoints.split(",")]
    positions = random_positions(2000, args.seed)

    services: list[Service] = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the services on SIGTERM too
    try:
        print("starting rules, evaluator and gateway ...", file=sys.stderr, flush=True)
        rules = Service("services.rules")
        services.append(rules)
        ev_args = ["--device", args.device]
        if args.model_path:
            ev_args += ["--model-path", args.model_path]
        ev_env = {"PULVEZAR_EVALUATOR_MAX_WAIT_MS": args.max_wait_ms} if args.max_wait_ms else {}
        evaluator = Service("services.evaluator", *ev_args, env=ev_env)
        services.append(evaluator)
        keys = {KEY: {"name": "bench", "rate_per_s": 1e6, "burst": 1e6}}
        gw_env = {
            "PULVEZAR_GATEWAY_API_KEYS": json.dumps(keys),
            "PULVEZAR_GATEWAY_RULES_ADDRESS": rules.address,
            "PULVEZAR_GATEWAY_EVALUATOR_ADDRESS": evaluator.address,
        }
        if args.gateway == "module":
            gateway: Service | Uvicorn = Service("services.gateway", env=gw_env)
        else:
            gateway = Uvicorn(gw_env)
        services.append(gateway)  # type: ignore[arg-type]
        base = f"http://{gateway.address}"
        wait_ready(base)
        # warm-up: the first hint loads the net into the gateway, the first evaluate warms the evaluator
        for ep in endpoints:
            asyncio.run(run_load(base, ep, 1, 1.0, positions, seed=0))

        rows = []
        for ep in endpoints:
            for n in clients:
                before = scrape(evaluator.metrics_port)
                row = asyncio.run(run_load(base, ep, n, args.duration, positions, args.seed))
                row.update(batch_stats(before, scrape(evaluator.metrics_port)))
                rows.append(row)
                print(
                    f"  {row['endpoint']:<11} {n:>3} clients: {row['rps']:8.1f} req/s"
                    f"  p50 {row['p50_ms']:7.1f} ms  p99 {row['p99_ms']:7.1f} ms"
                    f"  errors {sum(row['errors'].values())}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        for svc in reversed(services):
            svc.stop()

    head = (
        f"{'endpoint':<11} {'clients':>7} {'requests':>8} {'err':>4} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'batches':>8} {'boards/batch':>12} {'p50/p99 le':>10} {'reqs/batch':>10} {'p99 le':>6}"
    )
    print(
        f"\nPOST /v1/evaluate ({args.positions} position(s) per request) and /v1/hint;"
        f" evaluator on {args.device}; gateway: {args.gateway}; {args.duration:.0f} s per row;"
        " load generator on the same machine"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        quantiles = f"{fmt(r['p50_boards_le'], 'g')}/{fmt(r['p99_boards_le'], 'g')}"
        print(
            f"{r['endpoint']:<11} {r['clients']:>7} {r['requests']:>8} {sum(r['errors'].values()):>4}"
            f" {r['rps']:>8.1f} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} {r['batches']:>8}"
            f" {fmt(r['mean_boards']):>12} {quantiles:>10}"
            f" {fmt(r['mean_requests'], '.2f'):>10} {fmt(r['p99_requests_le'], 'g'):>6}"
        )
    print(
        "boards/batch and reqs/batch: means; 'le': the histogram bucket (upper bound) holding that quantile"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "rows": rows}, indent=2)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
