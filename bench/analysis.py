"""Match analysis agreement: pulvezar's PR and cube actions against gnubg's stored analysis.

For every match file that carries GNU Backgammon's own analysis (its SGFs with
``A``/``DA`` properties, its text exports), the stored side is read with
:func:`pulvezar.formats.stored_analysis.stored_analysis` (gnubg's numbers,
checked against gnubg's own statistics in ``tests/formats/test_stored_analysis.py``)
and pulvezar analyses the same match with
:func:`pulvezar.analysis.match.analyse_match` at ``--level``.  Both PRs come from
:mod:`pulvezar.analysis.rating` (which decisions count, PR = 500 x mean EMG error).

Printed: per player and match, the stored PR (gnubg), pulvezar's PR, the
difference and the decisions each counted; the distribution of |difference|
(min / median / 90th percentile / max) and the share within 1.0; then the
cube decisions both analysed -- the doubler's action (double / no double) and
the taker's (take / pass) each engine calls right, and their agreement over
all of them and where neither engine calls the decision close: within
``--close`` EMG (default :data:`pulvezar.analysis.rating.CLOSE_CUBE`, 0.16,
gnubg's own threshold for a "close" cube decision) between double and no
double (min(D/T, D/P) vs N/D), or between take and pass (D/T vs D/P).  Then
the time per match (the sum of its games' analysis times).

    .venv/bin/python bench/analysis.py [--level 2ply] [--files F ...] [--jobs N] [--json OUT]

``--files``: match files (default: the eight analysed matches of
``../shared/data/matches``); a text export of several games is one item, its
files joined with ``+``.  ``--stored-only`` reads the stored side alone (fast).
Run long levels under ``nice -n 19`` with ``OMP_NUM_THREADS=1``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pulvezar.analysis.rating import CLOSE_CUBE, performance_rating
from pulvezar.formats import MatchRecord, read_gnubg_text, read_sgf
from pulvezar.formats.stored_analysis import StoredDecision, stored_analysis

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "matches"
DEFAULT_FILES = [
    "gnubg-scripts/match1484923_analyzed.sgf",
    "gnubg-scripts/match1486073_analyzed.sgf",
    "gnubg-scripts/test-match01_analyzed.sgf",
    "jugglingcats-gnubg/full_match.sgf",
    "kevung-gbf/test.sgf",
    "kevung-gbf/charlot1-charlot2_7p_2025-11-08-2305.sgf",
    "kevung-gnubgparser/charlot1-charlot2_7p_2025-11-08-2308.sgf",
    "+".join(f"bglab-gnubg-analysis-4ply/match10030560{s}.txt" for s in ("", "_002", "_003", "_004", "_005")),
]


def _path(p: str) -> Path:
    q = Path(p)
    return q if q.is_absolute() or q.exists() else SHARED / q


def read(item: str) -> MatchRecord:
    paths = [_path(p) for p in item.split("+")]
    if paths[0].suffix.lower() == ".sgf":
        return read_sgf(paths[0].read_bytes())
    return read_gnubg_text([p.read_bytes() for p in paths])


def label(item: str) -> str:
    first = item.split("+")[0]
    name = Path(first).name
    return name + (f" (+{item.count('+')})" if "+" in item else "")


# ---- pulvezar's side (one game per task, so --jobs balances) ---------------------------------


def _analyse_game(item: str, index: int, level: str) -> tuple[str, int, dict[str, Any], float]:
    import torch

    torch.set_num_threads(1)
    from pulvezar.analysis.match import AnalysisSettings, analyse_game

    rec = read(item)
    t = time.perf_counter()
    g = analyse_game(rec, index, AnalysisSettings.from_level(level))
    return item, index, g.to_json(), time.perf_counter() - t


@dataclass
class Ours:
    games: dict[int, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0


def analyse_all(items: list[str], records: dict[str, MatchRecord], level: str, jobs: int) -> dict[str, Ours]:
    tasks = [(item, i) for item in items for i in range(len(records[item].games))]
    out = {item: Ours() for item in items}
    total = len(tasks)

    def take(result: tuple[str, int, dict[str, Any], float]) -> None:
        item, i, js, sec = result
        out[item].games[i] = js
        out[item].seconds += sec
        done = sum(len(o.games) for o in out.values())
        print(f"  [{done}/{total}] {label(item)} game {i + 1}: {sec:.1f} s", file=sys.stderr, flush=True)

    if jobs <= 1:
        for item, i in tasks:
            take(_analyse_game(item, i, level))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for r in pool.map(_analyse_game, [t[0] for t in tasks], [t[1] for t in tasks], [level] * total):
                take(r)
    return out


def our_match(rec: MatchRecord, ours: Ours) -> Any:
    """pulvezar's MatchAnalysis rebuilt from the per-game JSON."""
    from pulvezar.analysis.match import GameAnalysis, summarise

    return summarise(rec, [GameAnalysis.from_json(g) for g in ours.games.values()])


