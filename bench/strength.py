"""Playing strength of pulvezar's net, measured against real engines in one run.

Cubeless money games, duplicate dice (each dice sequence is played twice with
the sides swapped) and luck-adjusted results: from each game's result the
luck of every roll is subtracted, a roll's luck being the equity after the best
play of that roll minus the average of that over all rolls (the opening roll:
over the 15 non-doubles), both judged by one fixed evaluator for both sides
(gnubg 0-ply by default).  Reports points per game with a 95% confidence
interval over the duplicate pairs, raw ppg, win and gammon rates; and the net's
evaluation speed beside gnubg's, measured in the same run.

    .venv/bin/python bench/strength.py --opponent gnubg0 --pairs 300
    .venv/bin/python bench/strength.py --opponent pubeval --pairs 300
    .venv/bin/python bench/strength.py --opponent sage0 --pairs 1000   # Open Sage's raw net (bgsage)
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import numpy as np

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import NetEvaluator, boards_of, default_evaluator, equity, flip, swap_boards
from pulvezar.eval.pubeval import scores as pubeval_scores

RULES = Rules.international()
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
ROLL_WEIGHT = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
OPENING = [(a, b) for a, b in ROLLS if a != b]


def gnubg_equities(results: np.ndarray) -> np.ndarray:
    """Mover's cubeless equity of result boards (mover view) by gnubg 0-ply."""
    import gnubg_nn

    out = np.empty(len(results))
    for i, r in enumerate(results):
        mine, theirs = r[:25], r[25:]
        if not mine.any():  # the mover has borne off everything
            g = theirs.sum() == 15
            bg = g and theirs[18:].any()
            out[i] = 1.0 + g + bg
            continue
        p = gnubg_nn.probabilities([mine.tolist(), theirs.tolist()], 0)  # opponent on roll
        out[i] = -(2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4])
    return out


def net_equities(net: NetEvaluator) -> Callable[[np.ndarray], np.ndarray]:
    def f(results: np.ndarray) -> np.ndarray:
        return equity(flip(net.evaluate_boards(swap_boards(results))))

    return f


@dataclass
class Player:
    name: str
    choose: Callable[[Position, np.ndarray], int]  # (position before, result boards) -> index


def equity_player(name: str, judge: Callable[[np.ndarray], np.ndarray]) -> Player:
    return Player(name, lambda _pos, results: int(np.argmax(judge(results))))


def sage_equities(results: np.ndarray) -> np.ndarray:
    """Mover's cubeless equity of result boards (mover view) by Open Sage's raw net (its "1ply",
    pulvezar's 0 ply; ``bgsage``, a bench extra), one thread."""
    from decisions import sage_mover_equity

    return sage_mover_equity(results, "1ply")


def opponent(name: str) -> Player:
    """The opponent named on the command line."""
    if name == "pubeval":
        return pubeval_player()
    return equity_player(name, {"gnubg0": gnubg_equities, "sage0": sage_equities}[name])


def pubeval_player() -> Player:
    def choose(pos: Position, results: np.ndarray) -> int:
        return int(np.argmax(pubeval_scores(np.frombuffer(pos.board, dtype=np.uint8), results)))

    return Player("pubeval", choose)


def results_of(pos: Position, dice: tuple[int, int]) -> np.ndarray:
    return boards_of(RULES.legal_plays(pos, dice).positions())


def luck_table(pos: Position, judge: Callable[[np.ndarray], np.ndarray], opening: bool) -> dict:
    """Best judged equity for every roll, and their average (the mover's view)."""
    rolls = OPENING if opening else ROLLS
    parts = [results_of(pos, roll) for roll in rolls]
    values = judge(np.concatenate(parts))  # one batch for all rolls
    ends = np.cumsum([len(p) for p in parts])
    best = {roll: float(seg.max()) for roll, seg in zip(rolls, np.split(values, ends[:-1]), strict=True)}
    if opening:
        mean = float(np.mean([best[r] for r in OPENING]))
    else:
        mean = float(sum(w * best[r] for w, r in zip(ROLL_WEIGHT, ROLLS, strict=True)))
    return {"best": best, "mean": mean}


def play_game(
    players: tuple[Player, Player], dice_seq: list[tuple[int, int]], judge
) -> tuple[float, float, int]:
    """One game; returns (result for player 0, luck-adjusted result for player 0, outcome points)."""
    pos = Position.start()
    turn, luck0, k = 0, 0.0, 0
    first = True
    while True:
        roll = dice_seq[k]
        k += 1
        if first:
            while roll[0] == roll[1]:
                roll = dice_seq[k]
                k += 1
        key = (max(roll), min(roll))
        table = luck_table(pos, judge, first)
        luck = table["best"][key] - table["mean"]
        luck0 += luck if turn == 0 else -luck
        first = False
        plays = RULES.legal_plays(pos, roll)
        results = boards_of(plays.positions())
        i = 0 if len(plays) == 1 else players[turn].choose(pos, results)
        after = plays[i].position
        res = RULES.game_result(after)
        if res is not None:
            pts = res.points
            r0 = pts if turn == 0 else -pts
            return float(r0), float(r0) - luck0, pts
        pos = after.swap()
        turn = 1 - turn


def dice_sequence(rng: np.random.Generator, n: int = 600) -> list[tuple[int, int]]:
    d = rng.integers(1, 7, size=(n, 2))
    return [(int(a), int(b)) for a, b in d]


