"""Legal-play generation rate: pulvezar against gnubg-nn, per call from Python, one core.

Builds a fixed, seeded set of reachable positions (random games from the
start: each turn a random roll and a uniformly random legal play, then the
turn passes) and crosses it with all 21 rolls.  Each engine then runs over
the same cases, one call per case from a plain Python loop:

* ``api``     ``rules.legal_plays(position, (d1, d2))``, the public API (input:
  a prebuilt :class:`Position`);
* ``kernel``  ``_kernel.generate(board, d1, d2, 0)``, the raw C entry point
  (input: the prebuilt 50-byte board);
* ``gnubg``   ``gnubg_nn.moves(board, d1, d2)`` (input: the prebuilt
  ``[theirs, mine]`` list of lists);
* ``loop``    the same loop with no call, to show what the loop itself costs.

Rounds are interleaved (the engine order rotates each round) so that drift on a
shared machine hits every engine alike; the garbage collector is off while a
loop runs, as ``timeit`` does.  The process is pinned to one CPU.  Before the
timing, every case is checked: both engines must give the same set of
resulting positions (gnubg-nn returns no move where pulvezar returns the one
empty play, which counts as equal).

    .venv/bin/python bench/movegen.py [--cases N] [--repeat R] [--cpu C]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

from pulvezar.rules import _kernel
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules

ROLLS: list[tuple[int, int]] = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def random_positions(n: int, seed: int = 20261129, rules: Rules | None = None) -> list[Position]:
    """``n`` positions met in seeded random games, each one as the player on roll sees it."""
    rules = rules or Rules.international()
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        p = Position.start()
        while len(out) < n:
            out.append(p)
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            boards = rules.legal_plays(p, dice).boards()
            p = Position._from_board(boards[rng.randrange(len(boards))])
            if rules.game_result(p) is not None:
                break
            p = p.swap()
    return out


def build_cases(n_cases: int, seed: int = 20261129) -> list[tuple[Position, tuple[int, int]]]:
    """About ``n_cases`` (position, roll) cases: ``n_cases // 21`` positions x all 21 rolls."""
    positions = random_positions(max(1, n_cases // len(ROLLS)), seed)
    return [(p, r) for p in positions for r in ROLLS]


def gnubg_board(p: Position) -> list[list[int]]:
    """gnubg's board: ``[opponent, player on roll]``, each in its owner's numbering."""
    return [list(p.theirs), list(p.mine)]


def check_same(cases: list[tuple[Position, tuple[int, int]]]) -> tuple[int, int]:
    """Compare the result sets of the two engines; returns (cases that differ, total plays)."""
    import gnubg_nn

    rules = Rules.international()
    bad = total = 0
    for p, (d1, d2) in cases:
        ours = set(rules.legal_plays(p, (d1, d2)).boards())
        keys = set(gnubg_nn.moves(gnubg_board(p), d1, d2))
        theirs = set()
        for k in keys:
            b = gnubg_nn.board_from_position_key(k)
            theirs.add(bytes(b[1]) + bytes(b[0]))
        if len(theirs) != len(keys):  # two keys for one position would be a bug in the check
            bad += 1
            continue
        if not theirs:  # no legal move: gnubg returns nothing, pulvezar the position unchanged
            theirs = {p.board}
        total += len(ours)
        if ours != theirs:
            bad += 1
    return bad, total


def _timed(fn: Callable[[], None]) -> float:
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0
    finally:
        gc.enable()


def make_runners(cases: list[tuple[Position, tuple[int, int]]]) -> dict[str, Callable[[], None]]:
    """One closure per engine, each looping over its own prebuilt inputs."""
    import gnubg_nn

    rules = Rules.international()
    api_cases = list(cases)
    raw_cases = [(p.board, d1, d2) for p, (d1, d2) in cases]
    gnu_cases = [(gnubg_board(p), d1, d2) for p, (d1, d2) in cases]

    def run_api() -> None:
        lp = rules.legal_plays
        for p, dice in api_cases:
            lp(p, dice)

    def run_kernel() -> None:
        gen = _kernel.generate
        for b, d1, d2 in raw_cases:
            gen(b, d1, d2, 0)

    def run_gnubg() -> None:
        mv = gnubg_nn.moves
        for b, d1, d2 in gnu_cases:
            mv(b, d1, d2)

    def run_loop() -> None:
        for _b, _d1, _d2 in raw_cases:
            pass

    return {"api": run_api, "kernel": run_kernel, "gnubg": run_gnubg, "loop": run_loop}


def measure(runners: dict[str, Callable[[], None]], repeat: int, warmup: int = 1) -> dict[str, list[float]]:
    """Seconds per full pass for each runner, ``repeat`` interleaved rounds (order rotates)."""
    names = list(runners)
    for _ in range(warmup):
        for name in names:
            runners[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeat):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            times[name].append(_timed(runners[name]))
    return times


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    py = sys.version.split()[0]
    return f"{model}, nproc={os.cpu_count()}, {platform.system()} {platform.release()}, Python {py}"


def pin(cpu: int | None) -> int | None:
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    chosen = allowed[-1] if cpu is None else cpu
    os.sched_setaffinity(0, {chosen})
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=21_000, help="position x roll cases (rounded to x21)")
    ap.add_argument("--repeat", type=int, default=9, help="interleaved timing rounds")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default: the last allowed)")
    ap.add_argument("--no-check", action="store_true", help="skip the result-set comparison")
    args = ap.parse_args(argv)

    cpu = pin(args.cpu)
    import gnubg_nn  # noqa: F401  (fail early when the oracle is missing)

    cases = build_cases(args.cases, args.seed)
    n = len(cases)
    plays = [len(Rules.international().legal_plays(p, d)) for p, d in cases]
    print(f"date     {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"machine  {machine()}; pinned to CPU {cpu}")
    print(
        f"cases    {n} = {n // len(ROLLS)} positions x 21 rolls, seed {args.seed}; "
        f"mean {statistics.fmean(plays):.1f} plays per case, max {max(plays)}"
    )
    if not args.no_check:
        bad, total = check_same(cases)
        print(f"check    {n - bad}/{n} cases give the same result set as gnubg-nn ({total} plays)")
        if bad:
            print("check    FAILED", file=sys.stderr)
            return 1

    times = measure(make_runners(cases), args.repeat)
    loop_best = min(times["loop"])
    print(f"\n{'engine':<8} {'best/s':>10} {'median/s':>10} {'ns/call best':>13} {'ns/call med':>12}")
    for name in ("api", "kernel", "gnubg"):
        best, med = min(times[name]), statistics.median(times[name])
        print(
            f"{name:<8} {n / best:>10,.0f} {n / med:>10,.0f} {1e9 * best / n:>13,.0f} {1e9 * med / n:>12,.0f}"
        )
    print(f"{'loop':<8} {'':>10} {'':>10} {1e9 * loop_best / n:>13,.0f}   (the bare loop, no call)")

    print("\nratio pulvezar / gnubg-nn (cases per second; > 1 means pulvezar is faster)")
    for name in ("api", "kernel"):
        best = min(times["gnubg"]) / min(times[name])
        med = statistics.median(times["gnubg"]) / statistics.median(times[name])
        paired = statistics.median(g / t for g, t in zip(times["gnubg"], times[name], strict=True))
        print(f"{name:<8} best {best:.2f}x   median {med:.2f}x   median of per-round ratios {paired:.2f}x")
    wrap = (min(times["api"]) - min(times["kernel"])) / n * 1e9
    print(f"\nwrapper cost (api - kernel, best): {wrap:,.0f} ns per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
