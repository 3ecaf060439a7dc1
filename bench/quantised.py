"""Issue 32: the quantised accumulator kernel against the float nets and against gnubg-nn, in one run.

    .venv/bin/python bench/quantised.py                       # everything, ~15 min
    .venv/bin/python bench/quantised.py speed                 # ~1 min
    .venv/bin/python bench/quantised.py exactness choices     # ~2 min
    .venv/bin/python bench/quantised.py match --pairs 1000    # ~10 min

- ``exactness``: the shipped model quantised against itself in float on ``--positions`` corpus positions
  (default 100,000, every class the evaluator routes): max and mean |equity difference| per class (the
  bounds: 0.003 and 0.0005), and whether the portable kernel gives the AVX2 kernel's bits on all of them.
- ``choices``: ``--decisions`` (default 10,000) corpus positions with a random roll and at least two
  plays: how often the quantised net's 0-ply play is the float net's (the bound: 99.5%).
- ``match``: ``--pairs`` duplicate pairs (two games on the same dice) of the quantised net against the
  float net at 0 ply, luck-adjusted by the float net (the bound: within +-0.005 ppg).
- ``speed``: 0-ply evaluations per second when valuing every play of a roll, per decision, one core:
  gnubg-nn's ``bestmove`` (0 ply, one call per decision) against pulvezar on the same decisions, through
  the batched path search and rollouts use (``lockstep.greedy_chooser``: all plays of ``--batch``
  decisions, each play updated from its parent on the quantised kernel) and per decision through the
  public API (``best_play``); for the shipped model in float and quantised and for candidate
  architectures of the kernel (``--candidates``; untrained nets: speed only, their strength is
  issue 28's and 32's training work).  Ratios > 1: pulvezar is faster.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import platform
import sys
import time
from collections.abc import Callable
from datetime import date
from functools import partial
from pathlib import Path

import numpy as np

from pulvezar import Position, Rules
from pulvezar.eval import _qnet
from pulvezar.eval.encoding import FEATURES_BY_VERSION
from pulvezar.eval.evaluator import NetEvaluator, default_model_path, equity
from pulvezar.rollouts.lockstep import greedy_chooser
from pulvezar.train.corpus import boards_of_keys, load_corpus

RULES = Rules.international()
CORPUS = Path(__file__).resolve().parent.parent / "data" / "corpus" / "positions.npz"
CANDIDATES = "1:256x32x32,1:512x32x32,2:256x32x32,4:256x32x32"


def corpus_boards(n: int, seed: int) -> np.ndarray:
    """``n`` corpus positions (international rules), drawn at random."""
    c = load_corpus(CORPUS)
    rows = np.flatnonzero(c["rules"] == 0)
    pick = np.random.default_rng(seed).choice(rows, size=min(n, len(rows)), replace=False)
    return boards_of_keys(c["keys"][np.sort(pick)])


def decisions(n: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``n`` corpus positions with a random roll and at least two legal plays."""
    rng = np.random.default_rng(seed)
    out = []
    for b in corpus_boards(3 * n, seed):
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        pos = Position.from_board(b.tobytes())
        if RULES.game_result(pos) is None and pos.pips()[0] > 0 and len(RULES.legal_plays(pos, d)) >= 2:
            out.append((pos, d))
            if len(out) == n:
                break
    return out


