"""Rollout precision per CPU-second: pulvezar against Debian gnubg's own rollouts, in one run (issue 13).

A rollout's worth is how small its standard error gets for the CPU it burns.  For the position after
the opening 3-1 (8/5 6/5, the opponent on roll), the three lopsided races of
``bench/rollout_agreement.py`` (``LOPSIDED``) and six races of other kinds (``RACES``: even long and
short races, a bear-off against a bear-in, races with gammon chances; issue 32), both programs roll
out ``--trials`` trials: 0-ply chequer play, cubeless, variance reduction, seed 1, one thread.
Printed per position and program: the equity (side on roll) and its standard error, the CPU seconds
(pulvezar: this process's CPU time around the rollout, the net warm; gnubg: the CPU time of its
process, one per position, less that of a process that only starts and sets up the position), the
variance per trial ``SE^2 * trials``, and the **precision per CPU-second**
``(trials / CPU s) / (variance per trial) = 1 / (SE^2 * CPU s)``, with the ratio pulvezar / gnubg.
Issue 13 asked: SE at 1,296 trials no larger than gnubg's, precision >= 1.5x gnubg's, and
(``bench/rollout_agreement.py``) the lopsided races' equities within two combined SEs of gnubg's;
issue 32 asks precision >= 2x gnubg's on each position, the equities within two combined SEs.

    .venv/bin/python bench/rollout_precision.py [--trials 1296] [--model MODEL ...] [--luck screened,full]
        [--only NAME,...]

pulvezar runs once per ``--model`` (repeatable: the models one after the other against the same gnubg
rollout) and ``--luck``: ``screened`` (the default of every rollout: variance reduction's 21 rolls
valued among the plays the screening net ranks first, ADR 0010) and ``full`` (every play).  A model
whose rollout is exact (its race table values the position: no variance) is printed with its value
and left out of the ratios.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import resource
import sys
import time
from datetime import date
from pathlib import Path

import torch

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import NetEvaluator, default_evaluator
from pulvezar.rollouts import rollout

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_agreement import LOPSIDED, GnubgRun


def _race(mine: dict[int, int], theirs: dict[int, int]) -> Position:
    return Position.from_points(mine, theirs)


RACES: list[tuple[str, Position]] = [  # issue 32: races of other kinds (pips: side on roll v other)
    ("even race 112v107", _race({12: 1, 11: 2, 9: 2, 8: 2, 7: 2, 6: 2, 5: 2, 4: 2},
                                {11: 1, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2, 5: 2, 3: 2})),
    ("bear-off 62 v bear-in 89", _race({6: 4, 5: 3, 4: 3, 3: 2, 2: 2, 1: 1},
                                       {10: 2, 8: 2, 6: 4, 5: 3, 4: 2, 3: 2})),
    ("gammon race 55v135", _race({6: 3, 5: 3, 4: 3, 3: 2, 2: 2}, {18: 1, 15: 2, 10: 3, 8: 3, 6: 3, 5: 3})),
    ("short race 56v58", _race({8: 2, 6: 2, 5: 2, 4: 2, 3: 2, 2: 2},
                               {9: 1, 7: 1, 6: 2, 5: 2, 4: 3, 3: 2, 2: 1})),
    ("race 147v64, gammon chances", _race({15: 2, 13: 3, 11: 2, 9: 2, 8: 2, 6: 2, 5: 2},
                                          {6: 4, 5: 3, 4: 3, 3: 3, 2: 2})),
    ("stacked 80 v smooth 74", _race({6: 8, 5: 4, 4: 3}, {8: 2, 7: 2, 6: 2, 5: 2, 4: 3, 3: 2, 2: 2})),
]  # fmt: skip


def positions() -> list[tuple[str, Position]]:
    """After the opening 3-1, the lopsided races of ``rollout_agreement`` and :data:`RACES`."""
    after31 = Rules.international().legal_plays(Position.start(), (3, 1)).find("8/5 6/5").position.swap()
    return [("after 3-1 (8/5 6/5)", after31), *LOPSIDED, *RACES]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def gnubg_rollout(pid: str, trials: int) -> tuple[float, float, float]:
    """gnubg's equity, SE and CPU seconds (less a 1-trial run's start-up) for one position."""
    t0 = children_cpu()
    base = GnubgRun([pid], 1, seed=1)
    base.results(timeout=600)
    t1 = children_cpu()
    run = GnubgRun([pid], trials, seed=1)
    (res,) = run.results(timeout=3600)
    t2 = children_cpu()
    return res.equity, res.se, (t2 - t1) - (t1 - t0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--model", action="append", default=[], help="model file, repeatable (default: shipped)")
    ap.add_argument(
        "--luck", default="screened,full", help="pulvezar's variance reduction, one row each (screened, full)"
    )
    ap.add_argument("--only", default="", help="comma-separated parts of position names (default: all)")
    args = ap.parse_args()
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    chosen = [(n, p) for n, p in positions() if not wanted or any(w in n for w in wanted)]
    lucks = [x.strip() for x in args.luck.split(",") if x.strip()]
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    torch.set_num_threads(1)
    nets = [(Path(m).stem, NetEvaluator.load(m)) for m in args.model] or [("default", default_evaluator())]
    print(f"date {date.today()}  machine {platform.node()} nproc={os.cpu_count()}", end="  ")
    print(f"models {', '.join(name for name, _ in nets)}  trials {args.trials}")
    for _, net in nets:
        rollout(positions()[0][1], trials=8, seed=99, evaluator=net)  # warm: tables, C weights
    runs = [(f"{name} {luck}" if len(nets) > 1 else luck, net, luck) for name, net in nets for luck in lucks]
    ratios: dict[str, list[float]] = {key: [] for key, _, _ in runs}
    for label, pos in chosen:
        g_eq, g_se, g_cpu = gnubg_rollout(pos.position_id, args.trials)
        if g_se == 0.0:  # the outcome is certain: no precision to compare
            print(f"{label} ({pos.position_id}): gnubg {g_eq:+.5f} with no variance, skipped")
            continue
        g_prec = 1.0 / (g_se**2 * g_cpu)
        rows = []
        for key, net, luck in runs:
            c0 = time.process_time()
            r = rollout(pos, trials=args.trials, seed=1, evaluator=net, luck=luck)
            p_cpu = time.process_time() - c0
            rows.append((key, r, p_cpu, 1.0 / (r.noise**2 * p_cpu) if r.noise > 1e-12 else math.inf))
        print(f"{label} ({pos.position_id}):")
        table = [(f"pulvezar {key}", r.equity, r.noise, cpu, prec) for key, r, cpu, prec in rows]
        for who, eq, se, cpu, prec in [*table, ("gnubg", g_eq, g_se, g_cpu, g_prec)]:
            print(
                f"  {who:17} {eq:+.5f} +- {se:.5f}  {cpu:6.1f} CPU s  {args.trials / max(cpu, 1e-9):8.1f} "
                f"trials/s  variance/trial {se**2 * args.trials:.4f}  precision/CPU-s {prec:10.0f}"
            )
        for key, r, _, prec in rows:
            z = (r.equity - g_eq) / math.hypot(r.noise, g_se)
            if r.noise <= 1e-12:  # rounding only
                print(f"  RESULT {key}: exact (no variance)  z {z:+.2f}")
                continue
            ratios[key].append(prec / g_prec)
            ratio = f"SE ratio {r.noise / g_se:.2f}  precision ratio {prec / g_prec:.2f}"
            print(f"  RESULT {key}: {ratio}  z {z:+.2f}")
    for key, xs in ratios.items():
        mean = math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan
        listed = ", ".join(f"{x:.2f}" for x in xs)
        print(f"precision ratio pulvezar ({key}) / gnubg: {listed}  geomean {mean:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
