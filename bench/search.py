"""Time per 2-ply hint with the normal move filter: pulvezar against GNU Backgammon (PyPI ``gnubg``).

    .venv/bin/python bench/search.py [--positions 20] [--ply 2] [--device cpu]

Positions come from seeded random games (a random legal play each turn; one
contact position per game, at a random turn), each with a random roll.  Both
engines' caches are emptied before every hint, so each hint is timed cold
(caching within the hint still counts).  The engines alternate position by
position.  gnubg runs
``findbestmove`` at the same depth, cubeless, with the same filter (keep the
best plus up to 8 more within 0.16 at 0 ply, no 1-ply screen), once without
and once with its pruning nets.  Figures: median and best milliseconds per
hint and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Iterator

import torch

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import NetEvaluator, default_evaluator
from pulvezar.search import Search

RULES = Rules.international()
GNUBG_CACHE = 1 << 19


def positions(n: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    rng = random.Random(seed)
    out: list[tuple[Position, tuple[int, int]]] = []
    while len(out) < n:
        p, turns = Position.start(), rng.randint(2, 30)
        for _ in range(turns):
            plays = RULES.legal_plays(p, (rng.randint(1, 6), rng.randint(1, 6)))
            q = plays[rng.randrange(len(plays))].position
            if RULES.game_result(q) is not None or not q.is_contact():
                break
            p = q.swap()
        else:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            if len(RULES.legal_plays(p, dice)) > 1:
                out.append((p, dice))
    return out


def gnubg_filters(gnubg: object, ply: int) -> list[dict[str, float]]:
    filters: list[dict[str, float]] = gnubg.getevalhintfilter()  # type: ignore[attr-defined]
    for f in filters:
        if f["ply"] == ply:
            normal = f["level"] == 0
            f.update(acceptmoves=0 if normal else -1, extramoves=8 if normal else 0)
            f.update(threshold=0.16 if normal else 0.0)
    return filters


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--device", default=None, help="torch device of the net (default: cuda if present)")
    args = ap.parse_args()

    ev = default_evaluator()
    if args.device:
        ev = NetEvaluator.load(ev_path(), device=args.device)
    search = Search(ev, RULES)
    cases = positions(args.positions + 1, args.seed)
    try:
        import gnubg
    except ImportError:
        gnubg = None
    # warm-up (first call: torch kernels, gnubg weights)
    p0, d0 = cases.pop()
    search.rank(p0, d0, args.ply, "normal")
    if gnubg is not None:
        filters = gnubg_filters(gnubg, args.ply)
        ci = gnubg.cubeinfo()
        ctx = {prune: gnubg.evalcontext(0, args.ply, 1, prune, 0.0) for prune in (0, 1)}
        gnubg.findbestmove(gnubg.positionfromid(p0.position_id), ci, ctx[0], d0, filters)

    ours: list[float] = []
    theirs: dict[int, list[float]] = {0: [], 1: []}
    agree = {0: 0, 1: 0}
    hits = misses = 0
    for p, dice in cases:
        hits, misses = hits + search.cache.hits, misses + search.cache.misses
        search.cache.clear()
        t = time.perf_counter()
        best = search.rank(p, dice, args.ply, "normal")[0]
        ours.append(time.perf_counter() - t)
        if gnubg is None:
            continue
        board = gnubg.positionfromid(p.position_id)
        for prune in (0, 1):
            with quiet():  # resizing empties gnubg's position cache
                gnubg.command("set cache 0")
                gnubg.command(f"set cache {GNUBG_CACHE}")
            t = time.perf_counter()
            move = gnubg.findbestmove(board, ci, ctx[prune], dice, filters)
            theirs[prune].append(time.perf_counter() - t)
            ours_moves = sorted((m.src, m.dst) for m in best.play.moves)
            pairs = sorted(zip(move[::2], move[1::2], strict=True))
            agree[prune] += ours_moves == pairs

    def ms(xs: list[float]) -> str:
        return f"median {1000 * statistics.median(xs):7.1f} ms  best {1000 * min(xs):7.1f} ms"

    print(f"machine: {platform.processor() or platform.machine()}, torch threads {torch.get_num_threads()}")
    print(f"net device: {ev.device}; {len(cases)} positions, {args.ply}-ply, normal filter")
    print(f"pulvezar            {ms(ours)}")
    hits, misses = hits + search.cache.hits, misses + search.cache.misses
    per = search.cached.evaluated / len(cases)
    print(f"  cache: {hits} hits, {misses} misses; {per:.0f} boards reached the net per hint")
    if gnubg is None:
        print("gnubg: not installed (pip install gnubg)")
        return 0
    for prune in (0, 1):
        label = "gnubg (pruning)" if prune else "gnubg"
        ratio = statistics.median(ours) / statistics.median(theirs[prune])
        print(f"{label:<19} {ms(theirs[prune])}  pulvezar/gnubg = {ratio:.1f}x", end="")
        print(f"  same move {agree[prune]}/{len(cases)} (by checker moves; a rough check)")
    return 0


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence what C code prints on file descriptor 1."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def ev_path() -> str:
    from pulvezar.eval.evaluator import DEFAULT_MODEL

    return str(DEFAULT_MODEL)


if __name__ == "__main__":
    raise SystemExit(main())
