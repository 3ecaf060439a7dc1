"""Race ground truth (issue 43): a seeded, stratified set of race positions and their truths.

``select`` draws the set (deterministic: the same ``--seed`` and corpus give the same file): the ten
bench races of issue 32 (``RACES``, ``LOPSIDED``), constructed home-board endgames (inside the two-sided
table, and 7-15 checkers a side for the one-sided race table), and race positions of
``data/corpus/positions.npz`` (class race) for international backgammon and each Tavla rule set,
drawn round-robin over strata (bear-in / bear-in v bear-off, pip lead, gammon chances either way,
stacked or smooth) so that every prefix of the set covers every kind.

``run`` gives each position its truth, checkpointed: ``two-sided`` (exact P(win) of
:class:`~pulvezar.eval.bearoff.TwoSidedBearoff`, both sides playing to win; no gammons possible),
``one-sided`` (both sides home: the 15x6 one-sided database, each side minimising its expected rolls,
gammons from the first-off distributions, as pulvezar and gnubg value such races), else ``rollout``:
pulvezar's rollout at ``--ply`` with variance reduction, ending in those databases (exact values at
the leaves), ``--trials`` trials, with the SE of every probability and of the equity. Each record also
holds pulvezar's 0-ply evaluation and, for international positions, gnubg-nn's 0-ply and 2-ply
evaluation (the second opinion). ``sums`` writes ``SHA256SUMS``; ``report`` prints the disagreements.

    .venv/bin/python bench/race_truth.py select --out data/race_truth
    .venv/bin/python bench/race_truth.py run --out data/race_truth --ply 1 --trials 324 --chunk 36
    .venv/bin/python bench/race_truth.py report --out data/race_truth --run truth-1ply-324
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar import Position, Rules, __version__
from pulvezar.eval.bearoff import TwoSidedBearoff
from pulvezar.eval.evaluator import BearoffRaces, NetEvaluator, boards_of, equity
from pulvezar.train.corpus import RULESETS, boards_of_keys

sys.path.insert(0, str(Path(__file__).resolve().parent))

SEED = 43
CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus" / "positions.npz"
#: positions per kind: constructed two-sided endgames, constructed home-board races, corpus races
TWO_SIDED, ONE_SIDED, INTERNATIONAL, PER_TAVLA = 20, 20, 160, 15
SHARD = 20  # positions per truth shard
FORMAT = 1
Board = npt.NDArray[np.uint8]


def rules_of(name: str) -> Rules:
    """The rule set of a :attr:`Rules.name`."""
    return next(r for r in RULESETS if r.name == name)


def pips(side: Board) -> int:
    """Pip count of one side's 25 slots (points 1..24, bar)."""
    return int((np.arange(1, 26) * side.astype(np.int64)).sum())


def _home(side: Board) -> bool:
    return int(side[6:25].sum()) == 0


def _gammonish(leader: Board, trailer: Board) -> bool:
    """The trailer (all 15 on the board) needs >= 0.6 of the leader's rolls to save the gammon."""
    if int(trailer.sum()) != 15:
        return False
    outside = int(sum((p - 6) * int(trailer[p - 1]) for p in range(7, 26)))
    save = outside / 8.17 + 1.0
    finish = pips(leader) / 8.17 + 2.0
    return outside > 0 and save >= 0.6 * finish


def kinds(board: Board) -> list[str]:
    """Kind tags of a race board (side on roll first): phase, pip lead, gammons, stacking."""
    me, them = board[0:25], board[25:50]
    both = _home(me) and _home(them)
    if both and me.sum() <= 6 and them.sum() <= 6:
        tags = ["two-sided"]
    elif both:
        tags = ["bear-off"]
    elif _home(me) or _home(them):
        tags = ["bear-off v bear-in" if _home(me) else "bear-in v bear-off"]
    else:
        tags = ["bear-in"]
    pm, pt = pips(me), pips(them)
    lead = (pt - pm) / max(pm, pt, 1)
    word = "even" if abs(lead) < 0.08 else ("ahead" if lead > 0 else "behind")
    tags.append(f"lopsided {word}" if abs(lead) >= 0.25 else word)
    if _gammonish(me, them):
        tags.append("gammon for")
    if _gammonish(them, me):
        tags.append("gammon against")
    tags.append("stacked" if max(int(me[:6].max()), int(them[:6].max())) >= 5 else "smooth")
    return tags


