"""Learning curve of a training run: strength of each snapshot against PubEval, as CSV and PNG.

    .venv/bin/python bench/curve.py runs/td-a --pairs 100

Reads ``RUN/snapshots/*.pt`` and ``RUN/curve.csv`` (training loss), plays each
snapshot at 0-ply against PubEval with duplicate dice, luck-adjusted by the
snapshot's own net (fast; the judge only reduces variance, it cannot bias the
mean), and writes ``bench/curves/NAME.csv`` and ``bench/curves/NAME.png``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import strength

from pulvezar.eval.evaluator import NetEvaluator


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "curves")
    args = ap.parse_args()
    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for snap in sorted((args.run / "snapshots").glob("games-*.pt")):
        net = NetEvaluator.load(snap)
        me = strength.equity_player("pulvezar", strength.net_equities(net))
        r = strength.match(
            me, strength.pubeval_player(), args.pairs, args.seed, strength.net_equities(net), lambda _s: None
        )
        games = int(snap.stem.split("-")[1])
        rows.append(
            {"games": games, "ppg_vs_pubeval": r["ppg_adjusted"], "ci95": r["ci95"], "pairs": args.pairs}
        )
        print(f"{games:>9} games: {r['ppg_adjusted']:+.3f} +- {r['ci95']:.3f} ppg vs PubEval", flush=True)
    name = args.run.name
    with (args.out / f"{name}.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["games", "ppg_vs_pubeval", "ci95", "pairs"])
        w.writeheader()
        w.writerows(rows)
    loss = list(csv.DictReader((args.run / "curve.csv").open())) if (args.run / "curve.csv").exists() else []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].errorbar(
        [r["games"] for r in rows],
        [r["ppg_vs_pubeval"] for r in rows],
        yerr=[r["ci95"] for r in rows],
        marker="o",
        capsize=3,
    )
    ax[0].axhline(0.55, ls="--", c="gray", label="target +0.55")
    ax[0].axhline(0.617, ls=":", c="green", label="gnubg 0-ply (+0.617)")
    ax[0].set(xlabel="self-play games", ylabel="ppg vs PubEval (luck-adjusted, 95% CI)", title=name)
    ax[0].legend()
    if loss:
        ax[1].plot([float(r["games"]) for r in loss], [float(r["loss"]) for r in loss])
        ax[1].set(xlabel="self-play games", ylabel="training loss (BCE)", title="loss")
    fig.tight_layout()
    fig.savefig(args.out / f"{name}.png", dpi=100)
    print(f"wrote {args.out / (name + '.csv')} and .png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
