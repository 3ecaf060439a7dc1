"""Issue 45: a match database (an ``.ogxms.zst`` stream of 100 matches) analysed as one batch job through
``make run``, at 0 and 2 ply, against gnubg's ``analyse match`` on the same matches, one core each.

    nice -n 5 env OMP_NUM_THREADS=1 .venv/bin/python bench/batch_analysis.py [--stream F] [--cpu 1] \\
        [--levels 0ply 2ply] [--subset 2ply=20] [--json OUT]          # make bench-batch

The stream (``--stream``, default ``bench/data/selfplay-100x5p.ogxms.zst``; made by
``bench/selfplay_corpus.py --points 5 --count 100 --seed 4550`` when missing): 100 distinct 5-point matches
of gnubg v gnubg at 0 ply with noise.  ``--subset LEVEL=N``: that level on the first N matches only (a
stream of them, written here with ``write_ogxm_stream``), for both programs.

pulvezar: ``deploy/local/run.py`` (:class:`bench_platform.LocalPlatform`, what ``make run`` runs) with one
worker process, one torch thread, the daily puzzles off, every process of it pinned to ``--cpu`` (as
``bench/analysis_platform.py``); a 0-ply warm-up job (one match), then per level the stream POSTed to
``/v1/analyses`` (``file_base64``) and timed from submission to the first poll that sees it done; the
workers' and evaluator's CPU over the job (``bench/job_costs.py``'s ``worker_cpu``).  The gateway's parse
wall-clock cap is raised to 120 s (``PULVEZAR_GATEWAY_PARSE_TIMEOUT_S``; default 20 s): reading the 100
5-point matches takes ~3 s of CPU, and on one core shared with a loaded machine it overran 20 s (a 422).

gnubg: the Debian CLI on the same core, one thread, analysis at the level's plies (prune on, cubeful), for
each match ``import mat`` (pulvezar's .mat of it) and ``analyse match`` between two ``show threads`` marks;
its time is the sum of the analyses alone, its CPU the whole process's (imports included).

Printed per level and program: matches, decisions (pulvezar's counted ones), wall, CPU, matches per
core-hour (CPU), decisions per core-second, and pulvezar / gnubg CPU.
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_platform as bp
from analysis_platform import MARK, git_state, pinned
from job_costs import worker_cpu
from search import GNUBG_CLI, run_gnubg_cli

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_STREAM = ROOT / "bench" / "data" / "selfplay-100x5p.ogxms.zst"
PLIES = {"0ply": 0, "1ply": 1, "2ply": 2}


def stream_of(path: Path) -> bytes:
    if not path.exists():
        from selfplay_corpus import make

        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(make(points=5, count=100, seed=4550, noise=0.06))
    return path.read_bytes()


def records_of(data: bytes) -> list[Any]:
    from pulvezar.formats.ogxm import read_ogxm_stream

    stream = read_ogxm_stream(data)
    if stream.skipped or stream.truncated:
        raise RuntimeError("the stream has skipped members or a truncated tail")
    return [e.record for e in stream.matches]


def sub_stream(records: list[Any]) -> bytes:
    import zstandard

    from pulvezar.formats.ogxm import write_ogxm_stream

    buf = io.BytesIO()
    write_ogxm_stream(records, buf)
    return bytes(zstandard.ZstdCompressor(level=19).compress(buf.getvalue()))


# ---- pulvezar through make run -------------------------------------------------------------


def pulvezar_side(jobs: dict[str, bytes], warmup: bytes, cpu: int) -> dict[str, Any]:
    env = {"PULVEZAR_DAILY_ON_START": "0", "PULVEZAR_ROLLOUT_TORCH_THREADS": "1", "OMP_NUM_THREADS": "1"}
    env["PULVEZAR_GATEWAY_PARSE_TIMEOUT_S"] = "120"  # the 100-match upload's parse on one shared core
    ports = bp.free_ports(4)  # not the usual ones: another make run may hold them
    names = ("redis", "rules", "evaluator", "gateway")
    flags = [f"--{n}-port={p}" for n, p in zip(names, ports, strict=True)]
    with pinned(cpu):
        local = bp.LocalPlatform("--worker-concurrency", "1", *flags, env=env)
    out: dict[str, Any] = {}
    with local:
        api = bp.Api(local.url)

        def body(data: bytes, level: str) -> dict[str, Any]:
            b64 = base64.b64encode(data).decode()
            return {"file_base64": b64, "filename": "db.ogxms.zst", "level": level}

        _, out["warmup_s"] = api.analysis(body(warmup, "0ply"), timeout=1800)
        for level, data in jobs.items():
            time.sleep(1.0)
            cpu0 = worker_cpu(local.proc.pid)
            status, seconds = api.analysis(body(data, level), timeout=6 * 3600)
            time.sleep(1.0)  # the workers settle
            used = worker_cpu(local.proc.pid) - cpu0
            href = status.get("href") or f"/v1/analyses/{status['job_id']}"
            report = api.call("GET", f"{href}?games=false")
            matches = report["matches"]
            done = sum(m["state"] == "done" for m in matches)
            decisions = sum(p.get("decisions") or 0 for p in report["players"])
            out[level] = {
                "matches": len(matches),
                "done": done,
                "decisions": decisions,
                "seconds": seconds,
                "cpu_s": used,
                "players": {p["name"]: p.get("pr") for p in report["players"]},
                "settings": matches[0]["summary"].get("settings") if matches else None,
            }
            print(f"  pulvezar {level}: {out[level]}", file=sys.stderr, flush=True)
    return out


# ---- gnubg's analyse match -----------------------------------------------------------------


def gnubg_side(records: list[Any], plies: int, cpu: int) -> dict[str, Any]:
    from pulvezar.formats.files import write_match

    with tempfile.TemporaryDirectory(prefix="gnubg-batch-") as tmp:
        lines = ["set threads 1", "set confirm new off"]
        lines += [
            f"set analysis {what} evaluation {opt}"
            for what in ("chequerplay", "cubedecision")
            for opt in (f"plies {plies}", "prune on", "cubeful on")
        ]
        for i, rec in enumerate(records):
            path = Path(tmp) / f"m{i:04d}.mat"
            write_match(rec, path)
            lines += [f"import mat {path}", "show threads", "analyse match", "show threads"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with pinned(cpu):
            chunks, total = run_gnubg_cli(lines)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    marks = [t for t, chunk in chunks for _ in range(chunk.count(MARK))]
    if len(marks) != 2 * len(records):
        text = b"".join(c for _, c in chunks).decode(errors="replace")
        raise RuntimeError(f"gnubg: {len(marks)} marks, expected {2 * len(records)}:\n{text[-3000:]}")
    return {
        "matches": len(records),
        "seconds": sum(marks[i + 1] - marks[i] for i in range(0, len(marks), 2)),
        "whole_run_s": total,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
    }


# ---- report ----------------------------------------------------------------------------------


def per_hour(n: float, seconds: float) -> float:
    return n * 3600.0 / seconds if seconds else float("nan")


def report(res: dict[str, Any]) -> None:
    print(f"# issue 45: batch analysis of {res['stream']} through make run vs gnubg analyse match")
    print(f"# {res['machine']}; {res['date']}; both pinned to CPU {res['cpu']}; git {res['git']['head']}")
    if res["git"]["dirty"]:
        print(f"# uncommitted in libs/pulvezar, services: {', '.join(res['git']['dirty'])}")
    print(f"# pulvezar warm-up job (1 match, 0 ply): {res['pulvezar']['warmup_s']:.1f} s")
    print()
    head = f"{'level':<5} {'program':<9} {'matches':>7} {'decisions':>9} {'wall s':>8} {'CPU s':>8} "
    print(head + f"{'matches/core-h':>14} {'dec/core-s':>10} {'CPU ratio':>9}")
    for level in res["levels"]:
        ours, theirs = res["pulvezar"][level], res["gnubg"][level]
        dec = ours["decisions"]
        for name, side in (("pulvezar", ours), ("gnubg", theirs)):
            n = side["matches"]
            d = dec if name == "pulvezar" else None
            print(
                f"{level:<5} {name:<9} {n:>7} {d if d is not None else '-':>9} {side['seconds']:>8.1f} "
                f"{side['cpu_s']:>8.1f} {per_hour(n, side['cpu_s']):>14.0f} "
                f"{(dec / side['cpu_s'] if side['cpu_s'] else float('nan')):>10.1f} "
                + (f"{ours['cpu_s'] / theirs['cpu_s']:>8.2f}x" if name == "pulvezar" else "")
            )
        print(f"      pulvezar {level}: {ours['done']} done; players' PR {ours['players']}")
    print("(gnubg's decisions per core-second use pulvezar's count of the same matches' decisions)")


def parse_subset(items: list[str]) -> dict[str, int]:
    out = {}
    for item in items:
        level, _, n = item.partition("=")
        out[level] = int(n)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stream", type=Path, default=DEFAULT_STREAM)
    ap.add_argument("--cpu", type=int, default=1, help="the CPU both are pinned to")
    ap.add_argument("--levels", nargs="+", default=["0ply", "2ply"], choices=sorted(PLIES))
    ap.add_argument("--subset", nargs="*", default=[], help="LEVEL=N: that level on the first N matches")
    ap.add_argument("--json", type=Path, help="write the figures as JSON")
    args = ap.parse_args(argv)
    if not Path(GNUBG_CLI).exists():
        print(f"{GNUBG_CLI} not found (apt-get install gnubg)", file=sys.stderr)
        return 77
    data = stream_of(args.stream)
    records = records_of(data)
    subset = parse_subset(args.subset)
    chosen = {lv: records[: subset.get(lv, len(records))] for lv in args.levels}
    jobs = {lv: data if len(rs) == len(records) else sub_stream(rs) for lv, rs in chosen.items()}
    res: dict[str, Any] = {
        "stream": str(args.stream.relative_to(ROOT) if args.stream.is_relative_to(ROOT) else args.stream),
        "cpu": args.cpu,
        "levels": args.levels,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}",
        "git": git_state(),
        "gnubg": {},
    }
    for level in args.levels:
        print(
            f"gnubg analyse match at {level}, {len(chosen[level])} matches ...", file=sys.stderr, flush=True
        )
        res["gnubg"][level] = gnubg_side(chosen[level], PLIES[level], args.cpu)
        print(f"  gnubg {level}: {res['gnubg'][level]}", file=sys.stderr, flush=True)
    print("pulvezar through make run ...", file=sys.stderr, flush=True)
    res["pulvezar"] = pulvezar_side(jobs, sub_stream(records[:1]), args.cpu)
    report(res)
    bp.write_json(args.json, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
