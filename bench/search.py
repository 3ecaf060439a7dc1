"""Time per 2-ply hint and per cube decision, pulvezar against GNU Backgammon; and playing strength.

    .venv/bin/python bench/search.py [--positions 20] [--ply 2] [--device cpu] [--model M]
    .venv/bin/python bench/search.py --strength [--me 1 --me 2] [--vs gnubg0 --vs gnubg2] [--pairs 40]

Positions come from seeded random games (a random legal play each turn; one
contact position per game, at a random turn), each with a random roll.  Both
engines' caches are emptied before every hint, so each hint is timed cold
(caching within the hint still counts).  The engines alternate position by
position.  gnubg runs
``findbestmove`` at the same depth, cubeless, with the same filter (keep the
best plus up to 8 more within 0.16 at 0 ply, no 1-ply screen), once without
and once with its pruning nets.  Figures: median and best milliseconds per
hint and the ratio of the medians.

**Cube decisions** (``--cube-positions``, default 20; ``--no-cube`` skips
them): money, cube centred, no Jacoby, the player on roll before rolling, in
the same kind of positions.  pulvezar: :func:`~pulvezar.cube.cube_decision` at
0 and 2 plies, its cache emptied before each.  gnubg: the Debian CLI
(``/usr/games/gnubg -t -q -r -c FILE``), one command file per setting with
``set evaluation cubedecision evaluation plies N`` (2 plies without and with
pruning) and per position ``set cache 0``, ``set cache N`` (cold, as
pulvezar), ``set gnubgid PID:MID``, ``eval``.  gnubg runs under a
pseudo-terminal, so its output comes line by line, and each position is timed
from one ``Setting GNUbg ID`` line to the next (a last ``set gnubgid`` closes
the last one).  This build spends about 10 ms on every top-level command, so
the same file without the ``eval`` lines is timed too and subtracted position
by position ("eval alone", the median of the differences); the whole run, less gnubg's start-up timed
with an empty command file, divided by the positions is printed as a check.

**Pruning** (issue 32): ``--prune N`` times pulvezar's hints with :class:`~pulvezar.search.Prune`
(the shipped screening net, 64 units, on the quantised kernel, keeping each roll's ``N`` best replies
for the search's net; ``--prune 0``, the default here: the unpruned search).  ``--agreement M``
instead compares the pruned search (the library's default, :func:`~pulvezar.search.default_prune`, or
``--prune N``) with the unpruned one (issue 41): a row per ply (``--agreement-plies``, default 1,2,3),
rule set (international and the four Tavla rule sets; ``--agreement-rules``) and position class
(contact, crashed, race: :func:`pulvezar.train.corpus.classify`), ``M`` decisions a row at 1 and 2
ply and ``--agreement-deep`` (default M/5) at 3 ply, international only unless ``--agreement-rules
all3``.  Each row: the decisions, how often the unpruned best play was chosen, the mean equity the
pruned choice loses by the unpruned search's values (milli-points), milliseconds a decision unpruned
and pruned (fresh caches), and the speed-up.

**Strength** (``--strength``): pulvezar playing by ``hint`` at 1 ply and at 2
plies with the normal filter (``--me``) against gnubg 0-ply (the net's choice,
PyPI ``gnubg_nn``) and gnubg 2-ply (``gnubg_nn.best_move(board, d1, d2,
n=2)``) (``--vs``): cubeless money games, duplicate dice, luck-adjusted with
the gnubg 0-ply judge, by the functions of ``bench/strength.py``; ppg with a
95% confidence interval over ``--pairs`` duplicate pairs.  Pinned to one CPU,
one torch thread, as ``bench/strength.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import itertools
import os
import platform
import pty
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from pulvezar import MatchId, Position, Rules, format_gnubg_id
from pulvezar.cube import cube_decision
from pulvezar.cubeful import CubeState
from pulvezar.eval.evaluator import SCREEN_MODEL, Evaluator, NetEvaluator, default_evaluator
from pulvezar.search import ROLLS, Prune, Search, default_prune, hint, searcher
from pulvezar.search.plies import PRUNE_KEEP

RULES = Rules.international()
GNUBG_CACHE = 1 << 19
GNUBG_CLI = "/usr/games/gnubg"
MARK = b"Setting GNUbg ID"


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
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--device", default=None, help="torch device of the net (default: cuda if present)")
    ap.add_argument("--model", default=None, help="model file (default: the shipped net)")
    ap.add_argument("--cube-positions", type=int, default=20, help="positions for the cube decision timing")
    ap.add_argument("--no-cube", action="store_true", help="skip the cube decision timing")
    ap.add_argument("--strength", action="store_true", help="play matches instead of timing")
    ap.add_argument("--me", type=int, choices=[1, 2], action="append", help="pulvezar's ply (repeatable)")
    ap.add_argument("--vs", choices=["gnubg0", "gnubg2"], action="append", help="opponent (repeatable)")
    ap.add_argument("--pairs", type=int, default=40, help="duplicate pairs (2 games each) per match")
    ap.add_argument(
        "--prune", type=int, default=PRUNE_KEEP,
        help=f"pulvezar's hints prune, keeping N (default {PRUNE_KEEP}: the library's own pruning; 0: none)",
    )  # fmt: skip
    ap.add_argument(
        "--agreement", type=int, default=0, help="only the pruned/unpruned agreement, N decisions a row"
    )
    ap.add_argument("--agreement-plies", default="1,2,3", help="the plies of the agreement rows")
    ap.add_argument("--agreement-deep", type=int, default=0, help="3-ply decisions a row (default N/5)")
    ap.add_argument(
        "--agreement-rules", choices=("all", "all3", "international"), default="all",
        help="rule sets of the rows: all (3 ply: international only), all3 (3 ply too), international",
    )  # fmt: skip
    args = ap.parse_args()

    ev = default_evaluator()
    if args.device or args.model:
        ev = NetEvaluator.load(args.model or ev_path(), device=args.device)
    if args.strength:
        return strength(ev, args.me or [1, 2], args.vs or ["gnubg0", "gnubg2"], args.pairs, args.seed)
    print(f"machine: {platform.processor() or platform.machine()}, torch threads {torch.get_num_threads()}")
    ours = pruning(args.prune)
    if args.agreement:
        plies = [int(k) for k in args.agreement_plies.split(",")]
        deep = args.agreement_deep or max(1, args.agreement // 5)
        return agreement(
            ev, args.agreement, plies, args.seed, ours or default_prune(), deep, args.agreement_rules
        )
    time_hints(ev, args.positions, args.ply, args.seed, ours)
    if not args.no_cube:
        time_cube(ev, args.cube_positions, args.seed + 1)
    return 0


def pruning(keep: int) -> Prune | None:
    """Pruning by the shipped screening net on the quantised kernel, keeping ``keep`` (0: none;
    :data:`~pulvezar.search.plies.PRUNE_KEEP`: the library's default pruning itself)."""
    if keep <= 0:
        return None
    if keep == PRUNE_KEEP:
        return default_prune()
    return Prune(NetEvaluator.load(SCREEN_MODEL, quantised=True), keep)


AGREEMENT_CLASSES = ("contact", "crashed", "race")
"""The position classes of the agreement rows (:func:`pulvezar.train.corpus.classify`; bear-off races are
exact and not searched)."""


def class_positions(
    rules: Rules, per_class: int, seed: int
) -> dict[str, list[tuple[Position, tuple[int, int]]]]:
    """``per_class`` decisions (a position and a roll with more than one legal play) of each of
    :data:`AGREEMENT_CLASSES`, from seeded random games under ``rules``: every position of a game is a
    candidate with probability 0.15, its class by :func:`pulvezar.train.corpus.classify`."""
    from pulvezar.eval.evaluator import boards_of
    from pulvezar.train.corpus import CLASSES, classify

    rng = random.Random(seed)
    out: dict[str, list[tuple[Position, tuple[int, int]]]] = {c: [] for c in AGREEMENT_CLASSES}
    games = 0
    while any(len(v) < per_class for v in out.values()):
        games += 1
        if games > 200 * per_class + 2000:
            break  # a class this rule set's random games seldom reach: fewer decisions
        p = Position.start()
        while rules.game_result(p.swap()) is None and rules.game_result(p) is None:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = rules.legal_plays(p, dice)
            if len(plays) > 1 and rng.random() < 0.15:
                name = CLASSES[int(classify(boards_of([p]))[0])]
                if name in out and len(out[name]) < per_class:
                    out[name].append((p, dice))
            p = plays[rng.randrange(len(plays))].position.swap()
    return out


def agreement_row(
    ev: Evaluator, rules: Rules, cases: list[tuple[Position, tuple[int, int]]], ply: int, prune: Prune
) -> tuple[int, int, float, float, float]:
    """``(decisions, unpruned best chosen, equity lost, seconds unpruned, seconds pruned)`` of ``cases``
    at ``ply`` with the normal filter, each search with a fresh cache (cold, as a hint in a new process
    after its first).  The loss is the unpruned search's value of its best play minus its value of the
    pruned choice, both at ``ply`` (a choice the unpruned filter screened out is valued there, untimed)."""
    from pulvezar.eval.evaluator import equity

    same, lost, t_plain, t_pruned = 0, 0.0, 0.0, 0.0
    for p, dice in cases:
        search = Search(ev, rules, prune=None)
        t = time.perf_counter()
        plain = search.rank(p, dice, ply, "normal")
        t_plain += time.perf_counter() - t
        t = time.perf_counter()
        pruned = Search(ev, rules, prune=prune).rank(p, dice, ply, "normal")[0]
        t_pruned += time.perf_counter() - t
        if pruned.play == plain[0].play:
            same += 1
            continue
        mine = next(c for c in plain if c.play == pruned.play)
        value = mine.equity
        if mine.ply < plain[0].ply:
            board = np.frombuffer(pruned.play.position.board, dtype=np.uint8).reshape(1, 50)
            value = float(equity(search.play_probabilities(board, plain[0].ply), rules)[0])
        lost += plain[0].equity - value
    return len(cases), same, lost, t_plain, t_pruned


def agreement(
    ev: Evaluator, n: int, plies: list[int], seed: int, prune: Prune, deep: int, rule_sets: str
) -> int:
    """How often the pruned search picks the unpruned search's best play, per ply, rule set and position
    class: ``n`` decisions a row at 1 and 2 ply, ``deep`` at 3 ply (slow; international only unless
    ``rule_sets`` is ``all3``)."""
    from pulvezar.train.corpus import RULESETS

    sets = RULESETS if rule_sets.startswith("all") else RULESETS[:1]
    warm_p, warm_d = positions(1, seed)[0]
    for k in sorted(set(plies)):  # kernels and nets loaded before the first timed search
        Search(ev, RULES, prune=None).rank(warm_p, warm_d, min(k, 1), "normal")
        Search(ev, RULES, prune=prune).rank(warm_p, warm_d, min(k, 1), "normal")
    print(
        f"pruned vs unpruned search (normal filter; pruning keeps {prune.keep} of each roll's replies by "
        f"the screening net); decisions from seeded random games (seed {seed}), fresh caches"
    )
    head = ("ply", "rules", "class", "decisions", "unpruned best chosen", "mean loss (mp)", "ms unpruned",
            "ms pruned", "speed-up")  # fmt: skip
    print("| " + " | ".join(head) + " |")
    print("|---|---|---|---|---|---|---|---|---|")
    for ply in plies:
        per = deep if ply >= 3 else n
        rows = [r for r in sets if ply < 3 or rule_sets == "all3" or r == RULESETS[0]]
        total = (0, 0, 0.0, 0.0, 0.0)
        for rules in rows:
            cases = class_positions(rules, per, seed + ply)
            for name in AGREEMENT_CLASSES:
                if cases[name]:
                    row = agreement_row(ev, rules, cases[name], ply, prune)
                    total = tuple(a + b for a, b in zip(total, row, strict=True))  # type: ignore[assignment]
                    print_row(ply, rules.name, name, row)
        if total[0]:
            print_row(ply, "**all**", "**all**", total)
    return 0


def print_row(ply: int, rules: str, name: str, row: tuple[int, int, float, float, float]) -> None:
    d, same, lost, tp, tq = row
    cells = (ply, rules, name, int(d), f"{100 * same / d:.1f}%", f"{1000 * lost / d:.3f}",
             f"{1000 * tp / d:.0f}", f"{1000 * tq / d:.0f}", f"{tp / tq:.2f}x")  # fmt: skip
    print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)


