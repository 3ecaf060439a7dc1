"""Issue 43's diagnosis: is the race rollouts' larger standard error the race net or the variance reduction?

On the races of ``bench/rollout_precision.py`` (``positions()`` less the opening), one thread:
- gnubg's own rollout (Debian ``gnubg``, 0 ply, variance reduction, seed 1);
- pulvezar's rollout code with each ``--model`` (default: the shipped net), the default screened luck and
  the full luck (every play of the 21 rolls valued);
- pulvezar's rollout code with **gnubg-nn 0-ply as its evaluator** (PyPI ``gnubg_nn``, its outputs at run
  time, a diagnostic only: nothing of it is kept) and the full luck.
Printed per position and run: the equity and the variance per trial (``SE^2 * trials``, the figure
variance reduction lowers) and the SE ratio to gnubg's.  Where pulvezar's code with gnubg's net reaches
gnubg's SE and pulvezar's net does not, the net is what to improve (bench/RESULTS.md, issue 43).  CPU
seconds are not compared: the gnubg-nn evaluator is called one board at a time from Python.

    .venv/bin/python bench/race_vr_diagnosis.py [--trials 1296] [--model MODEL ...] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_precision import gnubg_rollout, positions

from pulvezar.eval.evaluator import EvaluatorBase, NetEvaluator, default_evaluator
from pulvezar.rollouts import rollout
from pulvezar.train.labels import GnubgEvaluator


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--model", action="append", help="model file (repeatable; default: the shipped net)")
    ap.add_argument("--only", default="", help="comma-separated parts of position names (default: all)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    nets = [(Path(m).parent.name or Path(m).stem, NetEvaluator.load(m)) for m in a.model or []]
    nets = nets or [("default", default_evaluator())]
    runs: list[tuple[str, EvaluatorBase, str]] = [
        (f"{n} {luck}", ev, luck) for n, ev in nets for luck in ("screened", "full")
    ]
    runs.append(("gnubg-nn in pulvezar's rollout, full", GnubgEvaluator(), "full"))
    wanted = [w.strip() for w in a.only.split(",") if w.strip()]
    for label, pos in positions()[1:]:
        if wanted and not any(w in label for w in wanted):
            continue
        g_eq, g_se, _ = gnubg_rollout(pos.position_id, a.trials)
        g_var = g_se**2 * a.trials
        print(f"{label} ({pos.position_id}): gnubg {g_eq:+.5f} var/trial {g_var:.6f}", flush=True)
        for name, ev, luck in runs:
            c = time.process_time()
            r = rollout(pos, trials=a.trials, seed=1, evaluator=ev, luck=luck)
            ratio = r.noise / g_se if g_se else float("nan")
            print(
                f"  {name:40} {r.equity:+.5f} var/trial {r.noise**2 * a.trials:.6f}  SE ratio {ratio:.2f}"
                f"  ({time.process_time() - c:.0f} CPU s)",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
