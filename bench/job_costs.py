"""Admission's cost estimates against what jobs really cost: a few small jobs of each kind on a local
platform (``make run``, one worker process), estimate vs the workers' CPU time.

Each job is submitted alone and waited for; the workers' CPU time (user + system of every process of the
rollout workers, the background worker that drives books included, from ``/proc`` via psutil) is read
before and after, so the measured cost is what the job took of the fleet, dispatch and Redis round trips
included.  The estimate is what ``GET /v1/usage`` charged for it (``core_s.used`` before and after).
Prints one row per job: kind, estimate, measured, measured/estimate.

    nice -n 10 .venv/bin/python bench/job_costs.py [--platform-url URL --api-key KEY]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_platform as bp

ROOT = Path(__file__).resolve().parents[1]
START = "4HPwATDgc/ABMA"
MATCH = ROOT / "tests" / "services" / "data" / "charlot1-charlot2_7p_2025-11-08-2305.mat"


def random_positions(n: int, seed: int = 1) -> list[str]:
    """``n`` Position IDs met in random play from the start (the evaluator's cache cannot shortcut them)."""
    from pulvezar import Rules

    rng = random.Random(seed)
    rules = Rules.international()
    out: list[str] = []
    while len(out) < n:
        pos = rules.start_position()
        for _ in range(200):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = rules.legal_plays(pos, dice)
            pos = plays[rng.randrange(len(plays))].position.swap() if len(plays) else pos.swap()
            if rules.game_result(pos) is not None:
                break
            out.append(pos.position_id)
    return out[:n]


def jobs() -> list[tuple[str, str, dict[str, Any]]]:
    """(label, POST path, body) of each job measured."""
    positions = random_positions(600)
    return [
        ("rollout 0-ply", "/v1/rollouts", {"position": START, "trials": 648}),
        (
            "rollout 1-ply, truncated 2",
            "/v1/rollouts",
            {"position": START, "trials": 36, "ply": 1, "truncate": 2},
        ),
        ("rollout 31 candidates 0-ply", "/v1/rollouts", {"position": START, "dice": [3, 1], "trials": 72}),
        ("cube rollout 0-ply", "/v1/rollouts", {"position": START, "kind": "cube", "trials": 324}),
        ("batch 2 x 0-ply", "/v1/batch-rollouts", {"positions": [{"position": START}] * 2, "trials": 324}),
        (
            "analysis 0ply (7p match)",
            "/v1/analyses",
            {"file": MATCH.read_text(), "filename": MATCH.name, "level": "0ply"},
        ),
        (
            "analysis 1ply (7p match)",
            "/v1/analyses",
            {"file": MATCH.read_text(), "filename": MATCH.name, "level": "1ply"},
        ),
        (
            "analysis 2-ply (7p match)",
            "/v1/analyses",
            {"file": MATCH.read_text(), "filename": MATCH.name, "level": "2ply"},
        ),
        ("evaluations 600 x 0-ply", "/v1/evaluations", {"positions": positions, "ply": 0}),
        ("evaluations 200 x 1-ply", "/v1/evaluations", {"positions": positions[:200], "ply": 1}),
        ("evaluations 40 x 2-ply", "/v1/evaluations", {"positions": positions[:40], "ply": 2}),
        (
            "rollout 2-ply, truncated 1",
            "/v1/rollouts",
            {"position": START, "trials": 4, "ply": 2, "truncate": 1},
        ),
        (
            "deep 2 candidates, 1-ply, 36 trials",
            "/v1/deep-analyses",
            {"position": START, "dice": [3, 1], "candidates": 2, "trials": 36, "ply": 1},
        ),
        (
            "book 1 roll, 0-ply search, 72 trials",
            "/v1/opening-book/jobs",
            {"rolls": ["31"], "trials": 72, "candidates": 2, "ply": 0, "reply_ply": 0, "truncate": 4},
        ),
    ]


def worker_cpu(root_pid: int | None) -> float:
    """User + system CPU seconds of the rollout workers and the Evaluator service under ``root_pid`` (every
    process whose command line runs ``services.rollout`` or ``services.evaluator``: a worker may search
    through the service), or of every such process on the machine when None."""
    procs = psutil.Process(root_pid).children(recursive=True) if root_pid else list(psutil.process_iter())
    total = 0.0
    for p in procs:
        try:
            cmd = " ".join(p.cmdline())
            if "services.rollout" in cmd or "celery" in cmd or "services.evaluator" in cmd:
                t = p.cpu_times()
                total += t.user + t.system
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return total


def measure(api: bp.Api, root_pid: int | None, only: str | None = None) -> list[tuple[str, float, float]]:
    rows = []
    for label, path, body in jobs():
        if only and only not in label:
            continue
        time.sleep(1.0)  # the previous job's last writes
        used = api.call("GET", "/v1/usage")["core_s"]["used"]
        cpu = worker_cpu(root_pid)
        job = api.call("POST", path, body, timeout=120)
        href = job.get("href") or f"{path}/{job['id']}"
        api.wait(href, timeout=900, every=0.5)
        time.sleep(1.0)  # the workers settle (acks, records)
        spent = worker_cpu(root_pid) - cpu
        estimate = api.call("GET", "/v1/usage")["core_s"]["used"] - used
        rows.append((label, estimate, spent))
        print(f"{label:40s} estimate {estimate:9.2f}  measured {spent:8.2f}  ratio {spent / estimate:6.2f}",
              flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--platform-url", help="a running platform's gateway (default: start make run here)")
    ap.add_argument("--api-key", default=bp.LOCAL_KEY)
    ap.add_argument("--only", help="the jobs whose label holds this text (e.g. 2-ply)")
    args = ap.parse_args(argv)
    print(f"cpus={psutil.cpu_count()} {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if args.platform_url:
        measure(bp.Api(args.platform_url, args.api_key), None, args.only)
        return 0
    env = {"PULVEZAR_DAILY_ON_START": "0", "PULVEZAR_ROLLOUT_TORCH_THREADS": "1"}
    with bp.LocalPlatform("--worker-concurrency", "1", env=env) as local:
        measure(bp.Api(local.url), local.proc.pid, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