def time_hints(ev: NetEvaluator, n: int, ply: int, seed: int, pruning: Prune | None = None) -> None:
    search = Search(ev, RULES, prune=pruning)
    cases = positions(n + 1, seed)
    try:
        import gnubg
    except ImportError:
        gnubg = None
    # warm-up (first call: torch kernels, gnubg weights)
    p0, d0 = cases.pop()
    search.rank(p0, d0, ply, "normal")
    if gnubg is not None:
        filters = gnubg_filters(gnubg, ply)
        ci = gnubg.cubeinfo()
        ctx = {prune: gnubg.evalcontext(0, ply, 1, prune, 0.0) for prune in (0, 1)}
        gnubg.findbestmove(gnubg.positionfromid(p0.position_id), ci, ctx[0], d0, filters)

    ours: list[float] = []
    theirs: dict[int, list[float]] = {0: [], 1: []}
    agree = {0: 0, 1: 0}
    hits = misses = 0
    for p, dice in cases:
        hits, misses = hits + search.cache.hits, misses + search.cache.misses
        search.cache.clear()
        t = time.perf_counter()
        best = search.rank(p, dice, ply, "normal")[0]
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

    pruned = f", pruning keeps {pruning.keep}" if pruning else ""
    print(f"net device: {ev.device}; {len(cases)} positions, {ply}-ply hint, normal filter{pruned}")
    print(f"pulvezar            {ms(ours)}")
    hits, misses = hits + search.cache.hits, misses + search.cache.misses
    per = search.cached.evaluated / len(cases)
    print(f"  cache: {hits} hits, {misses} misses; {per:.0f} boards reached the net per hint")
    if gnubg is None:
        print("gnubg: not installed (pip install gnubg)")
        return
    for prune in (0, 1):
        label = "gnubg (pruning)" if prune else "gnubg"
        ratio = statistics.median(ours) / statistics.median(theirs[prune])
        # each position's times are taken back to back: the ratio of the sums is a second reading
        total = sum(ours) / sum(theirs[prune])
        print(f"{label:<19} {ms(theirs[prune])}  pulvezar/gnubg = {ratio:.2f}x", end="")
        print(f" (of the sums {total:.2f}x)", end="")
        print(f"  same move {agree[prune]}/{len(cases)} (by checker moves; a rough check)")