def _stratum(tags: list[str]) -> str:
    return "|".join(tags)


def _round_robin(groups: dict[str, list[int]], n: int, rng: np.random.Generator) -> list[int]:
    """``n`` items drawn one per stratum in turn (strata and members in seeded random order)."""
    names = sorted(groups)
    rng.shuffle(names)
    queues = {k: list(rng.permutation(groups[k])) for k in names}
    out: list[int] = []
    while len(out) < n and any(queues.values()):
        for k in names:
            if queues[k] and len(out) < n:
                out.append(int(queues[k].pop()))
    return out


def _home_side(rng: np.random.Generator, checkers: int) -> list[int]:
    counts = np.bincount(rng.integers(0, 6, size=checkers), minlength=6)
    return [int(c) for c in counts]


def constructed(rng: np.random.Generator) -> list[tuple[str, Position]]:
    """Home-board endgames: inside the two-sided table, then 7-15 checkers a side (a third 15 v 15)."""
    out: list[tuple[str, Position]] = []
    seen: set[bytes] = set()
    while len(out) < TWO_SIDED + ONE_SIDED:
        big = len(out) >= TWO_SIDED
        lo, hi = (7, 16) if big else (1, 7)
        n1, n2 = (15, 15) if big and len(out) % 3 == 0 else tuple(int(x) for x in rng.integers(lo, hi, 2))
        pos = Position(_home_side(rng, n1) + [0] * 19, _home_side(rng, n2) + [0] * 19)
        if pos.board not in seen:
            seen.add(pos.board)
            out.append(("constructed", pos))
    return out


def corpus_races(rng: np.random.Generator, rules_id: int, n: int, path: Path = CORPUS) -> list[Position]:
    """``n`` race positions of one rule set from the corpus, round-robin over the kinds."""
    z = np.load(path)
    rows = np.flatnonzero((z["cls"] == 2) & (z["rules"] == rules_id))
    boards = boards_of_keys(z["keys"][rows])
    groups: dict[str, list[int]] = defaultdict(list)
    for i, b in enumerate(boards):
        groups[_stratum(kinds(b))].append(i)
    return [Position.from_board(boards[i].tobytes()) for i in _round_robin(groups, n, rng)]


def bench_races() -> list[tuple[str, Position]]:
    """The ten races of issue 32 (``bench/rollout_precision.py``): LOPSIDED and RACES."""
    from rollout_agreement import LOPSIDED
    from rollout_precision import RACES

    return [*LOPSIDED, *RACES]


def selection(seed: int = SEED, corpus: Path = CORPUS) -> list[dict[str, Any]]:
    """The whole set in its order: bench races, constructed endgames, corpus races (rule sets alternating)."""
    rng = np.random.default_rng(seed)
    items: list[tuple[str, str, Position]] = [("bench: " + n, "international", p) for n, p in bench_races()]
    items += [(s, "international", p) for s, p in constructed(rng)]
    drawn = [corpus_races(rng, 0, INTERNATIONAL, corpus)]
    drawn += [corpus_races(rng, r, PER_TAVLA, corpus) for r in range(1, len(RULESETS))]
    names = [RULESETS[r].name for r in range(len(RULESETS))]
    for i in range(max(len(d) for d in drawn)):  # interleave: a prefix holds every rule set
        items += [("corpus", names[r], d[i]) for r, d in enumerate(drawn) if i < len(d)]
    out, seen = [], set()
    for source, rules, pos in items:
        if (rules, pos.board) in seen:
            continue
        seen.add((rules, pos.board))
        b = np.frombuffer(pos.board, dtype=np.uint8)
        out.append(
            {
                "index": len(out),
                "position_id": pos.position_id,
                "rules": rules,
                "source": source,
                "kinds": kinds(b),
                "pips": [pips(b[:25]), pips(b[25:])],
            }
        )
    return out


