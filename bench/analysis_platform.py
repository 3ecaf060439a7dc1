"""Issue 41: a whole 7-point match analysed at 2 ply through ``make run``, against gnubg's own
``analyse match`` at 2 ply on the same file, one core each.

    nice -n 5 .venv/bin/python bench/analysis_platform.py [--file F] [--cpu 1] [--repeat N] [--json OUT]

The match (``--file``, default ``kevung-gbf/test.mat`` of ``../shared/data/matches``): HSBT Paris 2023,
Kévin Unger v Maxence Job, 7 points, 7 games, about 330 decisions of human play, exported by XG as a .mat
that both programs read (gnubg: ``import mat``).  The same match is ``kevung-gbf/test.sgf`` with an older
gnubg 2-ply analysis stored in it (one of ``bench/analysis.py``'s matches): its PRs are printed beside as a
third reference (``--stored``).  The gnubg self-play charlot files are avoided (PR 0 by construction).

pulvezar: ``deploy/local/run.py`` (what ``make run`` runs; :class:`bench_platform.LocalPlatform`) with one
worker process (``--worker-concurrency 1``), one torch thread, the daily puzzles off at start; the whole
platform (supervisor, Redis, rules and evaluator services, both Celery workers, gateway) is started with
this process's CPU affinity set to ``--cpu`` alone, as ``taskset -c 1`` would (every child inherits it;
the affinity of each process of the tree is printed).  A warm-up job first (``gibbon/7point.mat`` at 0 ply:
the worker loads its nets), then the match is POSTed to ``/v1/analyses`` at ``level=2ply`` (every other
setting the platform's default: its net and pruning as they are at run time; the report's own ``settings``
and ``engine`` are printed) and timed from submission to the first poll that sees the finished report
(polls every 0.2 s); the workers' CPU time over the job (``bench/job_costs.py``'s ``worker_cpu``) beside.

gnubg: the Debian CLI (``/usr/games/gnubg -t -q -r -c FILE`` under a pseudo-terminal,
``bench/search.py``'s ``run_gnubg_cli``) on the same core, one thread (``set threads 1``), analysis at
2 ply for chequer play and cube, pruning on, cubeful (its default move filter), then ``import mat FILE``,
``analyse match``, ``show statistics match`` and ``save match`` (an SGF with its analysis).  ``show threads``
before the import, between import and analysis, and after the analysis marks the output: the analysis alone
is the time between the last two marks (start-up and import excluded); gnubg's whole CPU time beside.

Printed: both times and the ratio pulvezar / gnubg (wall, and CPU); each player's PR from pulvezar's report,
from gnubg's own statistics (500 x overall error total EMG / (unforced moves + close or actual cube
decisions)) and from gnubg's saved SGF read by :mod:`pulvezar.formats.stored_analysis` (the counting of
``bench/analysis.py``), the differences and whether |diff| <= 1.0.  ``--repeat N``: N interleaved rounds
(gnubg, then a freshly started platform, whose caches start empty), the times their medians.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_platform as bp
from job_costs import worker_cpu
from search import GNUBG_CLI, run_gnubg_cli

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data" / "matches"
DEFAULT_FILE = "kevung-gbf/test.mat"
DEFAULT_STORED = {DEFAULT_FILE: "kevung-gbf/test.sgf"}
WARMUP_FILE = "gibbon/7point.mat"
MARK = b"calculation thread"  # what ``show threads`` prints


def _path(p: str) -> Path:
    q = Path(p)
    return (q if q.is_absolute() or q.exists() else SHARED / q).resolve()


@contextlib.contextmanager
def pinned(cpu: int) -> Iterator[None]:
    """This process on ``cpu`` alone while the block runs (``taskset -c CPU`` for what it starts)."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def git_state() -> dict[str, Any]:
    def git(*a: str) -> str:
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    dirty = git("status", "--porcelain", "--", "libs/pulvezar", "services").splitlines()
    return {"head": git("log", "-1", "--format=%h %s"), "dirty": [d.strip() for d in dirty]}


# ---- pulvezar through make run -------------------------------------------------------------


def _fmt(fmt: str) -> str:
    return "mat" if fmt == "txt" else fmt


