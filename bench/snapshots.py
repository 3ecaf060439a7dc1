"""Strength of model files (a run's snapshots and weight averages) against one opponent, as CSV and PNG.

    .venv/bin/python bench/snapshots.py --csv bench/curves/td-c-gnubg0.csv --pairs 500 MODEL [MODEL ...]

Each model plays ``--pairs`` duplicate pairs at 0-ply with the same dice (``--seed``), luck-adjusted by
gnubg 0-ply: the harness of ``strength.py`` (one model here gives the figures of ``strength.py --model M
--pairs N --opponent gnubg0 --no-speed``).  Models already in the CSV (same sha256, opponent, pairs and
seed) are skipped, so the command can be re-run as snapshots appear; the PNG plots every row against the
self-play games of the model (for an average: of its last snapshot).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import strength

from pulvezar.eval.evaluator import NetEvaluator

FIELDS = ["label", "run", "kind", "games", "opponent", "ppg", "ci95", "pairs", "seed", "sha256"]


def games_of(net: NetEvaluator) -> tuple[int, str]:
    run = net.info.run if net.info is not None else {}
    if "averaged" in run:
        return max(int(s["games_done"] or 0) for s in run["averaged"]), f"average of {len(run['averaged'])}"
    return int(run.get("games_done") or 0), "snapshot"


def plot(rows: list[dict[str, str]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    groups = sorted({(r["run"], r["kind"].split()[0]) for r in rows})
    for run, kind in groups:
        marker = "o" if kind == "snapshot" else "s"
        sel = [r for r in rows if r["run"] == run and r["kind"].startswith(kind)]
        sel.sort(key=lambda r: int(r["games"]))
        if sel:
            ax.errorbar(
                [int(r["games"]) for r in sel], [float(r["ppg"]) for r in sel],
                yerr=[float(r["ci95"]) for r in sel], marker=marker, capsize=3,
                ls="-" if kind == "snapshot" else "", label=f"{run} {kind}s",
            )  # fmt: skip
    opp = rows[0]["opponent"] if rows else ""
    if opp == "gnubg0":
        ax.axhline(-0.05, ls="--", c="gray", label="target -0.05")
        ax.axhline(0.0, ls=":", c="green", label="gnubg 0-ply")
    ax.set(xlabel="self-play games", ylabel=f"ppg vs {opp} (luck-adjusted, 95% CI)", title=out.stem)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", type=Path)
    ap.add_argument("--csv", type=Path, required=True)
    ap.add_argument("--opponent", choices=["gnubg0", "pubeval"], default="gnubg0")
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    rows = list(csv.DictReader(args.csv.open())) if args.csv.exists() else []
    done = {(r["sha256"], r["opponent"], r["pairs"], r["seed"]) for r in rows}
    opp = strength.pubeval_player() if args.opponent == "pubeval" else strength.equity_player(
        "gnubg0", strength.gnubg_equities
    )  # fmt: skip
    for path in args.models:
        net = NetEvaluator.load(path)
        sha = net.info.sha256 if net.info is not None else ""
        if (sha, args.opponent, str(args.pairs), str(args.seed)) in done:
            continue
        me = strength.equity_player("pulvezar-0ply", strength.net_equities(net))
        r = strength.match(me, opp, args.pairs, args.seed, strength.gnubg_equities, lambda _s: None)
        games, kind = games_of(net)
        run = str(net.info.run.get("name", "?")) if net.info is not None else "?"
        label = f"{run}-{games // 1000}k" if kind == "snapshot" else path.stem
        row = {
            "label": label, "run": run, "kind": kind, "games": games, "opponent": args.opponent,
            "ppg": f"{r['ppg_adjusted']:.4f}", "ci95": f"{r['ci95']:.4f}", "pairs": args.pairs,
            "seed": args.seed, "sha256": sha,
        }  # fmt: skip
        rows.append({k: str(v) for k, v in row.items()})
        print(f"{path}: {r['ppg_adjusted']:+.3f} +- {r['ci95']:.3f} ppg vs {args.opponent}", flush=True)
        args.csv.parent.mkdir(parents=True, exist_ok=True)
        with args.csv.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            w.writerows(rows)
    if rows:
        plot(rows, args.csv.with_suffix(".png"))
        print(f"wrote {args.csv} and {args.csv.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
