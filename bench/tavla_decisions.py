"""Tavla checker-play decisions judged by pulvezar 2-ply: each Tavla variant's 0-ply decision loss (issue 28).

No outside engine knows Tavla's option rules (hit and stop, must bear off), so the judge is pulvezar's own
2-ply search with the net the file names (``--judge``, default: the shipped net).  Issue 28 measures a round
of expert iteration per variant as the 0-ply loss against that judge, before and after.

``build`` plays seeded 0-ply self-play games of the judge's net under each of Tavla's four rule sets (a
uniformly random legal play with probability 0.1 in half of the games), keeps positions at random, rolls
dice (a position's own seeded roll), keeps decisions with at least two distinct resulting positions until
each variant has ``--per-variant``, and stores the plays the judge's 2-ply search valued at 2 ply
(:meth:`pulvezar.search.plies.Search.rank`, its default filter) with their equities (Tavla: a mars counts 2).
Written after each variant (a build resumes from the file).  ``score`` lets each ``--model`` choose at 0 ply
among every legal play (``--ply 1``: at 1 ply too); a choice the judge did not value at 2 ply is valued then,
by the same judge, so every loss is the judge's.  Prints per variant the mean loss per decision x 1000 with a
95% interval and the share of blunders (loss >= 0.08); with several models, each one's paired
difference to the first (the same decisions, so a much tighter interval).  A model with nets of its
own for a rule set (issue 28, ``variants``) plays and judges with them.

    .venv/bin/python bench/tavla_decisions.py build [--per-variant 1000] [--out data/decisions/tavla2.npz]
    .venv/bin/python bench/tavla_decisions.py score [data/decisions/tavla2.npz] --model M [--model ...]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from pulvezar import Position, Rules
from pulvezar.eval.evaluator import DEFAULT_MODEL, NetEvaluator, equity
from pulvezar.search.plies import Search
from pulvezar.train.corpus import RULESETS, seed_of, selfplay_block, sha256_file

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SET = ROOT / "data" / "decisions" / "tavla2.npz"
VARIANTS: tuple[Rules, ...] = RULESETS[1:]  # plain Tavla, hit and stop, must bear off, both
START = Position.start().board
BLUNDER = 0.08


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **data)
    tmp.replace(path)


def judge_variant(
    search: Search, rules: Rules, n: int, seed: int, games: int
) -> tuple[list[bytes], list[tuple[int, int]], list[list[bytes]], list[list[float]]]:
    """``n`` decisions of ``rules``: boards, rolls, and the judged plays' resulting boards and equities."""
    rng = np.random.default_rng(seed)
    boards = selfplay_block(search.evaluator, rules, rng, games=games, lockstep=32, keep=0.05,
                            explore_rates=(0.0, 0.1))  # fmt: skip
    out: tuple[list[bytes], list[tuple[int, int]], list[list[bytes]], list[list[float]]] = ([], [], [], [])
    for i in rng.permutation(len(boards)):
        board = boards[i].tobytes()
        if board == START:
            continue
        d = rng.integers(1, 7, size=2)
        dice = (int(d[0]), int(d[1]))
        position = Position.from_board(board)
        if len(rules.legal_plays(position, dice)) < 2:
            continue
        judged = [c for c in search.rank(position, dice, ply=2) if c.ply == 2]
        out[0].append(board)
        out[1].append(dice)
        out[2].append([c.play.position.board for c in judged])
        out[3].append([c.cubeless_equity for c in judged])
        if len(out[0]) == n:
            return out
    raise RuntimeError(f"{rules.name}: only {len(out[0])} decisions from {games} games; raise --games")


