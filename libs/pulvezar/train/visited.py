"""Positions visited by rollouts, a source of training positions beside self-play (issue 13, section 1).

A rollout's value rests on the net's 0-ply evaluations of the positions its trials pass
through, so those positions belong in the training data.  ``pulvezar train visited
build --workdir runs/visited`` rolls out ``starts`` positions drawn from the corpus's match-file
positions (real play; self-play ones when there are too few), ``trials`` trials each with the
chooser net at 0 ply (variance reduction off: it changes the values, not the positions the
trials visit), records every position a trial stands in before its roll (the player on roll's
view, as the corpus), keeps each visit with probability ``keep``, and writes the distinct ones
that a net values (bear-offs and finished games dropped) in the corpus's format with ``group``
set to each row's own number: in :mod:`pulvezar.train.fit` they are single positions, taught by
the cross-entropy alone.  ``visited label --set 1ply`` labels them like the corpus.

Deterministic per seed (tested).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import MODELS, Evaluator, NetEvaluator
from pulvezar.rollouts.engine import rollout
from pulvezar.rollouts.lockstep import Chooser, greedy_chooser
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from pulvezar.train.corpus import (
    BEAROFF,
    CLASSES,
    CORPUS_FILE,
    META_FILE,
    SOURCES,
    Log,
    boards_of_keys,
    classify,
    keys_of,
    read_npz,
    seed_of,
    sha256_file,
    write_npz,
    write_text,
)

Boards = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int64]


@dataclass
class VisitedConfig:
    """Settings of a build of rollout-visited positions (stored in ``corpus.json``)."""

    corpus: str = "data/corpus"
    seed: int = 17
    starts: int = 600  # rolled-out positions
    trials: int = 36  # trials per position
    keep: float = 0.2  # probability that a visit is kept
    chooser: str = "pulvezar-v2"


class Recorder:
    """A rollout chooser that plays like ``greedy_chooser`` and keeps the boards it was asked about."""

    def __init__(self) -> None:
        self.seen: list[Boards] = []

    def __call__(self, boards: Boards, dice: Ints, rules: Rules, evaluator: Evaluator) -> tuple[Boards, Any]:
        self.seen.append(np.array(boards, dtype=np.uint8, copy=True))
        return greedy_chooser(boards, dice, rules, evaluator)


def visited_boards(
    starts: Boards, trials: int, seed: int, evaluator: Evaluator, chooser: Chooser | None = None
) -> Boards:
    """Every board the trials of a rollout of each start stand in before a roll (with repeats)."""
    out: list[Boards] = []
    for k, b in enumerate(starts):
        rec = Recorder()
        rollout(Position.from_board(b.tobytes()), trials=trials, seed=seed_of(seed, k),
                variance_reduction=False, evaluator=evaluator, chooser=rec)  # fmt: skip
        out.extend(rec.seen)
    return np.concatenate(out) if out else np.zeros((0, 50), dtype=np.uint8)


def build(config: VisitedConfig, workdir: str | Path, log: Log = print) -> dict[str, Any]:
    """Write ``workdir/corpus.npz`` and ``corpus.json`` (see the module docstring)."""
    workdir = Path(workdir)
    if (workdir / CORPUS_FILE).exists() and (workdir / META_FILE).exists():
        meta: dict[str, Any] = json.loads((workdir / META_FILE).read_text())
        return meta
    t0 = time.perf_counter()
    corpus = read_npz(Path(config.corpus) / "positions.npz")
    rng = np.random.default_rng(seed_of(config.seed, 0))
    intl = corpus["rules"] == 0
    pool = np.flatnonzero(intl & (corpus["source"] == SOURCES.index("matches")))
    if len(pool) < config.starts:
        pool = np.concatenate([pool, np.flatnonzero(intl & (corpus["source"] != SOURCES.index("matches")))])
    pick = np.sort(rng.choice(pool, size=min(config.starts, len(pool)), replace=False))
    starts = boards_of_keys(corpus["keys"][pick])
    chooser = NetEvaluator.load(MODELS / f"{config.chooser}.pt", device="cpu")
    seen = visited_boards(starts, config.trials, config.seed, chooser)
    kept = seen[rng.random(len(seen)) < config.keep]
    uniq = np.unique(kept, axis=0)
    uniq = uniq[np.random.default_rng(seed_of(config.seed, 1)).permutation(len(uniq))]
    cls = classify(uniq)
    uniq, cls = uniq[cls < BEAROFF], cls[cls < BEAROFF]
    n = len(uniq)
    write_npz(
        workdir / CORPUS_FILE,
        keys=keys_of(uniq),
        rules=np.zeros(n, np.uint8),
        source=np.full(n, SOURCES.index("selfplay"), np.uint8),
        cls=cls,
        group=np.arange(n, dtype=np.int32),
    )
    meta = {
        "kind": "positions visited by rollouts",
        "config": asdict(config),
        "corpus_sha256": sha256_file(Path(config.corpus) / "positions.npz"),
        "chooser_sha256": sha256_file(MODELS / f"{config.chooser}.pt"),
        "sha256": sha256_file(workdir / CORPUS_FILE),
        "visits": len(seen),
        "positions": n,
        "classes": {c: int((cls == k).sum()) for k, c in enumerate(CLASSES[:3])},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_text(workdir / META_FILE, json.dumps(meta, indent=2) + "\n")
    log(f"visited: {n} positions from {len(seen)} visits of {len(starts)} rollouts, {meta['seconds']} s")
    return meta
