"""Checker-play decisions judged by GNU Backgammon 2-ply: how much equity each engine loses per decision.

Issue 13's decision benchmark.  ``build`` plays seeded self-play games of gnubg-nn 0-ply (a uniformly
random legal play with probability ``--explore`` per move, so that less tidy positions occur too),
keeps decisions with a real choice (at least two distinct resulting positions) at random until each
class has its quota (gnubg's classes: contact, crashed, race; bear-offs of both sides home are left
out, pulvezar plays them from exact tables), and scores **every legal play** of each decision by the
judge, gnubg-nn at ``--judge-ply`` plies (also at 0 and 1 ply, to report gnubg's own plies).  The
set is written to an ``.npz`` (positions as GNU Backgammon's 10-byte Position ID keys, the rolls, the
resulting positions and their equities; the files hold outputs of running gnubg, not its data) and
is committed, so scoring a new net takes seconds:

    .venv/bin/python bench/decisions.py build --out data/decisions/gnubg2.npz   # ~1 CPU-hour (resumable)
    .venv/bin/python bench/decisions.py score data/decisions/gnubg2.npz --model MODEL [--model ...] [--ply 1]

``score`` prints per class and overall the mean loss per decision x 1000 (the judge's best equity
minus the judged equity of the engine's choice) with a 95% interval, and the share of blunders
(loss >= 0.08), for gnubg-nn at 0 and 1 ply and for each pulvezar model at 0 ply (and at ``--ply``
plies through :class:`pulvezar.search.plies.Search`), all on the same decisions.  The overall mean
weighs the classes by their shares in gnubg self-play (``class_share`` in the file), so that the
quotas do not tilt it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np

from pulvezar.eval.evaluator import NetEvaluator, default_evaluator, equity, flip, swap_boards
from pulvezar.rules import _kernel
from pulvezar.train.corpus import (
    BEAROFF,
    CLASSES,
    CONTACT,
    CRASHED,
    RACE,
    START,
    boards_of_keys,
    classify,
    keys_of,
    read_npz,
    write_npz,
)

REC = _kernel.REC
QUOTAS = {CONTACT: 1200, CRASHED: 300, RACE: 500}


def results_of(board: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """Distinct resulting boards of a roll, in the mover's view (the generator gives distinct ones)."""
    rec = _kernel.generate(board.tobytes(), d1, d2, 0)
    return np.frombuffer(rec, dtype=np.uint8).reshape(-1, REC)[:, :50].copy()


def gnubg_mover_equity(results: np.ndarray, ply: int) -> np.ndarray:
    """The mover's cubeless equity of resulting boards (mover's view) by gnubg-nn at ``ply``."""
    import gnubg_nn

    out = np.empty(len(results))
    for i, r in enumerate(results):
        mine, theirs = r[:25], r[25:]
        if not mine.any():  # the mover has borne off its last checker
            g = theirs.sum() == 15
            out[i] = 1.0 + g + (g and theirs[18:].any())
            continue
        p = gnubg_nn.probabilities([mine.tolist(), theirs.tolist()], ply)  # the opponent on roll
        out[i] = -(2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4])
    return out


def net_mover_equity(net: NetEvaluator, results: np.ndarray) -> np.ndarray:
    return np.asarray(equity(flip(net.evaluate_boards(swap_boards(results)))))


# ---- build ------------------------------------------------------------------------------------------


