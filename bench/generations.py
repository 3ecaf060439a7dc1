"""Strength of each generation of a supervised run (``pulvezar train supervised``), as CSV and PNG.

    .venv/bin/python bench/generations.py runs/sup-a --pairs 200
    .venv/bin/python bench/generations.py runs/sup-a --pairs 200 --openings   # also the opening plays

For every ``RUN/gen-NNN/model.pt`` (generation 0 is the net the run started
from) it plays pulvezar at 0-ply against gnubg 0-ply and PubEval exactly as
``bench/strength.py`` does (duplicate dice, luck-adjusted by gnubg 0-ply unless
``--judge net``; the same dice sequences for every generation, so generations
are compared on paired games) and writes ``bench/curves/NAME-generations.csv``
and ``.png`` with the run's own figures (positions, trials, held-out loss, wall
time) beside ppg with 95% confidence intervals, and each generation's paired
difference to generation 0.  Per-pair results are cached in
``gen-NNN/strength.json``, so a re-run only plays what is new.

``--openings``: the 0-ply and master-level (2-ply) choice for each of the 15
opening rolls, checked against the table of established plays in
``tests/analysis/test_openings.py``, and the net's cubeless equity of the start
position beside gnubg 0-ply's.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import strength

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import NetEvaluator, equity

ROOT = Path(__file__).resolve().parent.parent


def play_pairs(net: NetEvaluator, opponent: str, pairs: int, seed: int, judge_name: str) -> list[float]:
    """Luck-adjusted ppg of each duplicate pair (pulvezar's side), as ``strength.match`` plays them."""
    me = strength.equity_player("pulvezar-0ply", strength.net_equities(net))
    opp = (
        strength.pubeval_player()
        if opponent == "pubeval"
        else strength.equity_player("gnubg0", strength.gnubg_equities)
    )
    judge = strength.gnubg_equities if judge_name == "gnubg0" else strength.net_equities(net)
    rng = np.random.default_rng(seed)
    out = []
    for n in range(pairs):
        seq = strength.dice_sequence(rng)
        _, a1, _ = strength.play_game((me, opp), seq, judge)
        _, a2, _ = strength.play_game((opp, me), seq, judge)
        out.append((a1 - a2) / 2)
        if (n + 1) % 100 == 0 and n + 1 < pairs:
            print(f"  {n + 1} pairs vs {opponent}: {np.mean(out):+.3f} ppg", flush=True)
    return out


def openings(net: NetEvaluator) -> dict[str, Any]:
    """Opening choices at 0-ply and master level against the accepted plays, and the start equity."""
    from pulvezar.search import hint

    spec = importlib.util.spec_from_file_location("openings", ROOT / "tests/analysis/test_openings.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    start, rules = Position.start(), Rules.international()
    plays: dict[str, dict[str, Any]] = {}
    for roll, accepted in mod.ACCEPTED.items():
        legal = rules.legal_plays(start, roll)
        ok = {legal.find(p).position for p in accepted}
        row = {}
        for label, level in (("0ply", None), ("master", "master")):
            best = hint(start, roll, level=level, evaluator=net)[0]
            row[label] = best.play.notation
            row[f"{label}_ok"] = best.play.position in ok
        plays[f"{roll[0]}{roll[1]}"] = row
    result: dict[str, Any] = {
        "plays": plays,
        "ok_0ply": sum(r["0ply_ok"] for r in plays.values()),
        "ok_master": sum(r["master_ok"] for r in plays.values()),
        "start_equity": float(equity(net.evaluate(start)[None, :])[0]),
    }
    try:
        import gnubg_nn

        b = np.frombuffer(start.board, dtype=np.uint8)
        p = gnubg_nn.probabilities([b[25:].tolist(), b[:25].tolist()], 0)
        result["start_equity_gnubg0"] = float(2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4])
    except ImportError:
        pass
    return result


def mean_ci(xs: list[float]) -> tuple[float, float]:
    a = np.asarray(xs)
    return float(a.mean()), float(1.96 * a.std(ddof=1) / math.sqrt(len(a)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--pairs", type=int, default=200, help="duplicate pairs per opponent and generation")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--opponent", choices=["gnubg0", "pubeval"], action="append")
    ap.add_argument("--judge", choices=["gnubg0", "net"], default="gnubg0")
    ap.add_argument("--openings", action="store_true")
    ap.add_argument("--generations", help="comma-separated generations (default: all with a model)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "curves")
    args = ap.parse_args()
    torch.set_num_threads(1)
    opponents = args.opponent or ["gnubg0", "pubeval"]
    gens = sorted(int(p.parent.name.split("-")[1]) for p in args.run.glob("gen-*/model.pt"))
    if args.generations:
        gens = [g for g in gens if g in {int(x) for x in args.generations.split(",")}]
    run_rows = {}
    if (args.run / "generations.csv").exists():
        run_rows = {int(r["generation"]): r for r in csv.DictReader((args.run / "generations.csv").open())}
    rows: list[dict[str, Any]] = []
    per_pair: dict[tuple[int, str], list[float]] = {}
    for g in gens:
        gdir = args.run / f"gen-{g:03d}"
        cache_path = gdir / "strength.json"
        cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
        net = NetEvaluator.load(gdir / "model.pt", device="cpu")
        row: dict[str, Any] = {"generation": g}
        rr = run_rows.get(g, {})
        for k in (
            "positions", "trials", "truncate", "holdout_loss_before", "holdout_loss_after",
            "holdout_equity_rmse_before", "holdout_equity_rmse_after",
        ):  # fmt: skip
            row[k] = rr.get(k, "")
        row["wall_s"] = (
            sum(float(rr[k]) for k in ("seconds_positions", "seconds_targets", "seconds_train")) if rr else ""
        )
        for opp in opponents:
            key = f"{opp}/pairs={args.pairs}/seed={args.seed}/judge={args.judge}"
            if key not in cache:
                cache[key] = play_pairs(net, opp, args.pairs, args.seed, args.judge)
                cache_path.write_text(json.dumps(cache) + "\n")
            xs = cache[key]
            per_pair[(g, opp)] = xs
            m, h = mean_ci(xs)
            row[f"ppg_vs_{opp}"], row[f"ci95_{opp}"] = round(m, 4), round(h, 4)
            if g != gens[0]:
                d, dh = mean_ci(list(np.asarray(xs) - np.asarray(per_pair[(gens[0], opp)])))
                row[f"diff_vs_gen{gens[0]}_{opp}"], row[f"diff_ci95_{opp}"] = round(d, 4), round(dh, 4)
            print(
                f"gen {g}: {m:+.3f} [{m - h:+.3f}, {m + h:+.3f}] ppg vs {opp} ({args.pairs} pairs)",
                flush=True,
            )
        if args.openings:
            if "openings" not in cache:
                cache["openings"] = openings(net)
                cache_path.write_text(json.dumps(cache) + "\n")
            o = cache["openings"]
            row["openings_ok_0ply"], row["openings_ok_master"] = o["ok_0ply"], o["ok_master"]
            row["start_equity"] = round(o["start_equity"], 4)
            bad = {r: v["master"] for r, v in o["plays"].items() if not v["master_ok"]}
            print(
                f"gen {g}: openings {o['ok_0ply']}/15 at 0-ply, {o['ok_master']}/15 at master "
                f"{bad or ''}; start equity {o['start_equity']:+.3f} "
                f"(gnubg 0-ply {o.get('start_equity_gnubg0', float('nan')):+.3f})",
                flush=True,
            )
        rows.append(row)
    if not rows:
        print(f"no generations in {args.run}")
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"{args.run.resolve().name}-generations"
    fieldnames = list(dict.fromkeys(k for r in rows for k in r))
    with (args.out / f"{name}.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fieldnames)
        w.writeheader()
        w.writerows(rows)
    plot(rows, opponents, args.out / f"{name}.png", name)
    print(f"wrote {args.out / (name + '.csv')} and .png")
    return 0


def plot(rows: list[dict[str, Any]], opponents: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, len(opponents) + 1, figsize=(5 * (len(opponents) + 1), 4))
    gens = [r["generation"] for r in rows]
    goals = {"gnubg0": (-0.05, 0.0), "pubeval": (0.55, 0.617)}
    for a, opp in zip(ax, opponents, strict=False):
        a.errorbar(
            gens, [r[f"ppg_vs_{opp}"] for r in rows], yerr=[r[f"ci95_{opp}"] for r in rows], marker="o"
        )
        lo, hi = goals[opp]
        a.axhline(lo, ls="--", c="gray", label=f"target {lo:+.2f}")
        a.axhline(
            hi, ls=":", c="green", label="final target" if opp == "gnubg0" else "gnubg 0-ply vs PubEval"
        )
        a.set(xlabel="generation", ylabel=f"ppg vs {opp} (luck-adjusted, 95% CI)", title=title)
        a.set_xticks(gens)
        a.legend()
    # each generation's held-out targets, valued by the previous generation's net and by its own
    for r in rows:
        if r.get("holdout_equity_rmse_after"):
            g = r["generation"]
            before, after = float(r["holdout_equity_rmse_before"]), float(r["holdout_equity_rmse_after"])
            ax[-1].plot([g - 1, g], [before, after], marker="o", c="tab:blue")
    ax[-1].set(
        xlabel="net of generation",
        ylabel="equity RMSE on the generation's held-out targets",
        title="net vs its generation's rollout targets",
    )
    ax[-1].set_xticks(gens)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    raise SystemExit(main())
