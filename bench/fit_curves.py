"""Learning curves of supervised fits side by side, as a PNG: held-out decision loss and equity RMSE.

    .venv/bin/python bench/fit_curves.py --out bench/results/curves-teachers.png \
        "gnubg 0/1/2-ply=bench/results/curve-g2f-2026-12-04.csv" "...=CSV" ...

Each argument is ``LABEL=CSV``, a fit's ``curve.csv`` (``pulvezar train fit`` writes it in its workdir:
epoch, losses, held-out equity RMSE and decision loss per epoch).  Epoch 0 (the nets before training) is left
out, so fresh nets do not stretch the axes.  Needs matplotlib (the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path


def read_curve(path: Path) -> dict[str, list[float]]:
    """The CSV's columns as floats, epoch 0 left out."""
    with path.open() as f:
        rows = [r for r in csv.DictReader(f) if int(r["epoch"]) > 0]
    return {k: [float(r[k]) if r[k] not in ("", "nan") else float("nan") for r in rows] for k in rows[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("curves", nargs="+", help="LABEL=CSV")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--title", default="Contact-net fits by label sources (held-out positions)")
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for item in args.curves:
        label, _, path = item.rpartition("=")
        c = read_curve(Path(path))
        ax1.plot(c["epoch"], c["holdout_decision_loss"], marker=".", label=label or Path(path).stem)
        ax2.plot(c["epoch"], c["holdout_equity_rmse"], marker=".", label=label or Path(path).stem)
    ax1.set(xlabel="epoch", ylabel="decision loss per decision x 1000", title="held-out decision loss")
    ax2.set(xlabel="epoch", ylabel="equity RMSE", title="held-out equity RMSE")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
    ax1.legend(fontsize=8)
    fig.suptitle(args.title)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
