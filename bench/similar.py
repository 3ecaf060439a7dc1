"""Similar positions: query time on an archive of 100,000 positions (target: under 100 ms per query).

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python bench/similar.py [--size 100000] [--queries 200]

The archive is filled with the decisions of self-play games of pulvezar's own bot (the shipped net at
0 ply, seeded dice; a quarter of the games Tavla, the rest international), each entry with its match,
game and move numbers, date, dice and play, as the analysis jobs store them.  The queries are positions
of other self-play games (not in the archive), valued by :meth:`ArchiveIndex.query` with the product's
settings (at most 12 hits, at least 60 %), one at a time, single-threaded.

Printed: the time to fill the archive and to build the index (``add``), the ``.npz`` file's size and
save/load times, the time the gateway needs to rebuild the index from the entries' JSON (as it reads
them from Redis), the query time (p50, p90, p99, max over the queries), the hits per query, and the
share of archive entries at or above 60 % for a random query (how selective the threshold is), and the
metric's calibration on the same self-play (``docs/similar-positions.md``): the similarity of two positions
of one game one and two rolls per side apart, and of positions of different games (median, share >= 60 %).
A new default net changes the self-play; ``--calibration-only`` prints the calibration alone (faster).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from pulvezar import Position, Rules
from pulvezar.archive.similar import ArchiveEntry, ArchiveIndex, similarities


def self_play(
    n: int, seed: int, tavla_share: float
) -> list[tuple[Position, tuple[int, int], str, int, int, str]]:
    """``n`` decisions: (position, dice, play, game, move, rules name)."""
    from pulvezar import default_evaluator

    ev = default_evaluator()
    rng = np.random.default_rng(seed)
    out: list[tuple[Position, tuple[int, int], str, int, int, str]] = []
    game = 0
    while len(out) < n:
        game += 1
        rules = Rules.tavla() if rng.random() < tavla_share else Rules.international()
        p, move = Position.start(), 1
        while rules.game_result(p) is None and len(out) < n:
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            play = ev.best_play(p, dice, rules)
            out.append((p, dice, play.notation, game, move, rules.name))
            p, move = play.position.swap(), move + 1
    return out


def calibration(
    decisions: list[tuple[Position, tuple[int, int], str, int, int, str]], pairs: int = 2000
) -> None:
    """Similarity of positions of one game (the same side on roll, 2 and 4 plies apart) and of different
    games."""
    rng = np.random.default_rng(7)
    by_key = {(g, m): p for p, _, _, g, m, _ in decisions}
    keys = list(by_key)
    for apart, label in ((2, "one roll per side apart"), (4, "two rolls per side apart")):
        later = ((k, (k[0], k[1] + apart)) for k in (keys[i] for i in rng.permutation(len(keys))))
        sims = [
            float(similarities(by_key[a], np.frombuffer(by_key[b].board, dtype=np.uint8).reshape(1, 50))[0])
            for a, b in itertools.islice(((a, b) for a, b in later if b in by_key), pairs)
        ]
        print(f"  same game, {label:24}: median {np.median(sims):.0%}  ({len(sims)} pairs)")
    boards = np.frombuffer(b"".join(by_key[k].board for k in keys), dtype=np.uint8).reshape(-1, 50)
    games = np.array([k[0] for k in keys])
    sims, hits = [], 0
    for i in rng.choice(len(keys), size=min(200, len(keys)), replace=False):
        other = np.flatnonzero(games != games[i])
        pick = rng.choice(other, size=min(pairs // 20, len(other)), replace=False)
        s_ = similarities(by_key[keys[i]], boards[pick])
        sims.extend(s_.tolist())
        hits += int((s_ >= 0.6).sum())
    print(
        f"  different games               : median {np.median(sims):.0%}, "
        f"{hits / len(sims):.1%} of pairs >= 60 %"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tavla-share", type=float, default=0.25)
    ap.add_argument(
        "--calibration-only", action="store_true", help="self-play of --size decisions, calibration"
    )
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    if args.calibration_only:
        print(f"similarity calibration, self-play of {args.size:,} decisions of the default net")
        calibration(self_play(args.size, args.seed, args.tavla_share))
        return

    t0 = time.perf_counter()
    decisions = self_play(args.size, args.seed, args.tavla_share)
    t_play = time.perf_counter() - t0
    t0 = time.perf_counter()
    entries = [
        ArchiveEntry(
            f"match:bench-{g // 50}:{g % 50 + 1}:{m}",
            p.position_id,
            "match",
            match=f"bench-{g // 50}",
            game=g % 50 + 1,
            move=m,
            date="2026-11-29",
            play=play,
            dice=dice,
            rules=rules,
        )
        for p, dice, play, g, m, rules in decisions
    ]
    t_entries = time.perf_counter() - t0
    t0 = time.perf_counter()
    index = ArchiveIndex()
    index.add(entries)
    t_add = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "archive.npz"
        t0 = time.perf_counter()
        index.save(path)
        t_save = time.perf_counter() - t0
        size = path.stat().st_size
        t0 = time.perf_counter()
        loaded = ArchiveIndex.load(path)
        t_load = time.perf_counter() - t0
        assert len(loaded) == len(index)
    texts = [json.dumps(e.as_dict()) for e in entries]
    t0 = time.perf_counter()
    ArchiveIndex(ArchiveEntry.trusted(json.loads(t)) for t in texts)
    t_rebuild = time.perf_counter() - t0

    queries = [p for p, *_ in self_play(args.queries, args.seed + 1000, args.tavla_share)]
    index.query(queries[0])  # warm-up (imports, first allocation)
    times, hits = [], []
    for q in queries:
        t0 = time.perf_counter()
        h = index.query(q)
        times.append(time.perf_counter() - t0)
        hits.append(len(h))
    ms = np.array(times) * 1e3
    boards = np.frombuffer(b"".join(e.position.board for e in entries), dtype=np.uint8).reshape(-1, 50)
    shares = [float((similarities(q, boards) >= 0.6).mean()) for q in queries[:20]]

    n_tavla = sum(r == "tavla" for *_, r in decisions)
    omp = os.environ.get("OMP_NUM_THREADS", "-")
    print(
        f"similar positions, archive of {len(index):,} positions ({n_tavla:,} Tavla), {args.queries} queries"
    )
    print(f"  one thread (OMP_NUM_THREADS={omp}), the product's settings: at most 12 hits, at least 60 %")
    print(f"  self-play to fill it      {t_play:8.1f} s   (entries {t_entries:.1f} s, classify included)")
    print(f"  index.add (all at once)   {t_add * 1e3:8.0f} ms")
    print(f"  save / load .npz          {t_save * 1e3:8.0f} / {t_load * 1e3:.0f} ms, {size / 1e6:.1f} MB")
    print(
        f"  rebuild from JSON entries {t_rebuild:8.2f} s   (what the gateway does when the archive changed)"
    )
    p50, p90, p99 = np.percentile(ms, [50, 90, 99])
    print(
        f"  query: p50 {p50:.1f} ms, p90 {p90:.1f} ms, p99 {p99:.1f} ms, max {ms.max():.1f} ms"
        " (target < 100 ms)"
    )
    print(f"  hits per query: mean {np.mean(hits):.1f}, queries with none {sum(h == 0 for h in hits)}")
    print(f"  share of the archive at >= 60 % for one query: median {np.median(shares):.4f}, "
          f"max {max(shares):.4f}")  # fmt: skip
    calibration(decisions)


if __name__ == "__main__":
    main()