def ms(xs: list[float]) -> str:
    return f"median {1000 * statistics.median(xs):7.1f} ms  best {1000 * min(xs):7.1f} ms"


# ---- cube decisions ------------------------------------------------------------------------
def time_cube(ev: Evaluator, n: int, seed: int) -> None:
    """Time per cube decision at 0 and 2 plies, pulvezar and the gnubg CLI."""
    states = [CubeState(p) for p, _ in positions(n + 1, seed)]
    warm = states.pop()
    search = searcher(ev, RULES)  # the search cube_decision uses
    ours: dict[int, list[float]] = {0: [], 2: []}
    for ply in ours:
        cube_decision(warm, ev, ply=ply)
        for s in states:
            search.cache.clear()
            t = time.perf_counter()
            cube_decision(s, ev, ply=ply)
            ours[ply].append(time.perf_counter() - t)
    print(f"cube decisions: {len(states)} positions, money, cube centred, no Jacoby")
    if shutil.which(GNUBG_CLI) is None:
        for ply, xs in ours.items():
            print(f"  {ply}-ply pulvezar              {ms(xs)}")
        print(f"  gnubg: {GNUBG_CLI} not found (apt-get install gnubg)")
        return
    startup = statistics.median(run_gnubg_cli([])[1] for _ in range(3))
    print(f"  gnubg start-up (empty command file): {1000 * startup:.0f} ms")
    for ply, prune in ((0, False), (2, False), (2, True)):
        if not prune:
            print(f"  {ply}-ply pulvezar              {ms(ours[ply])}")
        lines = gnubg_cube_file(states, ply, prune, with_eval=True)
        per, total = gnubg_timed(lines, len(states))
        base, _ = gnubg_timed(gnubg_cube_file(states, ply, prune, with_eval=False), len(states))
        alone = statistics.median(t - b for t, b in zip(per, base, strict=True))  # same positions
        label = f"{ply}-ply gnubg" + (" (pruning)" if prune else "")
        mine = statistics.median(ours[ply])
        print(f"  {label:<26}{ms(per)}  pulvezar/gnubg = {mine / statistics.median(per):.2f}x")
        ratio = f"pulvezar/gnubg = {mine / alone:.2f}x" if alone > 0 else "below the timing noise"
        print(
            f"    eval alone: median {1000 * alone:.1f} ms, {ratio} (less the other commands,"
            f" median {1000 * statistics.median(base):.1f} ms); whole file less start-up:"
            f" {1000 * (total - startup) / len(states):.1f} ms per position"
        )


