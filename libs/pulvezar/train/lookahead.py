"""Race positions labelled by a net's own 1-ply look-ahead (issue 43): fitted value iteration.

Variance reduction in rollouts relies on the net's value agreeing with its own 1-ply look-ahead;
the race net did not (mean |V - 1-ply| 0.009 on corpus races).  This module makes the data to
fix that cheaply, from pulvezar's own engine alone:

- ``build`` (:func:`build`): the international **race** positions of the corpus (a seeded
  ``heldout`` of them set aside in ``heldout.npz`` for :func:`consistency`, never trained on),
  **gammon-saving** positions constructed by :func:`gammon_races` (the trailer with all 15
  checkers on the board and far back, the leader home with some borne off; either side on
  roll) and the race positions **visited** by 0-ply rollouts of some of both (``starts``
  rollouts of ``trials`` trials, each visit kept with probability ``keep``).  Distinct, bear-offs
  and finished games dropped (valued exactly, never by a net), written as a corpus folder
  (``positions.npz``: ``keys``, ``rules``, ``source``, ``cls``) that :mod:`pulvezar.train.fit`
  reads.
- ``label`` (:func:`label`): the 1-ply look-ahead of a model (unpruned :class:`Search`; each
  reply's value is the net's, or exact where it reaches the bear-off databases) of every
  position, as the label set ``lookahead`` (teacher ``lookahead-1ply``; the model's path and
  sha256 in ``labels-lookahead.json``), in shards of ``shard`` positions written atomically (a
  killed run resumes at the next missing shard).  Labels are stored as float32 (float16's
  rounding, 5e-4 near 1, would be as large as the disagreement being removed).
- Value iteration: label with the model of round ``k - 1`` (round 0: the shipped model), fit the
  race net to those labels (``pulvezar train fit --train race --init``), repeat: the target IS
  the net's own look-ahead, so the fit's loss is the consistency term.
- ``consistency`` (:func:`consistency`): mean, RMS and largest |V(x) - 1-ply(x)| in cubeless
  equity over boards, the measure the rollouts' variance reduction cares about.
- **Tavla** (``rules``, a Tavla rule set's name): the same races, every one marked with that rule set
  (a race is a race under any rules: no checker can be hit, so ``hit_and_stop`` changes nothing; the
  scoring and ``must_bear_off`` do), plus that race class's Tavla corpus races (``data/tavla-corpus``:
  ``tavla`` and ``tavla+hit_and_stop`` are one class, the ``must_bear_off`` sets the other).  The
  held-out races are :func:`tavla_heldout`'s (Tavla corpus races of the class), never trained on, and
  the look-ahead is under the rule set (Tavla's moves; a mars counts 2, no backgammon).
- ``ply=2``: the look-ahead two plies deep (about 30 times the cost; teachers ``lookahead-2ply``,
  ``lookahead-2ply-gnubg``).
- ``leaves="gnubg"``: the 1-ply look-ahead's replies are valued by gnubg-nn 0-ply
  (:class:`~pulvezar.train.labels.GnubgEvaluator`, outputs only, PyPI ``gnubg_nn``) instead of the
  model's net: pulvezar's moves and scoring under the rule set, gnubg's race evaluation (teacher
  ``lookahead-1ply-gnubg``).  How Tavla's race nets learn from a stronger race evaluator than their own
  when no engine outside pulvezar knows Tavla.

Deterministic per seed (tested in ``tests/train/test_lookahead.py``).
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import MODELS, EvaluatorBase, NetEvaluator, equity
from pulvezar.rules.rules import Rules
from pulvezar.search.plies import Search
from pulvezar.train.corpus import (
    RACE,
    RULE_NAMES,
    RULESETS,
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
from pulvezar.train.labels import TEACHERS, GnubgEvaluator, keys_digest, labels_dir, shard_path
from pulvezar.train.visited import visited_boards

Boards = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]

POSITIONS_FILE = "positions.npz"
HELDOUT_FILE = "heldout.npz"
META_FILE = "lookahead.json"
LABEL_SET = "lookahead"
TEACHER = "lookahead-1ply"
LEAVES = ("model", "gnubg")
DEFAULT_MODEL = str(MODELS / "pulvezar-v4.pt")


@dataclass
class LookaheadConfig:
    """Settings of a build (stored in ``lookahead.json``)."""

    corpus: str = "data/corpus"
    seed: int = 43
    heldout: int = 2_000  # corpus races set aside for measuring consistency
    max_corpus: int = 0  # the first N corpus (and Tavla corpus) races after the held-out ones; 0 = all
    gammon: int = 6_000  # constructed gammon-saving races
    starts: int = 1_500  # 0-ply rollouts whose visited races join the data (half from gammon races)
    trials: int = 4
    keep: float = 0.3
    model: str = DEFAULT_MODEL  # plays the rollouts
    rules: str = "international"  # the rule set the races are marked with (a Tavla one: module docstring)
    tavla_corpus: str = "data/tavla-corpus"


def race_class(rules: Rules) -> tuple[int, ...]:
    """The corpus ``rules`` ids whose races play as ``rules``' do: hit and stop changes no race, so
    ``tavla`` and ``tavla+hit_and_stop`` are one class, the two ``must_bear_off`` sets another.

    >>> race_class(Rules.tavla(must_bear_off=True))
    (3, 4)
    >>> race_class(Rules.international())
    (0,)
    """
    return tuple(
        i
        for i, r in enumerate(RULESETS)
        if r.variant == rules.variant
        and (r.variant == "international" or r.must_bear_off == rules.must_bear_off)
    )


def tavla_heldout(rules: Rules, n: int, seed: int, corpus: str | Path = "data/tavla-corpus") -> Boards:
    """``n`` Tavla corpus races of ``rules``' race class, seeded: the held-out races of a Tavla build
    (and of ``bench/tavla_races.py``)."""
    c = read_npz(Path(corpus) / "positions.npz")
    idx = np.flatnonzero((c["cls"] == RACE) & np.isin(c["rules"], race_class(rules)))
    idx = np.sort(np.random.default_rng(seed_of(seed, 11)).permutation(idx)[:n])
    return boards_of_keys(c["keys"][idx])


def gammon_races(n: int, seed: int) -> Boards:
    """``n`` race boards in which one side (the trailer) has all 15 checkers on the board, most of them
    outside its home board, and the other (the leader) is home with 1-12 borne off; the side on roll
    alternates (even rows: the trailer).  No contact: the trailer stays on its points 1-18."""
    rng = np.random.default_rng(seed_of(seed, 7))
    out = np.zeros((n, 50), dtype=np.uint8)
    for i in range(n):
        lead = np.zeros(25, dtype=np.int64)
        on = 15 - int(rng.integers(1, 13))
        np.add.at(lead, rng.integers(0, 6, size=on), 1)
        trail = np.zeros(25, dtype=np.int64)
        home = int(rng.integers(0, 5))
        back = int(rng.integers(6, 13))  # the furthest-forward outside point: 7..13 (index 6..12)
        np.add.at(trail, rng.integers(0, 6, size=home), 1)
        np.add.at(trail, rng.integers(back, 18, size=15 - home), 1)
        first, second = (trail, lead) if i % 2 == 0 else (lead, trail)
        out[i, :25], out[i, 25:] = first, second
    return out


def _races(boards: Boards) -> Boards:
    """The distinct race boards of ``boards`` (bear-offs, finished games and contact dropped)."""
    if len(boards) == 0:
        return boards
    u: Boards = np.unique(boards, axis=0)
    races: Boards = u[classify(u) == RACE]
    return races


def build(config: LookaheadConfig, workdir: str | Path, log: Log = print) -> dict[str, Any]:
    """Write ``workdir/positions.npz``, ``heldout.npz`` and ``lookahead.json`` (module docstring);
    returns the metadata (read back when the build exists)."""
    workdir = Path(workdir)
    meta_path = workdir / META_FILE
    if meta_path.exists() and (workdir / POSITIONS_FILE).exists():
        done: dict[str, Any] = json.loads(meta_path.read_text())
        return done
    t0 = time.process_time()
    rules = rules_named(config.rules)
    corpus = read_npz(Path(config.corpus) / "positions.npz")
    idx = np.flatnonzero((corpus["cls"] == RACE) & (corpus["rules"] == 0))
    idx = idx[np.random.default_rng(seed_of(config.seed, 1)).permutation(len(idx))]
    tavla = rules.variant == "tavla"
    held, train_idx = (idx[:0], idx) if tavla else (idx[: config.heldout], idx[config.heldout :])
    if config.max_corpus:
        train_idx = train_idx[: config.max_corpus]
    heldout = boards_of_keys(corpus["keys"][held])
    races = boards_of_keys(corpus["keys"][np.sort(train_idx)])
    if tavla:  # the class's Tavla corpus races join; a seeded part of them is held out
        heldout = tavla_heldout(rules, config.heldout, config.seed, config.tavla_corpus)
        tc = read_npz(Path(config.tavla_corpus) / "positions.npz")
        mine = np.flatnonzero((tc["cls"] == RACE) & np.isin(tc["rules"], race_class(rules)))
        mine = np.random.default_rng(seed_of(config.seed, 11)).permutation(mine)[config.heldout :]
        if config.max_corpus:
            mine = mine[: config.max_corpus]
        races = np.concatenate([races, _races(boards_of_keys(tc["keys"][np.sort(mine)]))])
    gammon = _races(gammon_races(config.gammon, config.seed))
    rng = np.random.default_rng(seed_of(config.seed, 2))
    half = config.starts // 2
    starts = np.concatenate([
        races[rng.choice(len(races), size=min(half, len(races)), replace=False)],
        gammon[rng.choice(len(gammon), size=min(config.starts - half, len(gammon)), replace=False)],
    ]) if config.starts else np.zeros((0, 50), np.uint8)  # fmt: skip
    ev = NetEvaluator.load(config.model, device="cpu")
    seen = visited_boards(starts, config.trials, config.seed, ev) if len(starts) else starts
    visited = _races(seen[rng.random(len(seen)) < config.keep])
    parts = {"corpus": races, "gammon": gammon, "visited": visited}
    boards = np.concatenate(list(parts.values()))
    source = np.concatenate([np.full(len(p), k, np.uint8) for k, p in enumerate(parts.values())])
    boards, first = np.unique(boards, axis=0, return_index=True)
    source = source[first]
    outside = ~_member(boards, heldout)  # never train on a held-out race
    boards, source = boards[outside], source[outside]
    order = np.random.default_rng(seed_of(config.seed, 3)).permutation(len(boards))
    boards, source = boards[order], source[order]
    n, rules_id = len(boards), RULE_NAMES.index(config.rules)
    write_npz(workdir / POSITIONS_FILE, keys=keys_of(boards), rules=np.full(n, rules_id, np.uint8),
              source=np.full(n, SOURCES.index("selfplay"), np.uint8), cls=np.full(n, RACE, np.uint8),
              origin=source)  # fmt: skip
    write_npz(workdir / HELDOUT_FILE, keys=keys_of(heldout))
    meta = {
        "kind": "race positions for look-ahead labels (issue 43)",
        "config": asdict(config),
        "corpus_sha256": sha256_file(Path(config.corpus) / "positions.npz"),
        **(
            {"tavla_corpus_sha256": sha256_file(Path(config.tavla_corpus) / "positions.npz")} if tavla else {}
        ),
        "model_sha256": sha256_file(config.model),
        "positions": n,
        "origins": {k: int((source == i).sum()) for i, k in enumerate(parts)},
        "heldout": len(heldout),
        "visits": len(seen),
        "sha256": sha256_file(workdir / POSITIONS_FILE),
        "cpu_s": round(time.process_time() - t0, 1),
    }
    write_text(meta_path, json.dumps(meta, indent=2) + "\n")
    log(f"lookahead build: {n} races {meta['origins']}, {len(heldout)} held out, {meta['cpu_s']} CPU s")
    return meta


def _member(boards: Boards, of: Boards) -> npt.NDArray[np.bool_]:
    """Which rows of ``boards`` are rows of ``of``."""
    have = {bytes(b) for b in of}
    return np.fromiter((bytes(b) in have for b in boards), dtype=bool, count=len(boards))


def lookahead(model: EvaluatorBase, boards: Boards, ply: int = 1, rules: Rules | None = None) -> Probs:
    """The ``ply``-ply look-ahead probabilities of ``boards`` under ``rules`` (default international;
    unpruned, a fresh cache)."""
    result: Probs = Search(model, rules or Rules.international(), prune=None).probabilities(boards, ply)
    return result


def label(
    workdir: str | Path,
    model: str = DEFAULT_MODEL,
    shard: int = 5_000,
    log: Log = print,
    leaves: str = "model",
    ply: int = 1,
) -> int:
    """Label ``workdir/positions.npz`` with the ``ply``-ply look-ahead (1 or 2) under the build's rule set,
    its leaves valued by ``model``'s nets (``leaves="model"``) or gnubg-nn 0-ply (``"gnubg"``) (set
    ``lookahead``; teacher :func:`teacher_of`); returns the number of shards written now.  A workdir keeps
    the model, leaves and ply it was started with."""
    if leaves not in LEAVES:
        raise ValueError(f"leaves is one of {', '.join(LEAVES)}, got {leaves!r}")
    if ply not in (1, 2):
        raise ValueError(f"ply is 1 or 2, got {ply}")
    workdir = Path(workdir)
    cfg_path = workdir / f"labels-{LABEL_SET}.json"
    corpus = read_npz(workdir / POSITIONS_FILE)
    rules = build_rules(workdir)  # the build's record, which every position's mark must agree with
    if not np.all(corpus["rules"] == RULE_NAMES.index(rules.name)):
        raise ValueError(f"{workdir}: positions marked with another rule set than the build's {rules.name}")
    gnubg = leaves == "gnubg"
    meta = {
        "shard": shard,
        "teacher": teacher_of(leaves, ply),
        "ply": ply,
        "rules": rules.name,
        "leaves": "gnubg-nn 0-ply (PyPI gnubg_nn)" if gnubg else "the model's nets",
        "model": None if gnubg else str(model),
        "model_sha256": None if gnubg else sha256_file(model),
        "corpus_sha256": sha256_file(workdir / POSITIONS_FILE),
    }
    keys = ("teacher", "ply", "model_sha256", "corpus_sha256", "shard")
    if cfg_path.exists():
        old = {"teacher": TEACHER, "ply": 1, **json.loads(cfg_path.read_text())}
        if {k: old.get(k) for k in keys} != {k: meta[k] for k in keys}:
            raise ValueError(f"{cfg_path} was made with another model, leaves, ply, corpus or shard size")
    else:
        write_text(cfg_path, json.dumps(meta, indent=2) + "\n")
    ev: EvaluatorBase = GnubgEvaluator() if gnubg else NetEvaluator.load(model, device="cpu")
    n, written = len(corpus["keys"]), 0
    labels_dir(workdir, LABEL_SET).mkdir(parents=True, exist_ok=True)
    for i in range((n + shard - 1) // shard):
        path = shard_path(workdir, i, LABEL_SET)
        if path.exists():
            continue
        lo, hi = i * shard, min(n, (i + 1) * shard)
        t0 = time.process_time()
        probs = lookahead(ev, boards_of_keys(corpus["keys"][lo:hi]), ply, rules=rules)
        write_npz(path, probs=probs.astype(np.float32),
                  teacher=np.full(hi - lo, TEACHERS.index(str(meta["teacher"])), np.uint8),
                  keys_sha256=keys_digest(corpus["keys"][lo:hi], corpus["rules"][lo:hi]))  # fmt: skip
        written += 1
        log(
            f"shard {i}: {hi - lo} positions, {1000 * (time.process_time() - t0) / (hi - lo):.2f} CPU ms each"
        )
    return written


def teacher_of(leaves: str, ply: int) -> str:
    """The teacher name of look-ahead labels (:data:`pulvezar.train.labels.TEACHERS`).

    >>> teacher_of("model", 1), teacher_of("gnubg", 1), teacher_of("gnubg", 2)
    ('lookahead-1ply', 'lookahead-1ply-gnubg', 'lookahead-2ply-gnubg')
    """
    return f"lookahead-{ply}ply" + ("-gnubg" if leaves == "gnubg" else "")


def next_round(workdir: str | Path, out: str | Path) -> Path:
    """A corpus folder for the next round of value iteration: ``workdir``'s positions, no labels."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in (POSITIONS_FILE, HELDOUT_FILE, META_FILE):
        if not (out / name).exists():
            shutil.copyfile(Path(workdir) / name, out / name)
    return out