# ---- comparison --------------------------------------------------------------------------------


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    if not s:
        return float("nan")
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def _stored_choice(d: StoredDecision) -> str | None:
    return d.best_cube_action


def _stored_margin(d: StoredDecision) -> float | None:
    if d.nd is None or d.dt is None or d.dp is None:
        return None
    if d.kind == "take":
        return abs(d.dt - d.dp)
    return abs(min(d.dt, d.dp) - d.nd)


def _our_choice(d: dict[str, Any]) -> str | None:
    c = d.get("cube")
    if not c or c.get("dt") is None or c.get("dp") is None:
        return None
    nd, dt, dp = c["nd"], c["dt"], c["dp"]
    if d["kind"] == "take":
        return "take" if dt <= dp else "pass"
    return "double" if min(dt, dp) > nd else "no double"


def _our_margin(d: dict[str, Any]) -> float | None:
    c = d.get("cube")
    if not c or c.get("dt") is None or c.get("dp") is None:
        return None
    if d["kind"] == "take":
        return float(abs(c["dt"] - c["dp"]))
    return float(abs(min(c["dt"], c["dp"]) - c["nd"]))


def _plies(st: list[StoredDecision], player: int) -> str:
    """The stored analysis's usual ply: checker plays / cube decisions (``-`` where none)."""

    def usual(ds: list[StoredDecision]) -> str:
        plies = [d.ply for d in ds if d.ply is not None]
        return str(statistics.mode(plies)) if plies else "-"

    mine = [d for d in st if d.player == player and d.counts]
    return (
        f"{usual([d for d in mine if d.kind == 'checker'])}/{usual([d for d in mine if d.kind != 'checker'])}"
    )


