"""Rollout speed: pulvezar (one process) vs Debian gnubg's own rollout, in one run.

The position after the opening 3-1 (8/5 6/5) with the opponent on roll, 0-ply
move choice, cubeless, variance reduction, seed 1.  gnubg prints rollout
results only to a terminal, so it runs under a pseudo-terminal.

    .venv/bin/python bench/rollout.py --trials 1296     # gnubg alone takes ~100 s
    .venv/bin/python bench/rollout.py --trials 144
    .venv/bin/python bench/rollout.py --trials 144 --workers 2

``--concurrent`` runs gnubg at the same time as pulvezar (one core each), so that both see the
same machine load: fairer on a shared, noisy machine than one after the other.

``--platform`` measures the path users meet: the same rollout submitted as a job (``POST /v1/rollouts``)
to the platform as ``make run`` starts it (``deploy/local/run.py``, started here twice: with one worker
process, then two), beside the library's in-process rate for the same chunks (``rollout_chunked``, one
process) and gnubg's, all in this run; it checks that the job's numbers equal the library's and prints the
ratios the platform is held to (job / in-process >= 0.8, two workers / one >= 1.6, job / gnubg >= 1.0).
``--analysis FILE`` (with ``--platform``) also times a match analysis job against ``analyse_match`` in
process.  ``--platform-url URL`` submits to a platform that is already running (compose) instead.

    .venv/bin/python bench/rollout.py --platform --trials 1296 \
        --analysis ../shared/data/matches/kevung-gbf/test.sgf

``--workers 2`` also times the same rollout split over 1 and 2 processes: the
trials are cut into the chunks of :func:`~pulvezar.rollouts.chunks.plan_chunks`,
dealt round-robin to the workers (one torch thread each, evaluator loaded and
warmed up before the clock starts), each worker rolls out its chunks
(``rollout_chunked`` style: one ``rollout`` call per chunk) and the parts are
merged; the merged result is checked against the 1-process one.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import pty
import re
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import default_evaluator
from pulvezar.rollouts import RolloutResult, rollout
from pulvezar.rollouts.chunks import plan_chunks

GNUBG = "/usr/games/gnubg"


def position() -> Position:
    return Rules.international().legal_plays(Position.start(), (3, 1)).find("8/5 6/5").position.swap()


class GnubgRollout:
    """gnubg's rollout running under a pseudo-terminal; :meth:`wait` gives its seconds and last lines."""

    def __init__(self, pid: str, trials: int, seed: int) -> None:
        cmds = [
            "set threads 1",
            f"set rollout trials {trials}",
            "set rollout cubeful off",
            "set rollout varredn on",
            "set rollout quasirandom on",
            "set rollout truncation off",
            "set rollout chequerplay plies 0",
            f"set rollout seed {seed}",
            "new game",
            "set turn 1",
            f"set board {pid}",
            "rollout",
        ]
        with tempfile.NamedTemporaryFile("w", suffix=".gnubg", delete=False) as f:
            f.write("\n".join(cmds) + "\n")
        self._path = f.name
        master, slave = pty.openpty()
        self.t0 = time.perf_counter()
        self._proc = subprocess.Popen(
            [GNUBG, "-t", "-q", "-r", "-c", f.name], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
        )
        os.close(slave)
        self._master = master
        self._chunks: list[bytes] = []
        self._end = 0.0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:
                break
            if not data:
                break
            self._chunks.append(data)
        self._end = time.perf_counter()

    def wait(self) -> tuple[float, str]:
        self._proc.wait()
        self._reader.join()
        dt = (self._end or time.perf_counter()) - self.t0
        os.close(self._master)
        os.unlink(self._path)
        text = b"".join(self._chunks).decode(errors="replace").replace("\r", "")
        lines = [ln for ln in text.splitlines() if re.search(r"[Ee]quity|Rollout|Win|  \d\.\d", ln)]
        return dt, "\n".join(lines[-8:])


def run_gnubg(pid: str, trials: int, seed: int) -> tuple[float, str]:
    """Seconds for gnubg's rollout and its output's last lines."""
    return GnubgRollout(pid, trials, seed).wait()


def _worker_init(barrier: Any) -> None:
    torch.set_num_threads(1)
    rollout(position(), trials=36, seed=99, evaluator=default_evaluator(), truncate=2)  # load + warm up
    barrier.wait()


def _worker_run(job: tuple[list[tuple[int, int]], int]) -> list[RolloutResult]:
    chunks, seed = job
    ev = default_evaluator()
    return [rollout(position(), trials=n, first_trial=f, seed=seed, evaluator=ev) for f, n in chunks]