def position_of(rec: dict[str, Any]) -> Position:
    """The position of a selection record."""
    return Position.from_position_id(rec["position_id"])


# ---- truths ----------------------------------------------------------------------------------------


def exact_truth(pos: Position, two: TwoSidedBearoff, races: BearoffRaces) -> tuple[str, list[float]] | None:
    """``(method, probabilities)`` where a database holds the position, else None."""
    b = boards_of([pos])
    if two.covers(b)[0]:
        return "two-sided", [float(two.win_probabilities(b)[0]), 0.0, 0.0, 0.0, 0.0]
    if races.covers(b)[0]:
        return "one-sided", [float(x) for x in races.probabilities(b)[0]]
    return None


def gnubg_probs(pos: Position, plies: int) -> list[float] | None:
    """gnubg-nn's evaluation for the side on roll (None when gnubg-nn is not installed)."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    b = np.frombuffer(pos.board, dtype=np.uint8)
    return [float(x) for x in gnubg_nn.probabilities([b[25:50].tolist(), b[0:25].tolist()], plies)]


def _eq(probs: list[float] | None, rules: Rules) -> float | None:
    return None if probs is None else float(equity(np.array([probs]), rules)[0])


def opinions(pos: Position, rules: Rules, ev: NetEvaluator) -> dict[str, Any]:
    """pulvezar 0-ply and (international) gnubg-nn 0- and 2-ply probabilities and equities."""
    p0 = [float(x) for x in ev.for_rules(rules).evaluate(pos)]
    out: dict[str, Any] = {"pulvezar_0ply": p0, "pulvezar_0ply_equity": _eq(p0, rules)}
    if rules.variant == "international":
        for plies in (0, 2):
            g = gnubg_probs(pos, plies)
            out[f"gnubg_{plies}ply"], out[f"gnubg_{plies}ply_equity"] = g, _eq(g, rules)
    return out


def model_of(ev: NetEvaluator) -> dict[str, Any]:
    """The evaluator's name and model file digest, and pulvezar's version."""
    info = ev.info
    return {
        "model": info.name if info else None,
        "model_sha256": info.sha256 if info else None,
        "pulvezar": __version__,
    }


def _rollout_chunks(
    pos: Position,
    rules: Rules,
    ev: NetEvaluator,
    args: argparse.Namespace,
    partial: Path,
    index: int,
    bearoff_stop: bool = True,
) -> tuple[Any, float]:
    """The rollout of one position, ``--chunk`` trials at a time, resumed from and saved to ``partial``
    (trial ``i``'s dice depend on the seed and ``i`` alone, so a resumed rollout equals an unbroken one)."""
    from pulvezar.rollouts import RolloutResult, rollout

    ids, vals, cpu = np.zeros(0, dtype=np.int64), np.zeros((0, 5)), 0.0
    if partial.exists():
        z = np.load(partial)
        if int(z["index"]) == index:
            ids, vals, cpu = z["ids"], z["values"], float(z["cpu"])
    while len(ids) < args.trials:
        n = min(args.chunk, args.trials - len(ids))
        c0 = time.process_time()
        r = rollout(
            pos,
            trials=n,
            ply=args.ply,
            seed=args.seed,
            evaluator=ev,
            rules=rules,
            first_trial=len(ids),
            bearoff_stop=bearoff_stop,
        )
        cpu += time.process_time() - c0
        ids, vals = np.concatenate([ids, r.trials_run]), np.concatenate([vals, r.values])
        tmp = partial.with_suffix(".tmp.npz")
        np.savez(tmp, index=index, ids=ids, values=vals, cpu=cpu)
        os.replace(tmp, partial)
    return RolloutResult(ids, vals, args.seed, rules, True), cpu


def truth(rec: dict[str, Any], ev: NetEvaluator, args: argparse.Namespace, partial: Path) -> dict[str, Any]:
    """One position's truth record (exact where a database holds it, else a checkpointed rollout)."""
    pos, rules = position_of(rec), rules_of(rec["rules"])
    out: dict[str, Any] = {"index": rec["index"], "position_id": rec["position_id"], "rules": rec["rules"]}
    exact = exact_truth(pos, ev.two_sided, ev.races)
    if exact is not None:
        out |= {"method": exact[0], "probs": exact[1], "probs_se": [0.0] * 5, "equity_se": 0.0, "trials": 0}
    else:
        r, cpu = _rollout_chunks(pos, rules, ev, args, partial, rec["index"])
        out |= {
            "method": f"rollout {args.ply}-ply",
            "probs": [float(x) for x in r.probabilities],
            "probs_se": [float(x) for x in r.probability_se],
            "equity_se": float(r.noise),
            "trials": r.trials,
            "seed": args.seed,
            "luck": "screened",
            "cpu_s": round(cpu, 2),
        }
    out["equity"] = _eq(out["probs"], rules)
    return out | opinions(pos, rules, ev)


def _shards(run: Path) -> dict[int, dict[str, Any]]:
    done: dict[int, dict[str, Any]] = {}
    for f in sorted(run.glob("shard-*.json")):
        done |= {r["index"]: r for r in json.loads(f.read_text())["records"]}
    return done


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1) + "\n")
    os.replace(tmp, path)