def compare(args: argparse.Namespace) -> dict[str, Any]:
    items: list[str] = args.files or DEFAULT_FILES
    records = {item: read(item) for item in items}
    stored = {item: stored_analysis(records[item]) for item in items}
    ours: dict[str, Ours] = {}
    wall = time.perf_counter()
    if not args.stored_only:
        ours = analyse_all(items, records, args.level, args.jobs)
    wall = time.perf_counter() - wall

    rows: list[dict[str, Any]] = []
    cubes: list[dict[str, Any]] = []
    per_match: list[dict[str, Any]] = []
    for item in items:
        rec, st = records[item], stored[item]
        errs = [d.to_error() for d in st]
        ma = our_match(rec, ours[item]) if item in ours else None
        js = ma.to_json() if ma is not None else None
        for p in (0, 1):
            spr = performance_rating(errs, p)
            row: dict[str, Any] = {
                "match": label(item),
                "player": rec.players[p],
                "stored_pr": spr,
                "stored_decisions": sum(1 for e in errs if e.player == p and e.counts),
                "stored_ply": _plies(st, p),
                "stored_checker_error": sum(
                    e.error for e in errs if e.player == p and e.counts and e.kind == "checker"
                ),
                "stored_cube_error": sum(
                    e.error for e in errs if e.player == p and e.counts and e.kind != "checker"
                ),
            }
            if js is not None:
                opr = js["players"][p]["pr"]
                mine_p = [d for g in js["games"] for d in g["decisions"] if d["player"] == p and d["counts"]]
                row.update(
                    pulvezar_pr=opr,
                    pulvezar_decisions=js["players"][p]["decisions"],
                    pulvezar_checker_error=sum(d["loss"] for d in mine_p if d["kind"] == "checker"),
                    pulvezar_cube_error=sum(d["loss"] for d in mine_p if d["kind"] != "checker"),
                    diff=None if opr is None or spr is None else opr - spr,
                )
            rows.append(row)
        match_row: dict[str, Any] = {
            "match": label(item),
            "games": len(rec.games),
            "decisions": len(ma.decisions) if ma is not None else None,
            "seconds": ours[item].seconds if item in ours else None,
        }
        per_match.append(match_row)
        if js is None:
            continue
        plays = {
            (d["game"], d["index"]): d for g in js["games"] for d in g["decisions"] if d["kind"] == "checker"
        }
        pairs = [
            (s, plays[(s.game, s.index)])
            for s in st
            if s.kind == "checker" and s.counts and s.candidates and (s.game, s.index) in plays
        ]
        match_row["checker_pairs"] = len(pairs)
        match_row["same_best_play"] = sum(s.candidates[0].notation == o["best"] for s, o in pairs)
        match_row["same_error_mark"] = sum((s.error >= 0.02) == (o["loss"] >= 0.02) for s, o in pairs)
        match_row["mean_abs_loss_diff"] = (
            sum(abs(s.error - o["loss"]) for s, o in pairs) / len(pairs) if pairs else None
        )
        mine = {
            (d["game"], d["index"], d["kind"]): d
            for g in js["games"]
            for d in g["decisions"]
            if d["kind"] != "checker"
        }
        for s in st:
            if s.kind == "checker":
                continue
            o = mine.get((s.game, s.index, s.kind))
            if o is None:
                continue
            sc, oc = _stored_choice(s), _our_choice(o)
            sm, om = _stored_margin(s), _our_margin(o)
            if sc is None or oc is None or sm is None or om is None:
                continue
            cubes.append(
                {
                    "match": label(item),
                    "game": s.game + 1,
                    "index": s.index,
                    "player": rec.players[s.player],
                    "kind": s.kind,
                    "played": s.action,
                    "gnubg": sc,
                    "pulvezar": oc,
                    "gnubg_margin": sm,
                    "pulvezar_margin": om,
                    "counted": s.counts or bool(o["counts"]),
                    "clear": sm >= args.close and om >= args.close,
                    "agree": sc == oc,
                }
            )
    return {
        "level": args.level,
        "close": args.close,
        "machine": f"{platform.node()} {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "wall_seconds": wall,
        "rows": rows,
        "matches": per_match,
        "cubes": cubes,
    }


def _f(x: float | None, spec: str = "6.2f") -> str:
    return format(x, spec) if x is not None else "-".rjust(int(spec.split(".")[0]))