def exactness(f: NetEvaluator, q: NetEvaluator, n: int) -> None:
    boards = corpus_boards(n, seed=1)
    t = time.perf_counter()
    ef, eq = equity(f.evaluate_boards(boards)), equity(q.evaluate_boards(boards))
    d = np.abs(ef - eq)
    print(f"\nexactness: {len(boards)} corpus positions ({time.perf_counter() - t:.0f} s)")
    from pulvezar.eval import _forward
    from pulvezar.eval.evaluator import board_flags

    flags = board_flags(boards)
    classes = {
        "contact": (flags & _forward.FLAG_CONTACT != 0) & (flags & _forward.FLAG_CRASHED == 0),
        "crashed": flags & _forward.FLAG_CRASHED != 0,
        "race (net)": (flags & (_forward.FLAG_CONTACT | _forward.FLAG_HOME) == 0),
        "exact (bear-off, over)": (
            flags & (_forward.FLAG_HOME | _forward.FLAG_WON | _forward.FLAG_LOST) != 0
        ),
    }
    print(f"  {'class':24} {'positions':>9} {'max |d eq|':>11} {'mean':>10}")
    for name, m in [("all", np.ones(len(d), bool)), *classes.items()]:
        if m.any():
            print(f"  {name:24} {int(m.sum()):9d} {d[m].max():11.5f} {d[m].mean():10.6f}")
    print(f"  bounds: max <= 0.003 {'holds' if d.max() <= 0.003 else 'FAILS'}, "
          f"mean <= 0.0005 {'holds' if d.mean() <= 0.0005 else 'FAILS'}")  # fmt: skip
    if _qnet.simd() == 1:
        _qnet.simd(0)
        portable = q.evaluate_boards(boards)
        _qnet.simd(1)
        same = (portable == q.evaluate_boards(boards)).all()
        print(f"  portable kernel == AVX2 kernel, bit for bit: {bool(same)}")
    else:
        print("  this CPU has no AVX2: the portable kernel ran")


def choices(f: NetEvaluator, q: NetEvaluator, n: int) -> None:
    same, t = 0, time.perf_counter()
    cases = decisions(n, seed=2)
    for pos, d in cases:
        plays = RULES.legal_plays(pos, d)
        same += int(np.argmax(f.play_equities(plays)) == np.argmax(q.play_equities(plays)))
    share = same / len(cases)
    print(f"\nchoices: {len(cases)} decisions ({time.perf_counter() - t:.0f} s): the same 0-ply play on "
          f"{100 * share:.2f}% (bound >= 99.5%: {'holds' if share >= 0.995 else 'FAILS'})")  # fmt: skip