def run_workers(trials: int, seed: int, workers: int, chunk_size: int) -> tuple[float, RolloutResult]:
    """Seconds (pool already warm) and the merged result of the rollout split over ``workers``."""
    chunks = plan_chunks(trials, chunk_size)
    jobs = [(chunks[w::workers], seed) for w in range(workers)]
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(workers + 1)
    with ctx.Pool(workers, initializer=_worker_init, initargs=(barrier,)) as pool:
        barrier.wait()  # every worker started and warm
        t0 = time.perf_counter()
        parts = pool.map(_worker_run, jobs, chunksize=1)
        dt = time.perf_counter() - t0
    return dt, RolloutResult.merge([r for p in parts for r in p])


def scaling(trials: int, seed: int, workers: int, chunk_size: int) -> float:
    """Time the rollout over 1 and ``workers`` processes; print rates; the trials/s of 1 process."""
    dt1, r1 = run_workers(trials, seed, 1, chunk_size)
    print(f"1 process:   {dt1:.1f} s, {trials / dt1:.2f} trials/s; equity {r1.equity:+.4f}")
    dtn, rn = run_workers(trials, seed, workers, chunk_size)
    same = np.array_equal(r1.trials_run, rn.trials_run) and np.allclose(r1.values, rn.values, atol=1e-9)
    print(
        f"{workers} processes: {dtn:.1f} s, {trials / dtn:.2f} trials/s; equity {rn.equity:+.4f}; "
        f"scaling x{dt1 / dtn:.2f} (ideal x{workers}); merged result identical: {same}"
    )
    return trials / dt1


def library_chunked(pos: Position, trials: int, seed: int, chunk_size: int) -> tuple[float, RolloutResult]:
    """Seconds and result of the job's chunks rolled out in this process, one after the other."""
    from pulvezar.rollouts.chunks import rollout_chunked

    ev = default_evaluator()
    rollout(pos, trials=36, seed=seed + 1, evaluator=ev, truncate=2)  # warm-up
    t0 = time.perf_counter()
    r = rollout_chunked(pos, trials, chunk_size=chunk_size, seed=seed, evaluator=ev)
    return time.perf_counter() - t0, r


def job_rollout(api: Any, pid: str, trials: int, seed: int) -> tuple[float, dict[str, Any]]:
    """Seconds from submission to done of a rollout job, and its last status."""
    api.rollout({"position": pid, "trials": 72, "seed": seed + 1, "truncate": 2})  # warm the workers
    status, dt = api.rollout({"position": pid, "trials": trials, "seed": seed})
    return dt, status


def job_equity(status: dict[str, Any]) -> float:
    result = status.get("result") or status.get("results", [{}])[0]
    return float(result["equity"])