def report(res: dict[str, Any]) -> None:
    print(f"# match analysis agreement, pulvezar {res['level']} vs gnubg's stored analysis")
    print(f"# {res['machine']}; close = {res['close']:.2f} EMG")
    print()
    print(f"{'match':<44} {'player':<16} {'gnubg':>6} {'n':>4} {'ply':>3} {'pulv':>6} {'n':>4} {'diff':>6}")
    for r in res["rows"]:
        print(
            f"{r['match']:<44} {r['player'][:16]:<16} {_f(r['stored_pr'])} {r['stored_decisions']:>4} "
            f"{r['stored_ply']:>3} "
            f"{_f(r.get('pulvezar_pr'))} {r.get('pulvezar_decisions', '-'):>4} {_f(r.get('diff'), '+6.2f')}"
        )
    if any("pulvezar_pr" in r for r in res["rows"]):
        print()
        print("counted errors, EMG: checker + cube")
        print(f"{'match':<44} {'player':<16} {'gnubg':>15} {'pulvezar':>15}")
        for r in res["rows"]:
            print(
                f"{r['match']:<44} {r['player'][:16]:<16} "
                f"{r['stored_checker_error']:>7.3f}+{r['stored_cube_error']:<7.3f} "
                f"{r.get('pulvezar_checker_error', 0.0):>7.3f}+{r.get('pulvezar_cube_error', 0.0):<7.3f}"
            )
    diffs = [abs(r["diff"]) for r in res["rows"] if r.get("diff") is not None]
    if diffs:
        within = sum(d <= 1.0 for d in diffs)
        print()
        print(
            f"|diff| over {len(diffs)} player-matches: min {min(diffs):.2f}, "
            f"median {statistics.median(diffs):.2f}, "
            f"90th pct {_pct(diffs, 0.9):.2f}, max {max(diffs):.2f}; within 1.0: {within}/{len(diffs)} "
            f"({100 * within / len(diffs):.0f}%)"
        )
    cubes = res["cubes"]
    if cubes:
        print()
        print("cube decisions counted by either engine:")
        print(f"{'match':<44} {'g':>2} {'idx':>4} {'player':<16} {'kind':<6} {'played':<9} {'gnubg':<9} "
              f"{'(margin)':>8} {'pulvezar':<9} {'(margin)':>8}")  # fmt: skip
        for c in cubes:
            if not c["counted"]:
                continue
            mark = "" if c["agree"] else ("  DISAGREE" if c["clear"] else "  differ (close)")
            print(
                f"{c['match']:<44} {c['game']:>2} {c['index']:>4} {c['player'][:16]:<16} {c['kind']:<6} "
                f"{c['played']:<9} {c['gnubg']:<9} {c['gnubg_margin']:>8.3f} {c['pulvezar']:<9} "
                f"{c['pulvezar_margin']:>8.3f}{mark}"
            )
        print()
        for name, sel in (
            ("all cube decisions both analysed", cubes),
            ("counted by either engine", [c for c in cubes if c["counted"]]),
        ):
            clear = [c for c in sel if c["clear"]]
            agree_all = sum(c["agree"] for c in sel)
            agree_clear = sum(c["agree"] for c in clear)
            print(
                f"{name}: {len(sel)}, same action {agree_all}/{len(sel)}; "
                f"neither close: {len(clear)}, same action {agree_clear}/{len(clear)}"
                + (f" ({100 * agree_clear / len(clear):.0f}%)" if clear else "")
            )
        counted = [c for c in cubes if c["counted"]]
        parts = []
        for m in (0.0, 0.02, 0.04, 0.08, 0.16):
            sel = [c for c in counted if min(c["gnubg_margin"], c["pulvezar_margin"]) >= m]
            parts.append(f">= {m:.2f}: {sum(c['agree'] for c in sel)}/{len(sel)}")
        print("counted by either, same action where both margins are " + ", ".join(parts))
    print()
    print(
        "time per match; checker plays counted by gnubg: same best play, "
        "same verdict (error >= 0.02 or not), mean |loss diff|"
    )
    print(
        f"{'match':<44} {'games':>5} {'decisions':>9} {'seconds':>8} "
        f"{'plays':>6} {'best':>5} {'mark':>5} {'|dl|':>6}"
    )
    for m in res["matches"]:
        n = m.get("checker_pairs")
        print(
            f"{m['match']:<44} {m['games']:>5} {m['decisions'] if m['decisions'] is not None else '-':>9} "
            f"{_f(m['seconds'], '8.1f')} {n if n is not None else '-':>6} "
            + (f"{100 * m['same_best_play'] / n:4.0f}% {100 * m['same_error_mark'] / n:4.0f}% "
               f"{m['mean_abs_loss_diff']:6.3f}" if n else "")
        )  # fmt: skip
    pairs = [m for m in res["matches"] if m.get("checker_pairs")]
    if pairs:
        n = sum(m["checker_pairs"] for m in pairs)
        best = sum(m["same_best_play"] for m in pairs)
        mark = sum(m["same_error_mark"] for m in pairs)
        print(f"all: {n} plays, same best play {100 * best / n:.1f}%, same verdict {100 * mark / n:.1f}%")
    print(f"wall time {res['wall_seconds']:.0f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--level", default="2ply", help="pulvezar's analysis level (0ply, 1ply, 2ply, 3ply, deep)"
    )
    ap.add_argument("--files", nargs="*", help="match files (text exports of several games: joined with '+')")
    ap.add_argument("--jobs", type=int, default=1, help="processes (one game per task)")
    ap.add_argument("--json", type=Path, help="write the figures as JSON")
    ap.add_argument(
        "--close", type=float, default=CLOSE_CUBE, help="EMG margin under which a cube call is close"
    )
    ap.add_argument("--stored-only", action="store_true", help="read the stored side only")
    args = ap.parse_args(argv)
    res = compare(args)
    report(res)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