def sample_decisions(
    seed: int, explore: float, keep: float, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Decisions (board, dice, class) from gnubg-nn 0-ply self-play until every class quota is full."""
    rng = np.random.default_rng(seed)
    want = {k: max(1, round(v * scale)) for k, v in QUOTAS.items()}
    boards, dice, cls = [], [], []
    seen: set[bytes] = set()
    visited = np.zeros(len(CLASSES), dtype=np.int64)
    games = 0
    while any(v > 0 for v in want.values()):
        games += 1
        board, first = START.copy(), True
        while True:
            d = rng.integers(1, 7, size=2)
            while first and d[0] == d[1]:
                d = rng.integers(1, 7, size=2)
            first = False
            res = results_of(board, int(d[0]), int(d[1]))
            c = int(classify(board[None])[0])
            visited[c] += 1
            if len(res) > 1 and c < BEAROFF and want.get(c, 0) > 0 and rng.random() < keep:
                k = board.tobytes() + bytes([int(d[0]), int(d[1])])
                if k not in seen:
                    seen.add(k)
                    boards.append(board.copy())
                    dice.append((int(d[0]), int(d[1])))
                    cls.append(c)
                    want[c] -= 1
            if len(res) == 1:
                j = 0
            elif rng.random() < explore:
                j = int(rng.integers(len(res)))
            else:
                j = int(np.argmax(gnubg_mover_equity(res, 0)))
            after = res[j]
            if not after[:25].any():
                break
            board = np.concatenate([after[25:], after[:25]])
    share = visited[:3] / visited[:3].sum()
    info = {"games": games, "class_share": {CLASSES[i]: float(share[i]) for i in range(3)}}
    return np.asarray(boards, dtype=np.uint8), np.asarray(dice, dtype=np.uint8), np.asarray(cls), info


def build(args: argparse.Namespace) -> int:
    out = Path(args.out)
    work = out.with_suffix(".work")
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    sample_path = work / "sample.npz"
    if sample_path.exists():
        s = read_npz(sample_path)
        boards, dice, cls = boards_of_keys(s["keys"]), s["dice"], s["cls"]
        info = json.loads(str(s["info"].reshape(-1)[0]))
    else:
        boards, dice, cls, info = sample_decisions(args.seed, args.explore, args.keep, args.scale)
        write_npz(sample_path, keys=keys_of(boards), dice=dice, cls=cls, info=np.asarray(json.dumps(info)))
    print(f"{len(boards)} decisions from {info['games']} games; shares {info['class_share']}", flush=True)
    block = 50
    for b0 in range(0, len(boards), block):
        path = work / f"scores-{b0:05d}.npz"
        if path.exists():
            continue
        rows_keys, rows_n, e0, e1, ej = [], [], [], [], []
        for board, d in zip(boards[b0 : b0 + block], dice[b0 : b0 + block], strict=True):
            res = results_of(board, int(d[0]), int(d[1]))
            rows_keys.append(keys_of(res))
            rows_n.append(len(res))
            e0.append(gnubg_mover_equity(res, 0))
            e1.append(gnubg_mover_equity(res, 1))
            ej.append(gnubg_mover_equity(res, args.judge_ply))
        write_npz(
            path,
            keys=np.concatenate(rows_keys),
            n=np.asarray(rows_n, dtype=np.int32),
            e0=np.concatenate(e0).astype(np.float32),
            e1=np.concatenate(e1).astype(np.float32),
            judge=np.concatenate(ej).astype(np.float32),
        )
        done = min(b0 + block, len(boards))
        print(f"scored {done}/{len(boards)} in {time.perf_counter() - t0:.0f} s", flush=True)
    parts = [read_npz(work / f"scores-{b0:05d}.npz") for b0 in range(0, len(boards), block)]
    info.update(
        {
            "seed": args.seed,
            "explore": args.explore,
            "keep": args.keep,
            "judge": f"gnubg-nn {args.judge_ply}-ply",
            "quotas": {CLASSES[k]: max(1, round(v * args.scale)) for k, v in QUOTAS.items()},
        }
    )
    write_npz(
        out,
        keys=keys_of(boards),
        dice=dice,
        cls=cls.astype(np.uint8),
        n=np.concatenate([p["n"] for p in parts]),
        result_keys=np.concatenate([p["keys"] for p in parts]),
        e0=np.concatenate([p["e0"] for p in parts]),
        e1=np.concatenate([p["e1"] for p in parts]),
        judge=np.concatenate([p["judge"] for p in parts]),
        info=np.asarray(json.dumps(info, sort_keys=True)),
    )
    print(f"wrote {out}")
    return 0


# ---- score ------------------------------------------------------------------------------------------


class DecisionSet:
    def __init__(self, path: str | Path) -> None:
        d = read_npz(path)
        self.boards = boards_of_keys(d["keys"])
        self.dice = d["dice"]
        self.cls = d["cls"]
        self.n = d["n"].astype(np.intp)
        self.starts = np.concatenate([[0], np.cumsum(self.n)[:-1]])
        self.results = boards_of_keys(d["result_keys"])
        self.e0, self.e1, self.judge = d["e0"], d["e1"], d["judge"]
        self.info = json.loads(str(d["info"].reshape(-1)[0]))

    def losses(self, values: np.ndarray) -> np.ndarray:
        """Per decision, the judge's loss of the play with the highest ``values`` (first of equals)."""
        out = np.empty(len(self.n))
        for i, (s, m) in enumerate(zip(self.starts, self.n, strict=True)):
            j = self.judge[s : s + m]
            out[i] = float(j.max() - j[int(np.argmax(values[s : s + m]))])
        return out

    def report(self, name: str, loss: np.ndarray) -> dict:
        row: dict = {"engine": name}
        share = self.info["class_share"]
        overall = 0.0
        var = 0.0
        for k in (CONTACT, CRASHED, RACE):
            m = self.cls == k
            x = loss[m] * 1000
            mean = float(x.mean())
            half = float(1.96 * x.std(ddof=1) / math.sqrt(len(x)))
            row[CLASSES[k]] = (mean, half, float((loss[m] >= 0.08).mean()))
            overall += share[CLASSES[k]] * mean
            var += (share[CLASSES[k]] * half / 1.96) ** 2
        row["overall"] = (overall, 1.96 * math.sqrt(var), float("nan"))
        return row


def pulvezar_values(net: NetEvaluator, ds: DecisionSet, ply: int) -> np.ndarray:
    if ply == 0:
        return net_mover_equity(net, ds.results)
    from pulvezar.search.plies import Search

    search = Search(net)
    out = np.empty(len(ds.results))
    for s, m in zip(ds.starts, ds.n, strict=True):
        res = ds.results[s : s + m]
        probs = search.probabilities(swap_boards(res), ply - 1)  # the opponent on roll, one ply less
        out[s : s + m] = equity(flip(probs))
    return out


def score(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(1)
    ds = DecisionSet(args.set)
    print(
        f"{len(ds.n)} decisions ({', '.join(f'{CLASSES[k]} {int((ds.cls == k).sum())}' for k in range(3))}), "
        f"judge {ds.info['judge']}, class shares {ds.info['class_share']}"
    )
    rows = [ds.report("gnubg-nn 0-ply", ds.losses(ds.e0)), ds.report("gnubg-nn 1-ply", ds.losses(ds.e1))]
    models = args.model or [None]
    for m in models:
        net = NetEvaluator.load(m) if m else default_evaluator()
        label = Path(m).stem if m else "default"
        if m and Path(m).name == "model.pt":
            label = Path(m).parent.name
        for ply in sorted({0, *args.ply}):
            t0 = time.perf_counter()
            v = pulvezar_values(net, ds, ply)
            rows.append(ds.report(f"{label} {ply}-ply", ds.losses(v)))
            rows[-1]["seconds"] = time.perf_counter() - t0
    head = f"{'engine':28} " + " ".join(f"{c:>22}" for c in ("contact", "crashed", "race", "overall"))
    print(head)
    for r in rows:
        cells = []
        for c in ("contact", "crashed", "race", "overall"):
            mean, half, bl = r[c]
            cells.append(f"{mean:6.2f} +- {half:4.2f}" + (f" ({bl:4.1%})" if bl == bl else " " * 8))
        print(f"{r['engine']:28} " + " ".join(f"{x:>22}" for x in cells))
    print("loss per decision x 1000 against the judge, 95% interval (share of blunders >= 0.08)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", default="data/decisions/gnubg2.npz")
    b.add_argument("--seed", type=int, default=20261201)
    b.add_argument("--explore", type=float, default=0.05)
    b.add_argument("--keep", type=float, default=0.1)
    b.add_argument("--judge-ply", type=int, default=2)
    b.add_argument("--scale", type=float, default=1.0, help="quotas x this (a quick smaller set)")
    s = sub.add_parser("score")
    s.add_argument("set", nargs="?", default="data/decisions/gnubg2.npz")
    s.add_argument("--model", action="append")
    s.add_argument("--ply", type=int, action="append", default=[])
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity") and args.cmd == "score":
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    return build(args) if args.cmd == "build" else score(args)


if __name__ == "__main__":
    raise SystemExit(main())
