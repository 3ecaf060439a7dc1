"""Issue 43, Tavla: how well a model's race nets value and play Tavla races, rule set by rule set.

No engine outside pulvezar knows Tavla, but a race is a race: no checker can be hit, so ``hit_and_stop``
changes nothing, and what differs from backgammon is the scoring (a mars counts 2, there is no
backgammon) and, with ``must_bear_off``, the moves once a side is home.  The **teacher** here is a search
under Tavla's own rules whose leaves are gnubg-nn 0-ply (PyPI ``gnubg_nn``, its outputs at run time;
nothing of it is kept): pulvezar's move generator and scoring, gnubg's race evaluation.  Two rule sets:
``tavla`` (with or without hit and stop) and ``tavla+must_bear_off``.

Positions: Tavla corpus races (``data/tavla-corpus``), ``--positions`` per rule set: the first of the
held-out races of ``pulvezar train lookahead build --rules R`` with the same ``--seed``
(:func:`pulvezar.train.lookahead.tavla_heldout`), so a net made from such a build never saw them.
Per model and rule set:
- **value error**: mean |V - T| in Tavla cubeless equity, V the model's 0-ply, T the teacher at 1 ply;
- **consistency**: mean |V - the model's own 1-ply| (what the rollouts' variance reduction relies on);
- **decisions**: one seeded roll per position; the model's 0-ply choice against the best play, each play
  valued by the teacher at 1 ply after it (2 ply from the decision); loss x 1000 per decision, and each
  later model's paired difference to the first with its 95% interval;
- the race set's Tavla truths (``data/race_truth``, ``--truth``): mean |V - truth| and how many stand
  more than 0.01 + 2 SE from it.

    .venv/bin/python bench/tavla_races.py --model libs/pulvezar/eval/models/pulvezar-v4.pt \\
        --model libs/pulvezar/eval/models/pulvezar-v5.pt [--positions 600] [--seed 43]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from pulvezar.eval.evaluator import NetEvaluator, equity, flip, swap_boards
from pulvezar.rules import _kernel
from pulvezar.rules.rules import Rules
from pulvezar.search.plies import Search
from pulvezar.train.corpus import RULE_NAMES
from pulvezar.train.labels import GnubgEvaluator
from pulvezar.train.lookahead import race_class, tavla_heldout

ROOT = Path(__file__).resolve().parents[1]
RACE_RULES = {"tavla": Rules.tavla(), "tavla+must_bear_off": Rules.tavla(must_bear_off=True)}


def mover_values(results: np.ndarray, search: Search, ply: int) -> np.ndarray:
    """The mover's Tavla cubeless equity of resulting boards (mover's view): ``ply`` plies after the play."""
    return np.asarray(equity(flip(search.probabilities(swap_boards(results), ply)), search.rules))


def decisions(boards: np.ndarray, seed: int) -> list[tuple[np.ndarray, int, int]]:
    rng = np.random.default_rng(seed + 1)
    return [(b, int(rng.integers(1, 7)), int(rng.integers(1, 7))) for b in boards]


def results_of(board: np.ndarray, d1: int, d2: int, rules: Rules) -> np.ndarray:
    rec = _kernel.generate(board.tobytes(), d1, d2, rules.kernel_flags)
    return np.frombuffer(rec, dtype=np.uint8).reshape(-1, _kernel.REC)[:, :50].copy()


def truths(rules: Rules) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """The race set's positions of ``rules``' race class with a 1-ply truth: boards, truths, SEs."""
    mine = {RULE_NAMES[i] for i in race_class(rules)}
    boards, eq, se = [], [], []
    for shard in sorted((ROOT / "data/race_truth/truth-1ply-324").glob("shard-*.json")):
        for rec in json.loads(shard.read_text())["records"]:
            if rec["rules"] not in mine:
                continue
            boards.append(np.frombuffer(_kernel.board_from_position_id(rec["position_id"]), dtype=np.uint8))
            eq.append(rec["equity"])
            se.append(rec["equity_se"])
    return boards, np.array(eq), np.array(se)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", required=True)
    ap.add_argument("--positions", type=int, default=600)
    ap.add_argument("--seed", type=int, default=43)
    a = ap.parse_args()
    torch.set_num_threads(1)
    teacher = GnubgEvaluator()
    models = [
        (Path(m).stem if Path(m).stem != "model" else Path(m).parent.name, NetEvaluator.load(m, device="cpu"))
        for m in a.model
    ]
    for name, rules in RACE_RULES.items():
        boards = tavla_heldout(rules, a.positions, a.seed, ROOT / "data/tavla-corpus")
        t0 = time.process_time()
        tsearch = Search(teacher, rules, prune=None)
        t_eq = equity(tsearch.probabilities(boards, 1), rules)
        judged = []
        for b, d1, d2 in decisions(boards, a.seed):
            res = results_of(b, d1, d2, rules)
            judged.append((res, mover_values(res, tsearch, 1)))
        print(
            f"{name}: {len(boards)} races, teacher and judge {time.process_time() - t0:.0f} CPU s", flush=True
        )
        tb, tt, tse = truths(rules)
        first: np.ndarray | None = None
        for label, ev in models:
            s = Search(ev, rules, prune=None)
            v = equity(s.probabilities(boards, 0), rules)
            one = equity(s.probabilities(boards, 1), rules)
            loss = []
            for res, jv in judged:
                if len(res) <= 1:
                    continue
                mine = mover_values(res, s, 0)
                loss.append(jv.max() - jv[int(np.argmax(mine))])
            lost = np.array(loss)
            line = (
                f"  {label:24} |V-T| {np.abs(v - t_eq).mean():.4f}"
                f"  |V-own 1-ply| {np.abs(v - one).mean():.4f}"
                f"  decisions x1000 {1000 * lost.mean():.3f} ({len(lost)}, wrong {np.mean(lost > 1e-9):.1%})"
            )
            if first is None:
                first = lost
            elif len(lost) == len(first):  # the same decisions: a paired difference, 95% interval
                d = 1000 * (lost - first)
                line += f"  paired {d.mean():+.3f} +- {1.96 * d.std(ddof=1) / np.sqrt(len(d)):.3f}"
            if tb:
                tv = equity(s.probabilities(np.stack(tb), 0), rules)
                err = np.abs(tv - tt)
                line += (
                    f"  truth: |V-truth| {err.mean():.4f}, off {int((err > 0.01 + 2 * tse).sum())}/{len(tb)}"
                )
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
