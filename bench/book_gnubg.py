"""The book's disputed opening plays rolled out by GNU Backgammon in the same run, beside the book.

Where the international book and a published rollout disagree beyond their combined noise, this asks
a third engine on the same machine: Debian gnubg 1.07 rolls out the book's candidates of the given
rolls at 0-ply, cubeless, with variance reduction and one seed for every play (the settings of the
published GNU tables), and the gaps to the book's best are printed beside the book's own gaps.

* gnubg agrees with the book: the published figure is the outlier (an older net, fewer trials).
* gnubg agrees with the publication: the book's rollout player misjudges those positions; the
  rollout engine itself is checked against gnubg elsewhere (``bench/rollout_agreement.py``).

gnubg's standard errors are per position; the gap's noise is taken as the two combined as if
independent (an upper bound: the plays share the dice).

    .venv/bin/python bench/book_gnubg.py --rolls 51,43 --trials 2592 --out bench/results/book-gnubg.json
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

from pulvezar import Position
from pulvezar.book import load_book, read_book

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_agreement import GnubgRun


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--book", type=Path, default=None, help="default: the shipped international book")
    ap.add_argument("--rolls", required=True, help="e.g. 51,43")
    ap.add_argument("--top", type=int, default=3, help="the book's best N candidates of each roll")
    ap.add_argument("--trials", type=int, default=2592)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    book = read_book(args.book) if args.book else load_book("international")
    rows = []
    for name in args.rolls.split(","):
        entry = book.roll(name)
        for c in entry.candidates[: args.top]:
            rows.append((entry, c))
    # gnubg rolls out the position with the opponent on roll; its equity is the opponent's
    pids = [Position.from_position_id(c.position_id).swap().position_id for _, c in rows]
    t = time.time()
    results = GnubgRun(pids, args.trials, args.seed).results()
    secs = time.time() - t
    model = book.engine.get("model")
    print(f"{platform.node()}  book {model}  gnubg 0-ply, {args.trials} trials, seed {args.seed}")
    print("roll  play              book rollout        gap                 gnubg rollout       gap")
    out = []
    best_g: dict[str, tuple[float, float]] = {}
    for (entry, c), g in zip(rows, results, strict=True):
        eq, se = -g.equity, g.se
        if c is entry.best:
            best_g[entry.roll] = (eq, se)
        b_eq, b_se = best_g[entry.roll]
        gap_g, gap_g_se = b_eq - eq, (0.0 if c is entry.best else math.hypot(b_se, se))
        gap_b = entry.best.rollout_equity - c.rollout_equity
        gap_b_se = c.rollout_diff_se if c.rollout_diff_se is not None else 0.0
        print(
            f"{entry.roll:<5} {c.play:<17} {c.rollout_equity:+.4f} ± {c.rollout_se:.4f}   "
            f"{gap_b:+.4f} ± {gap_b_se:.4f}     {eq:+.4f} ± {se:.4f}   {gap_g:+.4f} ± {gap_g_se:.4f}"
        )
        out.append({
            "roll": entry.roll, "play": c.play, "book_rollout": c.rollout_equity, "book_se": c.rollout_se,
            "book_gap": round(gap_b, 5), "book_gap_se": gap_b_se, "gnubg_rollout": round(eq, 5),
            "gnubg_se": se, "gnubg_gap": round(gap_g, 5), "gnubg_gap_se": round(gap_g_se, 5),
            "gnubg_static": round(-g.static_equity, 5),
        })  # fmt: skip
    print(f"gnubg: {secs:.0f} s for {len(rows)} rollouts of {args.trials} trials")
    if args.out:
        meta = {
            "book_model": model,
            "trials": args.trials,
            "seed": args.seed,
            "gnubg": "Debian gnubg 1.07, 0-ply, cubeless, variance reduction, quasi-random dice",
            "seconds": round(secs),
            "host": platform.node(),
            "date": time.strftime("%Y-%m-%d %H:%M"),
        }
        args.out.write_text(json.dumps({"meta": meta, "plays": out}, indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