def gnubg_cube_file(states: list[CubeState], ply: int, prune: bool, with_eval: bool) -> list[str]:
    on = "on" if prune else "off"
    lines = [
        "set player 0 human", "set player 1 human", "set jacoby off", "set output digits 5",
        f"set evaluation cubedecision evaluation plies {ply}",
        f"set evaluation cubedecision evaluation prune {on}",
    ]  # fmt: skip
    for s in states:
        lines += ["set cache 0", f"set cache {GNUBG_CACHE}", f"set gnubgid {gnubg_id(s)}"]
        if with_eval:
            lines.append("eval")
    return [*lines, f"set gnubgid {gnubg_id(states[0])}"]  # closes the last position's interval


def gnubg_id(s: CubeState) -> str:
    owner = {"centre": None, "player": 0, "opponent": 1}[s.cube_owner]
    mid = MatchId(
        cube_value=s.cube_value, cube_owner=owner, dice_owner=0, turn=0, crawford=s.crawford,
        match_length=s.match_length, score=s.score, jacoby=s.jacoby,
    )  # fmt: skip
    return format_gnubg_id(s.position, mid)


def gnubg_timed(lines: list[str], n: int) -> tuple[list[float], float]:
    """Seconds per position (between ``Setting GNUbg ID`` lines) and for the whole run."""
    out, total = run_gnubg_cli(lines)
    marks = [t for t, chunk in out for _ in range(chunk.count(MARK))]
    if len(marks) != n + 1:
        text = b"".join(c for _, c in out).decode(errors="replace")[-2000:]
        raise RuntimeError(f"gnubg printed {len(marks)} positions, expected {n + 1}:\n{text}")
    return [b - a for a, b in itertools.pairwise(marks)], total


