"""Does the cube change the book's best opening play?  The book's top plays with a money cube.

The opening books are cubeless: Tavla has no cube, and the international book is made the way the
published opening rollouts are.  For each roll of the international book this sets the cubeless gap
between its two best plays (the book's rollouts, with their paired noise) beside two cubeful ones:

* **Janowski**: the same rollout probabilities through Janowski's money formula with a centred cube
  and the opening's cube efficiency (``x = 0.68``, contact).  No new trials.  It catches the main
  way the cube changes values: a live cube takes the gammons out of many games.
* **rollout** (``--rollout-rolls 21,43``): a cubeful money rollout of the two plays, same dice for
  both, 0-ply cube decisions.  The cubeful trials carry no variance reduction, so the noise is large
  (about 0.1 per 72 trials): use it for one or two rolls with many trials.

A gap whose sign the cube changes, beyond the noise, marks a roll where the absence of the cube
changes the best play.

    OMP_NUM_THREADS=1 .venv/bin/python bench/book_cube.py --out bench/results/book-cube.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from pulvezar import Position, Rules
from pulvezar.book import BookCandidate, load_book, read_book
from pulvezar.book.model import PROBABILITY_NAMES
from pulvezar.cubeful.janowski import Cube, efficiency, money_cubeful
from pulvezar.rollouts.engine import rollout_plays
from pulvezar.rollouts.stats import block_se, difference_noise


def janowski(c: BookCandidate, jacoby: bool) -> float:
    """Cubeful money equity (centred cube) of a candidate from its rollout probabilities."""
    probs = np.array([[c.probabilities[k] for k in PROBABILITY_NAMES]])
    after = Position.from_position_id(c.position_id)
    x = efficiency(np.frombuffer(after.board, dtype=np.uint8).reshape(1, 50))
    return float(money_cubeful(probs, "centre", x, jacoby)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--book", type=Path, default=None, help="default: the shipped international book")
    ap.add_argument("--rollout-rolls", default="", help="cubeful rollouts of these rolls, e.g. 21,43")
    ap.add_argument("--trials", type=int, default=5184, help="trials of each cubeful rollout")
    ap.add_argument("--jacoby", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    book = read_book(args.book) if args.book else load_book("international")
    rules = Rules.international()
    rollout_rolls = {r for r in args.rollout_rolls.split(",") if r}
    rows: list[dict[str, Any]] = []
    print(f"{platform.node()}  {book.engine.get('model')}  jacoby {args.jacoby}")
    print("roll  top two                        cubeless gap       Janowski gap   cubeful rollout gap")
    for r in book.rolls:
        if len(r.candidates) < 2:
            continue
        a, b = r.candidates[0], r.candidates[1]
        gap, gap_se = a.rollout_equity - b.rollout_equity, b.rollout_diff_se
        jgap = janowski(a, args.jacoby) - janowski(b, args.jacoby)
        row: dict[str, Any] = {
            "roll": r.roll,
            "plays": [a.play, b.play],
            "cubeless_gap": round(gap, 5),
            "cubeless_gap_se": gap_se,
            "janowski_gap": round(jgap, 5),
        }
        line = f"{r.roll:<5} {a.play + ' vs ' + b.play:<30} {gap:+.4f} ± {gap_se or 0:.4f}    {jgap:+.4f}"
        if r.roll in rollout_rolls:
            legal = rules.legal_plays(Position.start(), r.dice)
            t = time.time()
            x, y = rollout_plays(
                Position.start(), r.dice, [legal.find(a.play), legal.find(b.play)], trials=args.trials,
                seed=args.seed, cubeful=True, cube=Cube(jacoby=args.jacoby),
            )  # fmt: skip
            assert x.cubeful is not None and y.cubeful is not None
            cf, cf_se = x.cubeful_equity - y.cubeful_equity, block_se(x.trials_run, x.cubeful - y.cubeful)
            row.update(
                rollout_trials=args.trials,
                rollout_cubeless_gap=round(x.equity - y.equity, 5),
                rollout_cubeless_gap_se=round(difference_noise(x, y), 5),
                rollout_cubeful_gap=round(cf, 5),
                rollout_cubeful_gap_se=round(cf_se, 5),
                seconds=round(time.time() - t, 1),
            )
            line += f"        {cf:+.4f} ± {cf_se:.4f} ({args.trials} trials, {row['seconds']:.0f} s)"
        rows.append(row)
        print(line, flush=True)
    if args.out:
        meta = {
            "book": str(args.book or "data/book/international.json"),
            "model": book.engine.get("model"),
            "jacoby": args.jacoby,
            "seed": args.seed,
            "cube": "centred money; Janowski x from pulvezar.cubeful.janowski.efficiency; rollouts 0-ply",
            "host": platform.node(),
            "date": time.strftime("%Y-%m-%d %H:%M"),
        }
        args.out.write_text(json.dumps({"meta": meta, "rolls": rows}, indent=1) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
