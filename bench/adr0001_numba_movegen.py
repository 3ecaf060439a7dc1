"""ADR 0001 prototype: the move generator in Numba, measured against the C kernel.

A port of the algorithm of ``libs/pulvezar/rules/_kernel.c`` (depth-first
search over the dice orders, a board copy per ply, the best (moves, pips)
kept, duplicates dropped through an open-addressing hash table, the same
64-byte records), international rules plus the two Tavla flags.  It is a
measurement aid for docs/adr/0001-compiled-hot-path.md, not part of the package.

Run with ``NUMBA_DISABLE_JIT=1`` the very same functions execute as plain
CPython (on ``bytearray``/``list`` buffers instead of NumPy arrays), which is
how the script measures the "plain Python" option.

    .venv/bin/python bench/adr0001_numba_movegen.py [--cases N] [--repeat R]

Reports, on the cases of bench/movegen.py (same seed): per-call rates from
Python for the C kernel, for the Numba port (recursive like the C: called with
the 50-byte ``bytes`` board, and with a prebuilt NumPy array; and an
explicit-stack variant), and for plain Python (on a subset);
first-call JIT compile time (no cache, and from Numba's on-disk cache); import
time of each option in a fresh interpreter; installed size.  Every case is
checked: the Numba port must return byte-identical records as a set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

PLAIN = bool(numba.config.DISABLE_JIT)
njit = numba.njit(cache=os.environ.get("ADR_NUMBA_CACHE") == "1", nogil=True)

REC = 64
BAR = 24
M48 = (1 << 48) - 1

if PLAIN:

    def _alloc_u8(n):  # type: ignore[no-untyped-def]
        return bytearray(n)

    def _alloc_int(n):  # type: ignore[no-untyped-def]
        return [0] * n

else:

    @njit
    def _alloc_u8(n):  # type: ignore[no-untyped-def]
        return np.zeros(n, np.uint8)

    @njit
    def _alloc_int(n):  # type: ignore[no-untyped-def]
        return np.zeros(n, np.int64)


# Levels of the board stack: bs[50*k : 50*k + 50] is the board after k moves
# (mover's 25 counts, then the opponent's).  st = [n, best_moves, best_pips, hits, flags].


@njit
def _hash(bs, o):  # type: ignore[no-untyped-def]
    h = 1469598103934665603 & M48
    for i in range(50):
        h = ((h ^ bs[o + i]) * 1099511628211) & M48
    return h ^ (h >> 29)


@njit
def _record(bs, o, nmoves, pips, st, frm, to, dd, tt):  # type: ignore[no-untyped-def]
    if nmoves < st[1] or (nmoves == st[1] and pips < st[2]):
        return 0
    table = tt[0]
    if nmoves > st[1] or pips > st[2]:
        st[1] = nmoves
        st[2] = pips
        st[0] = 0
        for j in range(len(table)):
            table[j] = 0
    data = dd[0]
    mask = len(table) - 1
    j = _hash(bs, o) & mask
    while table[j]:
        r = (table[j] - 1) * REC
        same = True
        for i in range(50):
            if data[r + i] != bs[o + i]:
                same = False
                break
        if same:
            return 0
        j = (j + 1) & mask
    n = st[0]
    if (n + 1) * REC > len(data):
        nd = _alloc_u8(2 * len(data))
        nd[: len(data)] = data
        dd[0] = nd
        data = nd
    r = n * REC
    for i in range(50):
        data[r + i] = bs[o + i]
    for i in range(50, REC):
        data[r + i] = 0
    data[r + 50] = nmoves
    for k in range(nmoves):
        data[r + 51 + 2 * k] = frm[k]
        data[r + 52 + 2 * k] = to[k]
    data[r + 59] = st[3] & ((1 << nmoves) - 1)
    data[r + 60] = pips
    table[j] = n + 1
    st[0] = n + 1
    if 2 * (n + 1) > len(table):  # grow and rehash
        ncap = 2 * len(table)
        nt = _alloc_int(ncap)
        for k in range(n + 1):
            jj = _hash(data, k * REC) & (ncap - 1)
            while nt[jj]:
                jj = (jj + 1) & (ncap - 1)
            nt[jj] = k + 1
        tt[0] = nt
    return 0


@njit
def _highest(bs, o):  # type: ignore[no-untyped-def]
    for i in range(BAR, -1, -1):
        if bs[o + i]:
            return i
    return -1


@njit
def _target(bs, o, i, d, hi, frozen):  # type: ignore[no-untyped-def]
    if bs[o + i] <= frozen[i]:
        return -2
    if bs[o + BAR] and i != BAR:
        return -2
    t = i - d
    if t >= 0:
        if bs[o + 25 + 23 - t] >= 2:
            return -2
        return t
    if hi > 5:
        return -2
    if t == -1 or i == hi:
        return -1
    return -2


@njit
def _search(bs, depth, dice, ndice, pips, max_from, st, frm, to, frozen, dd, tt):  # type: ignore[no-untyped-def]
    o = 50 * depth
    if depth == ndice:
        return _record(bs, o, depth, pips, st, frm, to, dd, tt)
    d = dice[depth]
    hi = _highest(bs, o)
    found = False
    forced_off = (st[4] & 2) != 0 and 0 <= hi <= 5 and (bs[o + d - 1] > 0 or hi < d - 1)
    top = max_from if max_from < BAR else BAR
    for i in range(top, -1, -1):
        if not bs[o + i]:
            continue
        t = _target(bs, o, i, d, hi, frozen)
        if t == -2 or (forced_off and t >= 0):
            continue
        found = True
        no = o + 50
        for k in range(50):
            bs[no + k] = bs[o + k]
        hits = st[3]
        fz = frozen[t] if t >= 0 else 0
        # apply the move on the next level
        bs[no + i] -= 1
        frm[depth] = i + 1
        if t < 0:
            to[depth] = 0
        else:
            bs[no + t] += 1
            to[depth] = t + 1
            if bs[no + 25 + 23 - t] == 1:
                bs[no + 25 + 23 - t] = 0
                bs[no + 25 + BAR] += 1
                st[3] = hits | (1 << depth)
                if (st[4] & 1) != 0 and t <= 5:
                    frozen[t] += 1
        # doubles: checkers move in non-increasing order of their start point
        _search(bs, depth + 1, dice, ndice, pips + d, i if ndice == 4 else BAR, st, frm, to, frozen, dd, tt)
        st[3] = hits
        if t >= 0:
            frozen[t] = fz
        if bs[o + BAR]:
            break  # bar checker: one entry per die suffices
    if not found:
        return _record(bs, o, depth, pips, st, frm, to, dd, tt)
    return 0


@njit
def _search_iter(bs, dice, ndice, st, frm, to, frozen, dd, tt, ws):  # type: ignore[no-untyped-def]
    """``_search`` with an explicit stack (no recursion, so Numba can cache and inline it).

    ws holds, per depth k: ws[k] next start index, ws[5+k] highest index,
    ws[10+k] forced bear-off, ws[15+k] found, ws[20+k] saved hits,
    ws[25+k] saved frozen count, ws[30+k] target, ws[35+k] pips, ws[40+k] max start.
    """
    depth = 0
    ws[35] = 0
    ws[40] = BAR
    entering = True
    while True:
        o = 50 * depth
        if entering:
            entering = False
            if depth == ndice:
                _record(bs, o, depth, ws[35 + depth], st, frm, to, dd, tt)
                depth -= 1
                o = 50 * depth
                st[3] = ws[20 + depth]
                if ws[30 + depth] >= 0:
                    frozen[ws[30 + depth]] = ws[25 + depth]
                ws[depth] = -1 if bs[o + BAR] else ws[depth] - 1
                continue
            d = dice[depth]
            hi = _highest(bs, o)
            ws[5 + depth] = hi
            ws[10 + depth] = (
                1 if ((st[4] & 2) != 0 and 0 <= hi <= 5 and (bs[o + d - 1] > 0 or hi < d - 1)) else 0
            )
            ws[15 + depth] = 0
            ws[depth] = ws[40 + depth] if ws[40 + depth] < BAR else BAR
        d = dice[depth]
        i = ws[depth]
        t = -2
        while i >= 0:
            if bs[o + i]:
                t = _target(bs, o, i, d, ws[5 + depth], frozen)
                if t != -2 and not (ws[10 + depth] and t >= 0):
                    break
                t = -2
            i -= 1
        if i >= 0:
            ws[depth] = i
            ws[15 + depth] = 1
            no = o + 50
            for k in range(50):
                bs[no + k] = bs[o + k]
            hits = st[3]
            ws[20 + depth] = hits
            ws[25 + depth] = frozen[t] if t >= 0 else 0
            ws[30 + depth] = t
            bs[no + i] -= 1
            frm[depth] = i + 1
            if t < 0:
                to[depth] = 0
            else:
                bs[no + t] += 1
                to[depth] = t + 1
                if bs[no + 25 + 23 - t] == 1:
                    bs[no + 25 + 23 - t] = 0
                    bs[no + 25 + BAR] += 1
                    st[3] = hits | (1 << depth)
                    if (st[4] & 1) != 0 and t <= 5:
                        frozen[t] += 1
            ws[35 + depth + 1] = ws[35 + depth] + d
            ws[40 + depth + 1] = i if ndice == 4 else BAR
            depth += 1
            entering = True
            continue
        # this depth is exhausted
        if not ws[15 + depth]:
            _record(bs, o, depth, ws[35 + depth], st, frm, to, dd, tt)
        if depth == 0:
            return 0
        depth -= 1
        o = 50 * depth
        st[3] = ws[20 + depth]
        if ws[30 + depth] >= 0:
            frozen[ws[30 + depth]] = ws[25 + depth]
        ws[depth] = -1 if bs[o + BAR] else ws[depth] - 1


@njit
def generate_iter(board, d1, d2, flags):  # type: ignore[no-untyped-def]
    """``generate_arr`` on the explicit-stack search."""
    bs = _alloc_u8(250)
    for i in range(50):
        bs[i] = board[i]
    st = _alloc_int(5)
    st[4] = flags
    frm = _alloc_int(4)
    to = _alloc_int(4)
    frozen = _alloc_int(25)
    ws = _alloc_int(45)
    dd = [_alloc_u8(64 * REC)]
    tt = [_alloc_int(256)]
    dice = _alloc_int(4)
    if d1 == d2:
        for k in range(4):
            dice[k] = d1
        _search_iter(bs, dice, 4, st, frm, to, frozen, dd, tt, ws)
    else:
        hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
        dice[0] = hi
        dice[1] = lo
        _search_iter(bs, dice, 2, st, frm, to, frozen, dd, tt, ws)
        dice[0] = lo
        dice[1] = hi
        _search_iter(bs, dice, 2, st, frm, to, frozen, dd, tt, ws)
    return dd[0][: st[0] * REC]


@njit
def generate_arr(board, d1, d2, flags):  # type: ignore[no-untyped-def]
    """The records (as a uint8 array in Numba, a bytearray in plain Python) for one roll."""
    bs = _alloc_u8(250)
    for i in range(50):
        bs[i] = board[i]
    st = _alloc_int(5)
    st[4] = flags
    frm = _alloc_int(4)
    to = _alloc_int(4)
    frozen = _alloc_int(25)
    dd = [_alloc_u8(64 * REC)]
    tt = [_alloc_int(256)]
    dice = _alloc_int(4)
    if d1 == d2:
        for k in range(4):
            dice[k] = d1
        _search(bs, 0, dice, 4, 0, BAR, st, frm, to, frozen, dd, tt)
    else:
        hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
        dice[0] = hi
        dice[1] = lo
        _search(bs, 0, dice, 2, 0, BAR, st, frm, to, frozen, dd, tt)
        dice[0] = lo
        dice[1] = hi
        _search(bs, 0, dice, 2, 0, BAR, st, frm, to, frozen, dd, tt)
    return dd[0][: st[0] * REC]


def generate(board: bytes, d1: int, d2: int, flags: int = 0) -> bytes:
    """Same contract as ``_kernel.generate``: bytes of 64-byte records."""
    return bytes(generate_arr(board, d1, d2, flags))


# ---------------------------------------------------------------- measurement


def _records(raw: bytes) -> set[bytes]:
    return {raw[i : i + REC] for i in range(0, len(raw), REC)}


def _best_median(fn, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    import gc

    ts = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
        gc.enable()
    return min(ts), statistics.median(ts)


def _fresh(code: str, env: dict[str, str] | None = None) -> str:
    """Run ``code`` in a fresh interpreter pinned like this one; returns its stdout."""
    e = dict(os.environ)
    e.update(env or {})
    e["PYTHONPATH"] = str(Path(__file__).parent) + os.pathsep + e.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, check=True)
    return out.stdout


def _dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="ADR 0001: Numba vs C kernel vs plain Python")
    ap.add_argument("--cases", type=int, default=21_000)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--plain-cases", type=int, default=2_100, help="cases for the (slow) plain-Python run")
    ap.add_argument("--seed", type=int, default=20261129)
    args = ap.parse_args(argv)

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    sys.path.insert(0, str(Path(__file__).parent))
    from movegen import build_cases, machine

    from pulvezar.rules import _kernel

    cases = build_cases(args.cases, args.seed)
    raw = [(p.board, d1, d2) for p, (d1, d2) in cases]
    arrs = [(np.frombuffer(b, np.uint8).copy(), d1, d2) for b, d1, d2 in raw]
    n = len(raw)
    print(f"machine  {machine()}")
    print(f"cases    {n} (bench/movegen.py cases, seed {args.seed}); numba {numba.__version__}")

    # first call: JIT compile, in fresh interpreters.  Numba's on-disk cache
    # segfaults on reload for the recursive search (numba issue #6061), so the
    # cached figure is for the explicit-stack variant only.
    def first_code(fn: str) -> str:
        return (
            "import time; t=time.perf_counter(); import adr0001_numba_movegen as m; t1=time.perf_counter();"
            f"b=bytes([0]*5+[5,0,3,0,0,0,0,5]+[0]*10+[2,0])*2; m.{fn}(b,3,1,0); t2=time.perf_counter();"
            f"m.{fn}(b,6,6,0); t3=time.perf_counter(); print(t1-t, t2-t1, t3-t2)"
        )

    with tempfile.TemporaryDirectory() as cache:
        env = {"NUMBA_CACHE_DIR": cache, "ADR_NUMBA_CACHE": "1"}
        cold = [float(x) for x in _fresh(first_code("generate_arr")).split()]
        cold_it = [float(x) for x in _fresh(first_code("generate_iter")).split()]
        _fresh(first_code("generate_iter"), env)  # fill the cache
        warm = min(
            ([float(x) for x in _fresh(first_code("generate_iter"), env).split()] for _ in range(3)),
            key=lambda v: v[1],
        )
    print(
        f"\nfirst call = JIT compile, no cache: recursive {cold[1]:.2f} s, "
        f"explicit stack {cold_it[1]:.2f} s; "
        f"explicit stack from Numba's on-disk cache: {warm[1] * 1e3:.0f} ms "
        f"(recursive + cache: segfault, numba#6061)"
    )

    # correctness: byte-identical record sets on every case
    bad = 0
    for b, d1, d2 in raw:
        ref = _kernel.generate(b, d1, d2, 0)
        got = generate(b, d1, d2, 0)
        got_it = bytes(generate_iter(b, d1, d2, 0))
        if len(ref) != len(got) or _records(ref) != _records(got) or _records(ref) != _records(got_it):
            bad += 1
    print(f"check    {n - bad}/{n} cases: both Numba variants' records == C kernel records (as sets)")

    # per-call rates, interleaved rounds
    gen_c = _kernel.generate
    gen_nb = generate_arr

    def run_c() -> None:
        for b, d1, d2 in raw:
            gen_c(b, d1, d2, 0)

    def run_nb_bytes() -> None:  # same input and output types as the C kernel
        for b, d1, d2 in raw:
            bytes(gen_nb(b, d1, d2, 0))

    def run_nb_array() -> None:  # Numba's best case: prebuilt arrays in, an array out
        for a, d1, d2 in arrs:
            gen_nb(a, d1, d2, 0)

    gen_it = generate_iter

    def run_nb_iter() -> None:
        for b, d1, d2 in raw:
            bytes(gen_it(b, d1, d2, 0))

    runners = {
        "C kernel": run_c,
        "Numba (bytes)": run_nb_bytes,
        "Numba (array)": run_nb_array,
        "Numba stack": run_nb_iter,
    }
    times: dict[str, list[float]] = {k: [] for k in runners}
    for fn in runners.values():
        fn()
    for r in range(args.repeat):
        names = list(runners)
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(_best_median(runners[name], 1)[0])
    results = {}
    for name, ts in times.items():
        results[name] = (n / min(ts), n / statistics.median(ts))

    # plain Python: the same functions with NUMBA_DISABLE_JIT=1, on a subset
    plain_code = (
        "import time, json, adr0001_numba_movegen as m\n"
        "from movegen import build_cases\n"
        f"cs=build_cases({args.plain_cases}, {args.seed})\n"
        "raw=[(p.board,a,b) for p,(a,b) in cs]\n"
        "ts=[]\n"
        "for _ in range(3):\n"
        "    t=time.perf_counter()\n"
        "    for b,a,c in raw: m.generate(b,a,c,0)\n"
        "    ts.append(time.perf_counter()-t)\n"
        "print(json.dumps([len(raw)/min(ts), len(raw)/sorted(ts)[1]]))\n"
    )
    pl = json.loads(_fresh(plain_code, {"NUMBA_DISABLE_JIT": "1"}))
    results["plain Python"] = (pl[0], pl[1])

    c_best, _ = results["C kernel"]
    print(f"\n{'option':<16} {'best/s':>10} {'median/s':>10} {'us/call':>8} {'vs C (best)':>12}")
    for name, (best, med) in results.items():
        print(f"{name:<16} {best:>10,.0f} {med:>10,.0f} {1e6 / best:>8.2f} {best / c_best:>11.2f}x")
    print(f"(plain Python on {args.plain_cases // 21 * 21} of the cases)")

    # import time in a fresh interpreter (best of 5)
    def imp(stmt: str) -> float:
        code = f"import time; t=time.perf_counter(); {stmt}; print(time.perf_counter()-t)"
        return min(float(_fresh(code)) for _ in range(5))

    print("\nimport time, fresh interpreter, best of 5:")
    print(f"  pulvezar.rules (C kernel)     {imp('import pulvezar.rules._kernel') * 1e3:7.1f} ms")
    print(f"  numpy                         {imp('import numpy') * 1e3:7.1f} ms")
    print(f"  numba                         {imp('import numba') * 1e3:7.1f} ms")
    print(
        f"  numba + this prototype        {imp('import adr0001_numba_movegen') * 1e3:7.1f} ms (jit is lazy)"
    )

    site = Path(numba.__file__).parent.parent
    import llvmlite

    so = Path(_kernel.__file__)
    nb_mb = _dir_size(Path(numba.__file__).parent) / 2**20
    ll_mb = _dir_size(Path(llvmlite.__file__).parent) / 2**20
    print("\ninstalled size:")
    print(f"  numba {nb_mb:.1f} MiB + llvmlite {ll_mb:.1f} MiB = {nb_mb + ll_mb:.1f} MiB  ({site})")
    print(f"  C extension {so.name}: {so.stat().st_size / 1024:.0f} KiB")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