def pulvezar_side(path: Path, cpu: int, warmup: bool) -> dict[str, Any]:
    env = {
        "PULVEZAR_DAILY_ON_START": "0",
        "PULVEZAR_ROLLOUT_TORCH_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    with pinned(cpu):
        local = bp.LocalPlatform("--worker-concurrency", "1", env=env)
    out: dict[str, Any] = {}
    with local:
        tree = [psutil.Process(local.proc.pid), *psutil.Process(local.proc.pid).children(recursive=True)]
        affinity: dict[str, list[int]] = {}
        for p in tree:
            with contextlib.suppress(psutil.Error):
                name = " ".join(p.cmdline()[:4])[-60:]
                affinity[f"{p.pid} {name}"] = sorted(p.cpu_affinity())
        out["affinity"] = affinity
        api = bp.Api(local.url)
        if warmup:
            w = _path(WARMUP_FILE)
            body = {"file": w.read_text(encoding="utf-8-sig"), "filename": w.name, "level": "0ply"}
            _, out["warmup_s"] = api.analysis(body, timeout=1800)
        time.sleep(1.0)
        cpu0 = worker_cpu(local.proc.pid)
        body = {"file": path.read_text(encoding="utf-8-sig"), "filename": path.name, "level": "2ply"}
        status, seconds = api.analysis(body, timeout=3600)
        time.sleep(1.0)  # the workers settle
        out["worker_cpu_s"] = worker_cpu(local.proc.pid) - cpu0
        out["seconds"] = seconds
        report = api.call("GET", status["href"] if "href" in status else f"/v1/analyses/{status['job_id']}")
    m = report["matches"][0]
    summary = m["summary"]
    out.update(
        elapsed_s=report.get("elapsed_s"),
        games=m["games_total"],
        players=list(m["players"]),
        pr=[summary["players"][p]["pr"] for p in (0, 1)],
        decisions=[summary["players"][p].get("decisions") for p in (0, 1)],
        settings=summary.get("settings"),
        engine=summary.get("engine"),
    )
    return out


# ---- gnubg's analyse match -----------------------------------------------------------------


def gnubg_lines(path: Path, sgf_out: Path) -> list[str]:
    return [
        "set threads 1",
        *(
            f"set analysis {what} evaluation {opt}"
            for what in ("chequerplay", "cubedecision")
            for opt in ("plies 2", "prune on", "cubeful on")
        ),
        "show threads",
        f"import mat {path}",
        "show threads",
        "analyse match",
        "show threads",
        "show statistics match",
        f"save match {sgf_out}",
    ]


_NUM = r"([-+]?\d+(?:\.\d+)?)"


def parse_statistics(text: str) -> dict[str, dict[str, float]]:
    """Per player (by name): unforced moves, close or actual cube decisions, overall error total EMG, and
    the PR they make, from ``show statistics match``."""
    lines = [ln.rstrip() for ln in text.replace("\r", "").splitlines()]
    start = max(i for i, ln in enumerate(lines) if ln.startswith("Player  "))
    names = re.split(r"\s{2,}", lines[start].strip())[1:3]
    got: dict[str, list[float]] = {}
    section = ""
    for ln in lines[start:]:
        if ln.endswith("statistics"):
            section = ln
        for key, label in (
            ("unforced", "Unforced moves"),
            ("cube", "Close or actual cube decisions"),
            ("error", "Error total EMG (MWC)"),
        ):
            if ln.startswith(label) and (key != "error" or section == "Overall statistics"):
                pat = _NUM + (r" \(\s*[-+]?[\d.]+%\)" if key == "error" else "")
                got[key] = [float(x) for x in re.findall(pat, ln[len(label) :])][:2]
    if set(got) != {"unforced", "cube", "error"} or any(len(v) != 2 for v in got.values()):
        raise RuntimeError(f"gnubg's statistics not read: {got}\n" + "\n".join(lines[start : start + 60]))
    out = {}
    for i, name in enumerate(names):
        n = got["unforced"][i] + got["cube"][i]
        out[name] = {
            "decisions": n,
            "error_emg": abs(got["error"][i]),
            "pr": 500.0 * abs(got["error"][i]) / n if n else float("nan"),
        }
    return out


def sgf_prs(path: Path) -> tuple[list[str], list[float | None]]:
    """The PR of each player of an SGF with gnubg's analysis, counted as ``bench/analysis.py`` does."""
    from pulvezar.formats import read_sgf
    from pulvezar.formats.stored_analysis import stored_analysis
    from pulvezar.rating import performance_rating

    rec = read_sgf(path.read_bytes())
    errs = [d.to_error() for d in stored_analysis(rec)]
    return list(rec.players), [performance_rating(errs, p) for p in (0, 1)]


def gnubg_side(path: Path, cpu: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gnubg-analysis-") as tmp:
        sgf = Path(tmp) / "analysed.sgf"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        with pinned(cpu):
            chunks, total = run_gnubg_cli(gnubg_lines(path, sgf))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        marks = [t for t, chunk in chunks for _ in range(chunk.count(MARK))]
        text = b"".join(c for _, c in chunks).decode("utf-8", errors="replace")
        if len(marks) != 3 or not sgf.exists():
            raise RuntimeError(f"gnubg's run: {len(marks)} marks, expected 3:\n{text[-3000:]}")
        names, prs = sgf_prs(sgf)
    return {
        "seconds": marks[2] - marks[1],
        "import_s": marks[1] - marks[0],
        "whole_run_s": total,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "statistics": parse_statistics(text),
        "sgf_players": names,
        "sgf_pr": prs,
    }


# ---- report ----------------------------------------------------------------------------------


def _f(x: float | None, spec: str = "6.2f") -> str:
    return format(x, spec) if x is not None else "-".rjust(6)


def report(res: dict[str, Any]) -> None:
    ours, theirs = res["pulvezar"], res["gnubg"]
    print(f"# issue 41: {res['file']} at 2 ply, pulvezar through make run vs gnubg analyse match")
    print(f"# {res['machine']}; {res['date']}; both pinned to CPU {res['cpu']}; git {res['git']['head']}")
    if res["git"]["dirty"]:
        print(f"# uncommitted in libs/pulvezar, services: {', '.join(res['git']['dirty'])}")
    print(f"# pulvezar's report: settings {ours['settings']}; engine {ours['engine']}")
    print(
        "# platform processes' CPU affinity: " + "; ".join(f"{k}: {v}" for k, v in ours["affinity"].items())
    )
    print()
    if "warmup_s" in ours:
        print(f"pulvezar warm-up job ({WARMUP_FILE}, 0 ply): {ours['warmup_s']:.1f} s")
    print(
        f"pulvezar: {ours['seconds']:.1f} s submission to report ({ours['games']} games; job elapsed "
        f"{_f(ours['elapsed_s'], '.1f')} s; workers' CPU {ours['worker_cpu_s']:.1f} s)"
    )
    print(
        f"gnubg:    {theirs['seconds']:.1f} s analyse match alone (import {theirs['import_s']:.2f} s; "
        f"whole run {theirs['whole_run_s']:.1f} s, CPU {theirs['cpu_s']:.1f} s)"
    )
    n = len(ours["rounds"])
    if n > 1:
        print(f"  (times: medians of {n} interleaved rounds, a fresh platform each; gnubg first in each)")
        for i, (o, t) in enumerate(zip(ours["rounds"], theirs["rounds"], strict=True)):
            print(
                f"  round {i + 1}: pulvezar {o['seconds']:.1f} s (CPU {o['worker_cpu_s']:.1f} s), "
                f"gnubg {t['seconds']:.1f} s (CPU {t['cpu_s']:.1f} s): "
                f"{o['seconds'] / t['seconds']:.2f}x wall, {o['worker_cpu_s'] / t['cpu_s']:.2f}x CPU"
            )
    print(
        f"ratio pulvezar / gnubg: {res['ratio_wall']:.2f}x wall, {res['ratio_cpu']:.2f}x CPU"
        + (" (medians)" if n > 1 else "")
    )
    print()
    print(f"{'player':<16} {'pulvezar':>8} {'n':>4} {'gnubg':>8} {'n':>4} {'gnubg sgf':>9} {'diff':>6}  "
          "within 1.0" + ("  stored (older gnubg 2-ply)" if res.get("stored") else ""))  # fmt: skip
    for row in res["rows"]:
        print(
            f"{row['player'][:16]:<16} {_f(row['pulvezar_pr'], '8.2f')} "
            f"{row['pulvezar_decisions'] or '-':>4} {_f(row['gnubg_pr'], '8.2f')} "
            f"{row['gnubg_decisions']:>4.0f} {_f(row['gnubg_sgf_pr'], '9.2f')} {_f(row['diff'], '+6.2f')}  "
            f"{'yes' if row['within'] else 'NO':<10}"
            + (f"  {_f(row.get('stored_pr'))}" if res.get("stored") else "")
        )


TIMES = ("seconds", "cpu_s", "import_s", "whole_run_s", "worker_cpu_s", "warmup_s", "elapsed_s")


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The first round with each of its times replaced by the median over ``runs``, and the rounds."""
    out = {**runs[0], "rounds": runs}
    for k in TIMES:
        xs = [run[k] for run in runs if run.get(k) is not None]
        if xs:
            out[k] = statistics.median(xs)
    return out


def compare(args: argparse.Namespace) -> dict[str, Any]:
    path = _path(args.file)
    res: dict[str, Any] = {
        "file": args.file,
        "cpu": args.cpu,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}",
        "git": git_state(),
    }
    gnubg_runs: list[dict[str, Any]] = []
    ours_runs: list[dict[str, Any]] = []
    for r in range(args.repeat):  # interleaved; a fresh platform each round (its caches start empty)
        print(f"[{r + 1}/{args.repeat}] gnubg analyse match on {path.name} ...", file=sys.stderr, flush=True)
        gnubg_runs.append(gnubg_side(path, args.cpu))
        g = gnubg_runs[-1]
        print(f"  gnubg {g['seconds']:.1f} s, CPU {g['cpu_s']:.1f} s", file=sys.stderr, flush=True)
        print(f"[{r + 1}/{args.repeat}] pulvezar through make run ...", file=sys.stderr, flush=True)
        ours_runs.append(pulvezar_side(path, args.cpu, not args.no_warmup))
        o = ours_runs[-1]
        print(f"  pulvezar {o['seconds']:.1f} s, CPU {o['worker_cpu_s']:.1f} s", file=sys.stderr, flush=True)
    for runs, keys in ((gnubg_runs, ("statistics", "sgf_pr")), (ours_runs, ("pr", "settings", "engine"))):
        if any(run[k] != runs[0][k] for run in runs for k in keys):
            raise RuntimeError(
                f"the rounds disagree on {keys}: {[{k: run[k] for k in keys} for run in runs]}"
            )
    res["gnubg"] = medians(gnubg_runs)
    res["pulvezar"] = medians(ours_runs)
    res["git_after"] = git_state()
    stored: dict[str, float | None] = {}
    stored_file = args.stored if args.stored is not None else DEFAULT_STORED.get(args.file)
    if stored_file:
        names, prs = sgf_prs(_path(stored_file))
        stored = dict(zip(names, prs, strict=True))
        res["stored"] = stored_file
    stats = res["gnubg"]["statistics"]
    sgf = dict(zip(res["gnubg"]["sgf_players"], res["gnubg"]["sgf_pr"], strict=True))
    rows = []
    for p, name in enumerate(res["pulvezar"]["players"]):
        ours = res["pulvezar"]["pr"][p]
        theirs = stats[name]["pr"]
        diff = None if ours is None else ours - theirs
        rows.append(
            {
                "player": name,
                "pulvezar_pr": ours,
                "pulvezar_decisions": res["pulvezar"]["decisions"][p],
                "gnubg_pr": theirs,
                "gnubg_decisions": stats[name]["decisions"],
                "gnubg_sgf_pr": sgf.get(name),
                "stored_pr": stored.get(name),
                "diff": diff,
                "within": diff is not None and abs(diff) <= 1.0,
            }
        )
    res["rows"] = rows
    res["ratio_wall"] = res["pulvezar"]["seconds"] / res["gnubg"]["seconds"]
    res["ratio_cpu"] = res["pulvezar"]["worker_cpu_s"] / res["gnubg"]["cpu_s"]
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", default=DEFAULT_FILE, help="a match file both read (.mat)")
    ap.add_argument("--stored", help="an SGF of the same match with gnubg's stored analysis, printed beside")
    ap.add_argument("--cpu", type=int, default=1, help="the CPU both are pinned to")
    ap.add_argument("--repeat", type=int, default=1, help="interleaved rounds (times: their medians)")
    ap.add_argument("--no-warmup", action="store_true", help="time the platform's first job")
    ap.add_argument("--json", type=Path, help="write the figures as JSON")
    args = ap.parse_args(argv)
    if not Path(GNUBG_CLI).exists():
        print(f"{GNUBG_CLI} not found (apt-get install gnubg)", file=sys.stderr)
        return 77
    res = compare(args)
    report(res)
    bp.write_json(args.json, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