def run_gnubg_cli(lines: list[str]) -> tuple[list[tuple[float, bytes]], float]:
    """Run a command file under a pseudo-terminal: (arrival time, output chunk) pairs and the run's time."""
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg", delete=False) as f:
        f.write("".join(line + "\n" for line in lines))
    master, slave = pty.openpty()
    chunks: list[tuple[float, bytes]] = []
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [GNUBG_CLI, "-t", "-q", "-r", "-c", f.name],
            stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
        )  # fmt: skip
        os.close(slave)
        while True:
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # EIO: the terminal's other side closed
                break
            if not data:
                break
            chunks.append((time.perf_counter() - t0, data))
        proc.wait(timeout=600)
        total = time.perf_counter() - t0
    finally:
        os.close(master)
        os.unlink(f.name)
    return chunks, total


# ---- strength ------------------------------------------------------------------------------
Choose = Callable[[Position, npt.NDArray[np.uint8]], int]


def roll_of(pos: Position, results: npt.NDArray[np.uint8]) -> tuple[int, int]:
    """A roll whose legal plays are exactly ``results`` (the harness passes plays, not dice).

    Two rolls with the same plays get the same ranking, so any match will do.
    """
    want = results.tobytes()
    for roll in ROLLS:
        if b"".join(RULES.legal_plays(pos, roll).boards()) == want:
            return roll
    raise ValueError("no roll gives these plays")


def hint_chooser(ev: Evaluator, ply: int) -> Choose:
    def choose(pos: Position, results: npt.NDArray[np.uint8]) -> int:
        best = hint(pos, roll_of(pos, results), ply=ply, filter="normal", evaluator=ev)[0]
        index = {r.tobytes(): i for i, r in enumerate(results)}
        return index[best.play.position.board]

    return choose


def gnubg_chooser(ply: int) -> Choose:
    import gnubg_nn

    def choose(pos: Position, results: npt.NDArray[np.uint8]) -> int:
        d1, d2 = roll_of(pos, results)
        _, key = gnubg_nn.best_move([list(pos.theirs), list(pos.mine)], d1, d2, n=ply, b=1)
        mine, theirs = gnubg_nn.board_from_position_key(key)  # best_move's key: the mover's side first
        index = {r.tobytes(): i for i, r in enumerate(results)}
        return index[bytes(mine) + bytes(theirs)]

    return choose


def strength(ev: NetEvaluator, mine: list[int], opponents: list[str], pairs: int, seed: int) -> int:
    # bench/strength.py is a script outside the typed package: imported by name, used untyped
    st: Any = importlib.import_module("strength")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    torch.set_num_threads(1)
    print(f"machine {platform.node()} nproc={os.cpu_count()}, one CPU, one torch thread; net {ev.device}")
    for ply in mine:
        me = st.Player(f"pulvezar-{ply}ply", hint_chooser(ev, ply))
        for name in opponents:
            opp = st.Player(name, gnubg_chooser(0 if name == "gnubg0" else 2))
            print(f"{me.name} (hint, normal filter) vs {name}: {pairs} duplicate pairs, judge gnubg 0-ply")
            r = st.match(me, opp, pairs, seed, st.gnubg_equities, print)
            lo, hi = r["ppg_adjusted"] - r["ci95"], r["ppg_adjusted"] + r["ci95"]
            print(
                f"RESULT {me.name} vs {name}: {r['ppg_adjusted']:+.3f} ppg [{lo:+.3f}, {hi:+.3f}]"
                f" luck-adjusted over {r['games']} games; raw {r['ppg_raw']:+.3f} +- {r['ci95_raw']:.3f};"
                f" wins {r['win_rate']:.1%}, gammons won {r['gammon_win_rate']:.1%} lost"
                f" {r['gammon_loss_rate']:.1%}; {r['seconds']:.0f} s"
            )
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