def duplicate(f: NetEvaluator, q: NetEvaluator, pairs: int, seed: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from strength import equity_player, match, net_equities

    print(f"\nmatch: quantised vs float at 0 ply, {pairs} duplicate pairs, luck-adjusted by the float net")
    r = match(
        equity_player("quantised", net_equities(q)),
        equity_player("float", net_equities(f)),
        pairs,
        seed,
        net_equities(f),
        print,
    )
    lo, hi = r["ppg_adjusted"] - r["ci95"], r["ppg_adjusted"] + r["ci95"]
    print(f"  quantised - float: {r['ppg_adjusted']:+.4f} [{lo:+.4f}, {hi:+.4f}] ppg ({r['seconds']:.0f} s); "
          f"raw {r['ppg_raw']:+.4f}")  # fmt: skip


def candidate(spec: str) -> NetEvaluator:
    """An untrained evaluator of a candidate architecture, ``VERSION:WxWxW`` (clipped ReLU;
    ``VERSION:WxWxWL``: the hand-made inputs join the second layer)."""
    import torch

    from pulvezar.eval.nets import ValueNet

    version, widths = spec.split(":")
    late = widths.endswith("L")
    sizes = [int(w) for w in widths.rstrip("L").split("x")]
    torch.manual_seed(0)
    feats = FEATURES_BY_VERSION[int(version)]
    nets = [ValueNet(features=feats, widths=sizes, activation="crelu", late=late) for _ in range(3)]
    return NetEvaluator(nets[0], nets[2], encoding_version=int(version), crashed_net=nets[1], device="cpu")


def gnubg_decisions(cases: list[tuple[Position, tuple[int, int]]]) -> None:
    import gnubg_nn

    for p, d in cases:
        gnubg_nn.bestmove([list(p.theirs), list(p.mine)], d[0], d[1])


def batched_decisions(ev: NetEvaluator, boards: np.ndarray, dice: np.ndarray, batch: int) -> None:
    for i in range(0, len(boards), batch):
        greedy_chooser(boards[i : i + batch], dice[i : i + batch], RULES, ev)


def api_decisions(ev: NetEvaluator, cases: list[tuple[Position, tuple[int, int]]]) -> None:
    for p, d in cases:
        ev.best_play(p, d, RULES)


def speed(
    f: NetEvaluator, q: NetEvaluator, path: str | Path, candidates: list[str], n: int, rounds: int, batch: int
) -> None:
    """Each round on decisions of its own: gnubg-nn caches evaluations, and repeats would flatter it."""
    all_cases = decisions(n * rounds, seed=3)
    engines: list[tuple[str, NetEvaluator]] = [("shipped, float", f), ("shipped, quantised", q)]
    auto = NetEvaluator.load(path)
    if auto.quantised:  # some nets quantised: plain ones stay in float by default
        engines.append(("shipped, as loaded (plain nets in float)", auto))
    engines += [(f"candidate {c} (untrained)", candidate(c)) for c in candidates]
    best: dict[str, float] = {}

    def clock(name: str, plays: int, fn: Callable[[], object]) -> None:
        t = time.perf_counter()
        fn()
        best[name] = max(best.get(name, 0.0), plays / (time.perf_counter() - t))

    total = 0
    for r in range(rounds):  # interleaved rounds, the best of each
        cases = all_cases[r * n : (r + 1) * n]
        plays = sum(len(RULES.legal_plays(p, d)) for p, d in cases)
        total += plays
        boards = np.frombuffer(b"".join(p.board for p, _ in cases), dtype=np.uint8).reshape(-1, 50)
        dice = np.array([d for _, d in cases], dtype=np.int64)
        clock("gnubg-nn bestmove", plays, partial(gnubg_decisions, cases))
        for name, ev in engines:
            clock(f"{name}: batch of {batch}", plays, partial(batched_decisions, ev, boards, dice, batch))
            clock(f"{name}: per decision", plays, partial(api_decisions, ev, cases))
    g = best["gnubg-nn bestmove"]
    print(f"\nspeed: {rounds} rounds of {n} decisions each (distinct), {total / (n * rounds):.1f} plays a "
          "decision, the best round of each engine, interleaved, one core")  # fmt: skip
    print(f"  {'engine':52} {'plays/s':>10} {'x gnubg-nn':>10}")
    for name, rate in best.items():
        print(f"  {name:52} {rate:10.0f} {rate / g:10.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("parts", nargs="*", default=["exactness", "choices", "speed", "match"])
    ap.add_argument("--model", help="model file (default: the shipped net)")
    ap.add_argument("--positions", type=int, default=100_000)
    ap.add_argument("--decisions", type=int, default=10_000)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--speed-decisions", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64, help="decisions per batched call (speed)")
    ap.add_argument("--candidates", default=CANDIDATES, help="comma-separated VERSION:WxWxW ('' for none)")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    import torch

    torch.set_num_threads(1)
    path = args.model or default_model_path()
    f, q = NetEvaluator.load(path, quantised=False), NetEvaluator.load(path, quantised=True)
    print(f"date {date.today()}  machine {platform.node()} nproc={os.cpu_count()}  model {Path(path).name}")
    print(f"kernel: {'AVX2' if _qnet.simd() else 'portable'}; scales of the contact net: "
          f"{q._quantised_net(q.contact_net).scales.caps} caps, act_bits "  # type: ignore[union-attr]
          f"{q._quantised_net(q.contact_net).scales.act_bits}")  # type: ignore[union-attr]  # fmt: skip
    for part in args.parts:
        if part == "exactness":
            exactness(f, q, args.positions)
        elif part == "choices":
            choices(f, q, args.decisions)
        elif part == "speed":
            cands = [c for c in args.candidates.split(",") if c]
            speed(f, q, path, cands, args.speed_decisions, args.rounds, args.batch)
        elif part == "match":
            duplicate(f, q, args.pairs, args.seed)
        else:
            ap.error(f"unknown part {part}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