def run(args: argparse.Namespace) -> int:
    """Give every selected position (or the first ``--limit``) its truth, resuming where a run stopped."""
    import torch

    torch.set_num_threads(1)
    sel = json.loads((args.out / "positions.json").read_text())
    recs = sel["positions"][: args.limit or None]
    run_dir = args.out / f"truth-{args.ply}ply-{args.trials}"
    run_dir.mkdir(parents=True, exist_ok=True)
    ev = NetEvaluator.load(args.model) if args.model else default_evaluator_()
    settings = {
        "ply": args.ply,
        "trials": args.trials,
        "seed": args.seed,
        "chunk": args.chunk,
        "variance_reduction": True,
        "luck": "screened",
        "bearoff_stop": True,
        **model_of(ev),
    }
    meta = run_dir / "run.json"
    if meta.exists() and json.loads(meta.read_text())["settings"] != settings:
        raise SystemExit(
            f"{run_dir} was made with other settings: {json.loads(meta.read_text())['settings']}"
        )
    _write_json(
        meta, {"format": FORMAT, "settings": settings, "selection_sha256": _sha(args.out / "positions.json")}
    )
    done = _shards(run_dir)
    for rec in recs:
        if rec["index"] in done:
            continue
        t0 = time.time()
        done[rec["index"]] = truth(rec, ev, args, run_dir / "partial.npz")
        shard = rec["index"] // SHARD
        part = [done[i] for i in sorted(done) if i // SHARD == shard]
        _write_json(run_dir / f"shard-{shard:03d}.json", {"format": FORMAT, "records": part})
        d = done[rec["index"]]
        print(
            f"{rec['index']:4d} {rec['rules']:38} {d['method']:14} {d['equity']:+.5f} +- {d['equity_se']:.5f}"
            f"  p0 {d['pulvezar_0ply_equity']:+.5f}  {time.time() - t0:7.1f} s",
            flush=True,
        )
    (run_dir / "partial.npz").unlink(missing_ok=True)
    return 0


def default_evaluator_() -> NetEvaluator:
    from pulvezar.eval.evaluator import default_evaluator

    return default_evaluator()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sums(out: Path) -> int:
    """Write ``SHA256SUMS`` over the JSON files (partial checkpoints left out)."""
    files = sorted(p for p in out.rglob("*.json") if ".tmp" not in p.name)
    lines = [f"{_sha(p)}  {p.relative_to(out)}" for p in files]
    (out / "SHA256SUMS").write_text("\n".join(lines) + "\n")
    return 0


def records(out: Path, run_name: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(selection record, truth record) of every finished position of a run."""
    sel = {r["index"]: r for r in json.loads((out / "positions.json").read_text())["positions"]}
    for i, t in sorted(_shards(out / run_name).items()):
        yield sel[i], t


def report(out: Path, run_name: str, z: float = 2.0, margin: float = 0.01) -> int:
    """Positions where pulvezar 0-ply or gnubg-nn stands off the truth by more than ``margin`` + z SE,
    then per opinion and rule family: positions, mean |equity error|, how many stand off."""
    names = ("pulvezar_0ply", "gnubg_0ply", "gnubg_2ply")
    stats: dict[tuple[str, str], list[float]] = defaultdict(list)
    print(f"{'idx':>4} {'rules':14} {'truth':>18} {'pz 0p':>8} {'gnubg 0p':>8} {'gnubg 2p':>8}  kinds")
    for s, t in records(out, run_name):
        tol = margin + z * t["equity_se"]
        cols = [t.get(f"{n}_equity") for n in names]
        family = "international" if s["rules"] == "international" else "tavla"
        for n, c in zip(names, cols, strict=True):
            if c is not None:
                stats[(n, family)].append(c - t["equity"] if abs(c - t["equity"]) > tol else 0.0)
                stats[(n, family + " all")].append(abs(c - t["equity"]))
        if all(c is None or abs(c - t["equity"]) <= tol for c in cols):
            continue
        fmt = ["    -   " if c is None else f"{c:+.4f}" for c in cols]
        print(
            f"{s['index']:4d} {s['rules'][:14]:14} {t['equity']:+.4f} +- {t['equity_se']:.4f} "
            f"{fmt[0]:>8} {fmt[1]:>8} {fmt[2]:>8}  {', '.join(s['kinds'])} ({s['source']})"
        )
    for (n, family), errs in sorted(stats.items()):
        if not family.endswith(" all"):
            mean = float(np.mean(stats[(n, family + " all")]))
            off = sum(1 for e in errs if e != 0.0)
            print(
                f"{n:14} {family:14} {len(errs):4d} positions  mean |error| {mean:.4f}  off the truth {off}"
            )
    return 0


def select(args: argparse.Namespace) -> int:
    """Write ``positions.json`` (refusing to replace a different selection unless ``--force``)."""
    chosen = selection(args.seed)
    counts: dict[str, int] = defaultdict(int)
    for r in chosen:
        counts[r["rules"]] += 1
        for k in r["kinds"]:
            counts[f"{r['rules']}: {k}"] += 1
    doc = {
        "format": FORMAT,
        "seed": args.seed,
        "corpus_sha256": _sha(CORPUS),
        "counts": dict(sorted(counts.items())),
        "positions": chosen,
    }
    path = args.out / "positions.json"
    if path.exists() and json.loads(path.read_text())["positions"] != chosen and not args.force:
        raise SystemExit(f"{path} holds another selection (--force replaces it)")
    args.out.mkdir(parents=True, exist_ok=True)
    _write_json(path, doc)
    print(
        f"{len(chosen)} positions: " + ", ".join(f"{k} {v}" for k, v in doc["counts"].items() if ":" not in k)
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("select", "run", "sums", "report"))
    ap.add_argument("--out", type=Path, default=Path("data/race_truth"))
    ap.add_argument("--seed", type=int, default=SEED, help="selection seed (select), dice seed (run)")
    ap.add_argument("--ply", type=int, default=1)
    ap.add_argument("--trials", type=int, default=324)
    ap.add_argument("--chunk", type=int, default=36, help="trials between checkpoints")
    ap.add_argument("--limit", type=int, default=0, help="only the first N positions (0: all)")
    ap.add_argument("--model", help="model file (default: the shipped model)")
    ap.add_argument("--run", default="truth-1ply-324", help="the run directory report reads")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    if args.command == "select":
        return select(args)
    if args.command == "run":
        return run(args)
    if args.command == "sums":
        return sums(args.out)
    return report(args.out, args.run)


if __name__ == "__main__":
    raise SystemExit(main())
