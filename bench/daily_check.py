"""The daily puzzles' selection rule with a given net: how often it finds an instructive puzzle.

For ``--days`` dates from ``--start`` and the default settings, the international checker puzzle, the
Tavla checker puzzle and the cube puzzle are made with each ``--model``; printed per model and kind: how
many were fallbacks (no candidate passed the rule), the mean number of candidates screened and rolled
out, and the seconds per puzzle.  A new default net changes every puzzle; this says whether the rule's
thresholds still select (issue 13's re-check of the daily-puzzle calibration).

    .venv/bin/python bench/daily_check.py --days 4 --model libs/pulvezar/eval/models/pulvezar-v2.pt \\
        --model libs/pulvezar/eval/models/pulvezar-v3.pt
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from pathlib import Path

from pulvezar.archive.daily import daily_cube, daily_position
from pulvezar.eval.evaluator import NetEvaluator


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--start", default="2026-12-01")
    ap.add_argument("--days", type=int, default=4)
    ap.add_argument("--model", action="append", required=True)
    ap.add_argument("--kinds", default="international,tavla,cube")
    a = ap.parse_args()
    start = dt.date.fromisoformat(a.start)
    dates = [(start + dt.timedelta(days=i)).isoformat() for i in range(a.days)]
    for model in a.model:
        ev = NetEvaluator.load(model, device="cpu")
        for kind in a.kinds.split(","):
            fallbacks, screened, rolled, seconds, answers = 0, 0, 0, 0.0, []
            for d in dates:
                t = time.perf_counter()
                p = daily_cube(d, evaluator=ev) if kind == "cube" else daily_position(d, kind, evaluator=ev)
                seconds += time.perf_counter() - t
                sel = p.selection
                fallbacks += bool(sel["fallback"])
                screened += int(sel["screened"])
                rolled += int(sel["rolled_out"])
                answers.append(str(p.answer.get("play") or p.answer.get("action")))
            n = len(dates)
            print(
                f"{Path(model).stem:14s} {kind:13s} fallbacks {fallbacks}/{n}  screened {screened / n:.1f}  "
                f"rolled out {rolled / n:.1f}  {seconds / n:.0f} s/puzzle  answers {answers}",
                flush=True,
            )


if __name__ == "__main__":
    main()