def build(args: argparse.Namespace) -> int:
    judge_path = Path(args.judge)
    data = _load(args.out)
    if data and str(data["judge_sha256"]) != sha256_file(judge_path):
        raise SystemExit(f"{args.out} was judged by another net ({str(data['judge_sha256'])[:12]})")
    search = Search(NetEvaluator.load(judge_path, device="cpu"))
    done = set(int(v) for v in data.get("variant", []))
    for v, rules in enumerate(VARIANTS):
        if v in done:
            continue
        t0 = time.perf_counter()
        search = Search(search.evaluator, rules)
        boards, rolls, judged, values = judge_variant(
            search, rules, args.per_variant, seed_of(args.seed, v), args.games
        )
        counts = np.array([len(j) for j in judged], dtype=np.int32)
        new = {
            "variant": np.full(len(boards), v, dtype=np.int8),
            "board": np.frombuffer(b"".join(boards), dtype=np.uint8).reshape(-1, 50),
            "dice": np.array(rolls, dtype=np.int8),
            "judged_count": counts,
            "judged_board": np.frombuffer(b"".join(b for j in judged for b in j), dtype=np.uint8).reshape(
                -1, 50
            ),
            "judged_equity": np.array([e for vals in values for e in vals]),
        }
        data = {k: np.concatenate([data[k], new[k]]) if k in data else new[k] for k in new}
        data["judge_sha256"] = np.array(sha256_file(judge_path))
        data["judge_name"] = np.array(judge_path.stem)
        data["seed"] = np.array(args.seed)
        _save(args.out, data)
        print(f"{rules.name}: {len(boards)} decisions, {counts.mean():.1f} plays judged at 2 ply each, "
              f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
    return 0


def choices(search: Search, board: bytes, dice: tuple[int, int], ply: int) -> bytes:
    """The resulting board of the play ``search``'s net picks at ``ply`` (the first best, as a hint)."""
    return search.rank(Position.from_board(board), dice, ply=ply)[0].play.position.board


class Judge:
    """The file's judge: its stored 2-ply values, and the same search for a play it did not value."""

    def __init__(self, data: dict[str, Any], model: Path | None) -> None:
        self.data, self.model = data, model
        self.ends = np.cumsum(data["judged_count"])
        self.starts = self.ends - data["judged_count"]
        self.searches: dict[int, Search] = {}  # by variant (a Search's rules are fixed when it is made)
        self.evaluator: NetEvaluator | None = None

    def loss(self, i: int, pick: bytes) -> float:
        """The judge's loss of decision ``i``'s play whose resulting board is ``pick``."""
        s, e = self.starts[i], self.ends[i]
        boards, equities = self.data["judged_board"][s:e], self.data["judged_equity"][s:e]
        hit = np.flatnonzero((boards == np.frombuffer(pick, dtype=np.uint8)).all(axis=1))
        value = float(equities[hit[0]]) if len(hit) else self.value(int(self.data["variant"][i]), pick)
        return max(float(equities.max()), value) - value

    def value(self, v: int, pick: bytes) -> float:
        """The 2-ply equity of a play the judge did not value when the set was built."""
        if self.model is None:
            raise SystemExit("the judge's net is not a shipped model: name its file with --judge-model")
        if v not in self.searches:
            self.evaluator = self.evaluator or NetEvaluator.load(self.model)
            self.searches[v] = Search(self.evaluator, VARIANTS[v])
        probs = self.searches[v].play_probabilities(np.frombuffer(pick, dtype=np.uint8).reshape(1, 50), 2)
        return float(equity(probs, VARIANTS[v])[0])


def score(args: argparse.Namespace) -> int:
    data = _load(args.set)
    if not data:
        raise SystemExit(f"no decisions in {args.set}: run `build` first")
    shipped = [Path(args.judge_model)] if args.judge_model else _model_paths()
    judge = Judge(data, next((p for p in shipped if sha256_file(p) == str(data["judge_sha256"])), None))
    judge_id = f"{data['judge_name']}, {str(data['judge_sha256'])[:12]}"
    print(f"{len(data['board'])} Tavla decisions judged by pulvezar 2-ply ({judge_id}); "
          f"loss per decision x 1000 [95% CI] (blunders >= {BLUNDER})")  # fmt: skip
    runs: list[tuple[str, dict[int, np.ndarray]]] = []  # (model and plies, losses by variant)
    for model in args.model or [str(DEFAULT_MODEL)]:
        ev = NetEvaluator.load(model, device="cpu")  # a model's own nets for a rule set are its search's
        for ply in sorted({0, *(args.ply or [])}):
            losses: dict[int, list[float]] = {v: [] for v in range(len(VARIANTS))}
            mine = [Search(ev, rules) for rules in VARIANTS]
            for i, board in enumerate(data["board"]):
                v, dice = int(data["variant"][i]), (int(data["dice"][i][0]), int(data["dice"][i][1]))
                losses[v].append(judge.loss(i, choices(mine[v], board.tobytes(), dice, ply)))
            name = f"{Path(model).stem} {ply}-ply"
            runs.append((name, {v: np.array(ls) for v, ls in losses.items()}))
            for v, a in runs[-1][1].items():
                half = 1.96 * a.std(ddof=1) / math.sqrt(len(a)) if len(a) > 1 else float("nan")
                blunders = 100 * (a >= BLUNDER).mean()
                print(f"  {name:24s} {VARIANTS[v].name:32s} {1000 * a.mean():6.2f} +- {1000 * half:5.2f}  "
                      f"blunders {blunders:4.1f}%  (n={len(a)})")  # fmt: skip
    if len(runs) > 1:  # the same decisions: paired differences are much tighter than the rows above
        first, base = runs[0]
        print(f"paired differences against {first} (loss x 1000, 95% CI; negative: fewer points lost)")
        for name, losses_of in runs[1:]:
            for v in range(len(VARIANTS)):
                d = losses_of[v] - base[v]
                half = 1.96 * d.std(ddof=1) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
                print(f"  {name:24s} {VARIANTS[v].name:32s} {1000 * d.mean():+6.2f} +- {1000 * half:5.2f}")
    return 0


def _model_paths() -> list[Path]:
    return sorted((ROOT / "libs" / "pulvezar" / "eval" / "models").glob("*.pt"))


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", type=Path, default=DEFAULT_SET)
    b.add_argument("--judge", default=str(DEFAULT_MODEL), help="the judge's model file (2-ply search)")
    b.add_argument("--per-variant", type=int, default=1000)
    b.add_argument(
        "--games", type=int, default=800, help="self-play games per variant to draw positions from"
    )
    b.add_argument("--seed", type=int, default=28)
    s = sub.add_parser("score")
    s.add_argument("set", type=Path, nargs="?", default=DEFAULT_SET)
    s.add_argument("--model", action="append", help="model file (repeatable; default: the shipped net)")
    s.add_argument("--ply", type=int, choices=[1], action="append", help="also choose at 1 ply")
    s.add_argument("--judge-model", help="the judge's model file, where it is not a shipped one")
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else score(args)


if __name__ == "__main__":
    raise SystemExit(main())
