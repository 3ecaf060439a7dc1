"""What the shared parts sustain: the numbers behind docs/scaling.md (issue 31).

Starts its own Redis and PostgreSQL on free ports (PostgreSQL as the ``postgres`` user under root) and
measures, from one client process:

- Redis: the fair scheduler's cycle per chunk (``take`` and the Celery send, then ``release``), chunk
  records written once (``SET NX``, a record of a 72-trial chunk of one candidate), job submissions
  (spec, chunk list, scheduler entry), and the memory one job takes;
- PostgreSQL: jobs recorded (``JobRecords.create``) and chunk records stored (``add_chunks`` +
  ``complete_if_done``, what a worker does per chunk);
- a worker's own rates on this machine (one core): 0-ply trials of a full game, analysis of a 7-game
  match at 2 ply.

``python bench/scaling.py [--seconds 5]``; prints a JSON object.  Absolute rates on a shared 2-core VM:
the document divides them, it does not promise them.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
AOF = ["--appendonly", "yes", "--appendfsync", "everysec"]  # as make run and compose keep Redis
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rate(fn: Callable[[int], Any], seconds: float) -> float:
    """Calls of ``fn(i)`` per second over about ``seconds``."""
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn(n)
        n += 1
    return n / (time.perf_counter() - t0)


def start_redis(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    import redis

    port = free_port()
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder), *AOF],
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            redis.Redis.from_url(url).ping()
            return proc, url
        except redis.exceptions.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError("redis-server did not start")


def start_postgres(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    found = shutil.which("initdb")
    bindir = (
        Path(found).resolve().parent if found else Path(sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1])
    )
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres", "postgres")
    subprocess.run(
        [
            *as_user,
            str(bindir / "initdb"),
            "-D",
            str(folder / "data"),
            "-U",
            "pulvezar",
            "-A",
            "trust",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
    )
    port = free_port()
    listen = ["-h", "127.0.0.1", "-p", str(port)]
    proc = subprocess.Popen(
        [*as_user, str(bindir / "postgres"), "-D", str(folder / "data"), "-k", str(folder), *listen],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        done = subprocess.run(
            [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "pulvezar", "pulvezar"],
            capture_output=True,
        )
        if done.returncode == 0:
            return proc, f"postgresql+psycopg://pulvezar@127.0.0.1:{port}/pulvezar"
        time.sleep(0.1)
    raise RuntimeError("PostgreSQL did not start")


def chunk_record() -> dict[str, Any]:
    """A record as a worker writes it: 72 trials x 5 float64 values of one candidate, and timings."""
    import numpy as np

    from services.jobs.rollout_report import encode_values

    values = np.random.default_rng(1).random((1, 72, 5))
    return {"item": 0, "first": 0, "trials": 72, **encode_values(values), "seconds": 1.5,
            "started": time.time(), "finished": time.time(), "worker": "w1:1234"}  # fmt: skip


def bench_redis(url: str, seconds: float) -> dict[str, Any]:
    import redis

    from services.jobs.broker import client
    from services.jobs.kinds.rollout import Rollouts
    from services.jobs.scheduler import FairScheduler
    from services.jobs.settings import RolloutSettings

    r = redis.Redis.from_url(url, decode_responses=True)
    settings = RolloutSettings(redis_url=url)
    app = client(settings)
    sched = FairScheduler(r, app, 30.0)
    sched.register("bench", 1_000_000, 600)
    out: dict[str, Any] = {}
    for owner in range(20):  # 20 owners with one long job each
        sched.add(f"j{owner}", range(10_000_000), task="t", queue="rollouts.batch", priority="batch",
                  owner=f"o{owner}", cancel_key=f"job:j{owner}:cancel", ttl_s=3600)  # fmt: skip

    def cycle(_: int) -> None:
        for s in sched.feed(limit=1):
            sched.release(s.job_id, s.n)

    out["scheduler chunks sent and released per s"] = round(rate(cycle, seconds))
    r.delete("rollouts.batch")
    record = json.dumps(chunk_record())
    out["chunk record bytes"] = len(record)
    out["chunk records written (SET NX) per s"] = round(
        rate(lambda i: r.set(f"job:x:chunk:{i}", record, nx=True, ex=3600), seconds)
    )
    store = Rollouts(r, app=app, settings=settings)
    start = "4HPwATDgc/ABMA"
    sched.unregister("bench")  # submissions only: nothing is sent
    out["rollout jobs submitted per s (1,296 trials, 18 chunks)"] = round(
        rate(lambda i: store.submit({"position": start, "trials": 1296, "seed": i}), seconds), 1
    )
    job = store.submit({"position": start, "trials": 1296, "seed": 1})
    keys = [k for k in r.keys(f"job:{job}:*")] + [f"sched:job:{job}"]
    for n in range(18):
        r.set(store.chunk_key(job, n), record)
        keys.append(store.chunk_key(job, n))
    out["redis bytes per finished 1,296-trial job"] = sum(int(r.memory_usage(k) or 0) for k in set(keys))
    return out


def bench_postgres(url: str, seconds: float) -> dict[str, Any]:
    from services.store import db
    from services.store.jobs import JobRecords

    db.upgrade(url)
    records = JobRecords(url)
    spec = {"kind": "rollout", "items": [{"position": "4HPwATDgc/ABMA", "trials": 1296}]}
    chunks = [[0, 72 * k, 72] for k in range(18)]
    out: dict[str, Any] = {}
    out["jobs recorded per s"] = round(
        rate(lambda i: records.create(f"job-{i}", "rollout", spec, owner="o", chunk_list=chunks), seconds), 1
    )
    record = chunk_record()
    for size in (18, 2_000, 20_000):  # a typical job, a large batch, a very large one
        chunk_list = [[0, 72 * k, 72] for k in range(size)]

        def store(i: int, size: int = size, chunk_list: list[list[int]] = chunk_list) -> None:
            job = f"chunky-{size}-{i // size}"  # a new job once the last one is complete
            if i % size == 0:
                records.create(job, "rollout", spec, owner="o", chunk_list=chunk_list)
            records.add_chunks(job, {i % size: record})
            records.complete_if_done(job)

        out[f"chunk records stored per s, job of {size} chunks (add_chunks + complete_if_done)"] = round(
            rate(store, seconds / 2), 1
        )
    return out


def bench_worker() -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    from pulvezar import Position
    from pulvezar.analysis import AnalysisSettings, analyse_match
    from pulvezar.eval.evaluator import default_evaluator
    from pulvezar.formats.mat import read_mat
    from pulvezar.rollouts import rollout

    ev = default_evaluator()
    start = Position.from_position_id("4HPwATDgc/ABMA")
    rollout(start, trials=36, evaluator=ev)  # warm
    t = time.perf_counter()
    rollout(start, trials=144, evaluator=ev, seed=2)
    per_trial = (time.perf_counter() - t) / 144
    record = read_mat((ROOT / "tests" / "formats" / "data" / "test.mat").read_bytes())
    t = time.perf_counter()
    analyse_match(record, AnalysisSettings.from_level("2ply"), evaluator=ev)
    match_s = time.perf_counter() - t
    return {
        "0-ply trials (full game, one position) per core-hour": round(3600 / per_trial),
        "7-game matches analysed at 2 ply per core-hour": round(3600 / match_s, 1),
        "seconds per 7-game match at 2 ply": round(match_s, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    a = p.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="pulvezar-scaling-"))
    folder.chmod(0o755)
    procs = []
    try:
        (folder / "redis").mkdir()
        (folder / "pg").mkdir()
        rproc, rurl = start_redis(folder / "redis")
        procs.append(rproc)
        pproc, purl = start_postgres(folder / "pg")
        procs.append(pproc)
        out = {"redis": bench_redis(rurl, a.seconds), "postgres": bench_postgres(purl, a.seconds)}
        out["worker (one core)"] = bench_worker()
        print(json.dumps(out, indent=1))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