def consistency(model: NetEvaluator, boards: Boards, rules: Rules | None = None) -> dict[str, float]:
    """|V(x) - 1-ply(x)| in cubeless equity over ``boards`` under ``rules`` (default international; a
    model's own nets for the rule set): mean, RMS, largest, and the mean signed difference (V minus
    look-ahead)."""
    rules = rules or Rules.international()
    own = model.for_rules(rules)
    d = equity(own.evaluate_boards(boards), rules) - equity(lookahead(model, boards, rules=rules), rules)
    return {"positions": len(boards), "mean_abs": float(np.abs(d).mean()),
            "rms": float(np.sqrt((d**2).mean())), "max_abs": float(np.abs(d).max()),
            "mean": float(d.mean())}  # fmt: skip


def rules_named(name: str) -> Rules:
    """The rule set of a corpus's ``rules`` name (``Rules.name``)."""
    if name not in RULE_NAMES:
        raise ValueError(f"rules is one of {', '.join(RULE_NAMES)}, got {name!r}")
    return RULESETS[RULE_NAMES.index(name)]


def build_rules(workdir: str | Path) -> Rules:
    """The rule set a build's races are marked with."""
    meta = json.loads((Path(workdir) / META_FILE).read_text())
    return rules_named(str(meta["config"].get("rules", "international")))


def heldout_boards(workdir: str | Path) -> Boards:
    """The held-out corpus races of a build."""
    return boards_of_keys(read_npz(Path(workdir) / HELDOUT_FILE)["keys"])


__all__ = [
    "LookaheadConfig",
    "build",
    "build_rules",
    "consistency",
    "gammon_races",
    "heldout_boards",
    "label",
    "lookahead",
    "next_round",
    "race_class",
    "rules_named",
    "tavla_heldout",
    "teacher_of",
]