def match(a: Player, b: Player, pairs: int, seed: int, judge, log: Callable[[str], None]) -> dict:
    rng = np.random.default_rng(seed)
    adj, raw, wins, gammons_won, gammons_lost = [], [], 0, 0, 0
    t0 = time.perf_counter()
    for n in range(pairs):
        seq = dice_sequence(rng)
        r1, a1, p1 = play_game((a, b), seq, judge)
        r2, a2, p2 = play_game((b, a), seq, judge)
        r2, a2 = -r2, -a2  # from a's side
        adj.append((a1 + a2) / 2)
        raw.extend([r1, r2])
        for r, p in ((r1, p1), (r2, p2)):
            wins += r > 0
            gammons_won += r > 0 and p >= 2
            gammons_lost += r < 0 and p >= 2
        if (n + 1) % 50 == 0:
            m, h = mean_ci(adj)
            log(f"  {n + 1} pairs: {m:+.3f} +- {h:.3f} ppg (luck-adjusted), {time.perf_counter() - t0:.0f} s")
    games = 2 * pairs
    m, h = mean_ci(adj)
    rm, rh = mean_ci(raw)
    return {
        "pairs": pairs,
        "games": games,
        "ppg_adjusted": m,
        "ci95": h,
        "ppg_raw": rm,
        "ci95_raw": rh,
        "win_rate": wins / games,
        "gammon_win_rate": gammons_won / games,
        "gammon_loss_rate": gammons_lost / games,
        "seconds": time.perf_counter() - t0,
    }


def mean_ci(xs: list[float]) -> tuple[float, float]:
    a = np.asarray(xs)
    if len(a) < 2:
        return float(a.mean()) if len(a) else 0.0, float("nan")
    return float(a.mean()), float(1.96 * a.std(ddof=1) / math.sqrt(len(a)))


def speed(net: NetEvaluator, seconds: float = 2.0, pool_size: int = 40_000) -> dict:
    """Net evaluations per second (one thread) at batch sizes 1, 32, 1024, and gnubg-nn's per call.

    Every board is evaluated once per engine (gnubg-nn caches evaluations, so repeats would flatter it).
    """
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    seen: set[bytes] = set()
    pos = Position.start()
    while len(seen) < pool_size:  # distinct contact positions from random play
        plays = RULES.legal_plays(pos, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
        after = plays[int(rng.integers(len(plays)))].position
        pos = after.swap() if RULES.game_result(after) is None else Position.start()
        if pos.is_contact():
            seen.add(pos.board)
        else:
            pos = Position.start()
    pool = np.frombuffer(b"".join(sorted(seen)), dtype=np.uint8).reshape(-1, 50)
    out = {}
    for bs in (1, 32, 1024):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds and n + bs <= len(pool):
            net.net_probabilities(net.contact_net, pool[n : n + bs])
            n += bs
        out[f"pulvezar_batch_{bs}"] = n / (time.perf_counter() - t0)
    try:
        import gnubg_nn

        lists = [[b[25:].tolist(), b[:25].tolist()] for b in pool]
        n, t0 = 0, time.perf_counter()
        for lb in lists:
            gnubg_nn.probabilities(lb, 0)
            n += 1
            if n % 256 == 0 and time.perf_counter() - t0 > seconds:
                break
        out["gnubg_nn_per_call"] = n / (time.perf_counter() - t0)
    except ImportError:
        pass
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opponent", choices=["gnubg0", "sage0", "pubeval"], action="append")
    ap.add_argument("--pairs", type=int, default=200, help="duplicate pairs (2 games each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", help="model file (default: the shipped net)")
    ap.add_argument("--judge", choices=["gnubg0", "net"], default="gnubg0")
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    import torch

    torch.set_num_threads(1)
    net = NetEvaluator.load(args.model) if args.model else default_evaluator()
    judge = gnubg_equities if args.judge == "gnubg0" else net_equities(net)
    me = equity_player("pulvezar-0ply", net_equities(net))
    sha = net.info.sha256[:16] if net.info is not None else "-"
    model = f"{args.model or 'default'} ({sha})"
    print(f"date {date.today()}  machine {platform.node()} nproc={os.cpu_count()}  model {model}")
    for opp_name in args.opponent or ["pubeval", "gnubg0"]:
        opp = opponent(opp_name)
        print(f"pulvezar 0-ply vs {opp.name}: {args.pairs} duplicate pairs, judge {args.judge}")
        r = match(me, opp, args.pairs, args.seed, judge, print)
        print(
            f"RESULT vs {opp.name}: {r['ppg_adjusted']:+.3f} ppg [{r['ppg_adjusted'] - r['ci95']:+.3f}, "
            f"{r['ppg_adjusted'] + r['ci95']:+.3f}] luck-adjusted over {r['games']} games; raw "
            f"{r['ppg_raw']:+.3f} +- {r['ci95_raw']:.3f}; wins {r['win_rate']:.1%}, gammons won "
            f"{r['gammon_win_rate']:.1%} lost {r['gammon_loss_rate']:.1%}; {r['seconds']:.0f} s"
        )
    if not args.no_speed:
        for k, v in speed(net).items():
            print(f"SPEED {k}: {v:,.0f} evaluations/s (one thread)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