def platform_mode(args: argparse.Namespace, pos: Position) -> None:
    import bench_platform as bp

    from pulvezar.rollouts.chunks import DEFAULT_CHUNK_SIZE

    trials, seed = args.trials, args.seed
    dt_lib, lib = library_chunked(pos, trials, seed, DEFAULT_CHUNK_SIZE)
    rate_lib = trials / dt_lib
    print(
        f"library, in process (chunks of {DEFAULT_CHUNK_SIZE}): {dt_lib:.1f} s, {rate_lib:.2f} trials/s; "
        f"equity {lib.equity:+.6f}"
    )
    rates: dict[int, float] = {}
    analysis: dict[int, float] = {}
    env = {"PULVEZAR_DAILY_ON_START": "0"}  # the rollout alone: no daily puzzles at start
    for workers in (1, 2) if args.platform_url is None else (0,):
        if args.platform_url is None:
            local = bp.LocalPlatform("--worker-concurrency", str(workers), env=env)
            api = bp.Api(local.url)
        else:
            local, api = None, bp.Api(args.platform_url, args.api_key)
        try:
            dt, status = job_rollout(api, pos.position_id, trials, seed)
            eq = job_equity(status)
            rates[workers] = trials / dt
            where = f"{workers} worker process(es)" if workers else args.platform_url
            same = "equal to" if abs(eq - lib.equity) < 1e-9 else "DIFFERS from"
            rate = f"{dt:.1f} s, {trials / dt:.2f} trials/s"
            print(f"job ({where}): {rate}; equity {eq:+.6f} ({same} the library's)")
            if local is not None:
                chosen = [ln for ln in local.log("rollout").splitlines() if "evaluator chosen" in ln]
                print(f"  worker log: {chosen[0][:200] if chosen else 'no evaluator choice logged'}")
            if args.analysis:
                text = Path(args.analysis).read_text()
                _, dt_a = api.analysis(
                    {"file": text, "filename": Path(args.analysis).name, "level": args.level}
                )
                analysis[workers] = dt_a
                print(f"  analysis job ({args.level}, {Path(args.analysis).name}): {dt_a:.1f} s")
        finally:
            if local is not None:
                code = local.stop()
                print(f"  make run stopped with exit code {code}")
    if args.analysis:
        from pulvezar.analysis.matchanalysis.replay import analyse_match
        from pulvezar.analysis.matchanalysis.results import AnalysisSettings
        from pulvezar.formats import read_sgf

        record = read_sgf(Path(args.analysis).read_text())
        t0 = time.perf_counter()
        analyse_match(record, AnalysisSettings.from_level(args.level), evaluator=default_evaluator())
        dt_al = time.perf_counter() - t0
        ratios = "; ".join(f"job/library time, {w} worker(s): {t / dt_al:.2f}" for w, t in analysis.items())
        print(f"analysis in process ({args.level}): {dt_al:.1f} s; {ratios}")
    if not args.no_gnubg and os.path.exists(GNUBG):
        dt_g, _ = run_gnubg(pos.position_id, trials, seed)
        rate_g = trials / dt_g
        print(f"gnubg (1 thread): {dt_g:.1f} s, {rate_g:.2f} trials/s (includes ~1 s start-up)")
    else:
        rate_g = float("nan")
    one = rates.get(1, rates.get(0, float("nan")))
    print(f"ratio job (1 worker) / library in process: {one / rate_lib:.2f} (target >= 0.8)")
    if 2 in rates:
        print(f"ratio job 2 workers / 1 worker: {rates[2] / rates[1]:.2f} (target >= 1.6)")
    print(f"ratio job (1 worker) / gnubg per core: {one / rate_g:.2f} (target >= 1.0)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-gnubg", action="store_true")
    ap.add_argument("--workers", type=int, choices=(1, 2), default=None)
    ap.add_argument("--chunk-size", type=int, default=36)
    ap.add_argument("--concurrent", action="store_true", help="run gnubg while pulvezar runs")
    ap.add_argument("--platform", action="store_true", help="the rollout as a job on a local platform")
    ap.add_argument("--platform-url", help="with --platform: a running platform's gateway instead")
    ap.add_argument("--api-key", default="local-dev-key")
    ap.add_argument("--analysis", help="with --platform: also a match analysis job of this .sgf file")
    ap.add_argument("--level", default="2ply", help="the analysis level")
    args = ap.parse_args()
    if args.platform_url:
        args.platform = True
    pos = position()
    ev = default_evaluator()
    print(f"{platform.node()} {platform.processor() or platform.machine()} cpus={os.cpu_count()}")
    path = "C forward pass" if ev._c_weights(ev.contact_net) is not None else "PyTorch"
    print(f"torch threads {torch.get_num_threads()}, device {ev.device}, nets run by: {path}")
    print(f"position {pos.position_id} (opponent on roll after 3-1 8/5 6/5), trials {args.trials}")
    if args.platform:
        platform_mode(args, pos)
        return
    if args.workers is not None:
        rate = scaling(args.trials, args.seed, args.workers, args.chunk_size)
        if args.no_gnubg or not os.path.exists(GNUBG):
            return
        dt_g, _ = run_gnubg(pos.position_id, args.trials, args.seed)
        print(f"gnubg (1 thread): {args.trials / dt_g:.2f} trials/s (includes ~1 s start-up)")
        print(f"ratio pulvezar (1 process)/gnubg trials per second: {rate / (args.trials / dt_g):.2f}")
        return
    rollout(pos, trials=36, seed=args.seed + 1, evaluator=ev, truncate=2)  # warm-up
    use_gnubg = not args.no_gnubg and os.path.exists(GNUBG)
    gnubg = GnubgRollout(pos.position_id, args.trials, args.seed) if use_gnubg and args.concurrent else None
    t0 = time.perf_counter()
    r = rollout(pos, trials=args.trials, seed=args.seed, evaluator=ev)
    dt_p = time.perf_counter() - t0
    p = r.probabilities
    print(
        f"pulvezar: {dt_p:.1f} s, {args.trials / dt_p:.2f} trials/s; "
        f"equity {r.equity:+.4f} +- {r.equity_se:.4f} "
        f"(noise {r.noise:.4f}); probs " + " ".join(f"{x:.3f}" for x in p)
    )
    if not use_gnubg:
        return
    dt_g, out = gnubg.wait() if gnubg is not None else run_gnubg(pos.position_id, args.trials, args.seed)
    when = "at the same time" if gnubg is not None else "afterwards"
    print(f"gnubg:    {dt_g:.1f} s, {args.trials / dt_g:.2f} trials/s (includes ~1 s start-up; ran {when})")
    print(out)
    print(f"ratio pulvezar/gnubg trials per second: {dt_g / dt_p:.2f}")


if __name__ == "__main__":
    main()
