"""Decision groups: the plays a net must choose between, for training on their differences (issue 13).

A net chooses a play by comparing the positions after the candidate plays of one roll, so
what it must get right is the *difference* between sibling positions, more than their
absolute values.  A **decision group** is one roll in one corpus position and a set of its
resulting positions:

- for every international position of the corpus (``positions.npz``, corpus order), one roll
  drawn with the build's seed (``--classes crashed,race --rolls 6``: only positions of those
  classes, and up to six distinct rolls of each, for the classes where the nets need more decisions);
- the ``top`` best plays by the chooser net at 0 ply (``pulvezar-v2`` by default) and up to
  ``random`` of the other plays drawn at random, so that plays the chooser undervalues are
  there too; a roll with one play only makes no group;
- each resulting position seen from the player on roll after the play (the opponent of the
  mover), as every corpus position is, and classified as in :func:`pulvezar.train.corpus.classify`.

``pulvezar train groups build --workdir runs/groups`` writes ``workdir/corpus.npz``
in the corpus's format (``keys``, ``rules``, ``source``, ``cls``) plus ``group`` (the corpus
index of the decision), ``dice`` (its roll) and ``rank`` (the chooser's rank of the play; the
random ones follow the top ones), so that :class:`pulvezar.train.labels.LabelRun` labels it like the corpus
(``groups label --set 0ply``).  ``groups top --k 4`` writes a second such file of the ``k``
best plays of each group by a label set (``runs/groups-top4``) for a costlier teacher.
Finished games and bear-off positions stay in the groups (a group is whole), but they carry
exact values and the nets are never trained on them.

The build is deterministic: the same corpus, seed and chooser give the same bytes (tested),
so the groups need not be committed; labels that cost hours are (``data/corpus``'s way).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import MODELS, NetEvaluator, equity, flip, swap_boards
from pulvezar.rules import _kernel
from pulvezar.train.corpus import (
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
SOURCE = SOURCES.index("selfplay")  # the decisions are the corpus's; ``source`` keeps the corpus column


@dataclass
class GroupsConfig:
    """Settings of a groups build (stored in ``corpus.json``)."""

    corpus: str = "data/corpus"
    seed: int = 11
    top: int = 12
    random: int = 4
    chooser: str = "pulvezar-v2"  # a model of pulvezar.eval.models
    block: int = 20_000  # corpus positions per batch of the build
    classes: str = ""  # comma-separated corpus classes whose positions make decisions; "" = every class
    rolls: int = (
        1  # rolls drawn per position; more than one: distinct rolls, group = index * ROLLS_STRIDE + slot
    )

    def class_ids(self) -> list[int]:
        """The corpus classes of the positions that make decisions (every class when ``classes`` is empty)."""
        names = [c.strip() for c in self.classes.split(",") if c.strip()]
        unknown = [c for c in names if c not in CLASSES]
        if unknown:
            raise ValueError(f"classes: unknown {', '.join(unknown)} (known: {', '.join(CLASSES)})")
        return [CLASSES.index(c) for c in names] if names else list(range(len(CLASSES)))


ROLLS_STRIDE = 32
"""With ``rolls > 1`` a decision's ``group`` is its corpus index times this plus the roll's slot."""


def draw_rolls(
    rng: np.random.Generator, n: int, rolls: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.intp]]:
    """``rolls`` draws of two dice for each of ``n`` positions, repeats of a roll (either order) dropped:
    the rolls ``(M, 2)`` and each one's ``position * ROLLS_STRIDE + slot``."""
    if not 1 <= rolls < ROLLS_STRIDE:
        raise ValueError(f"rolls must be in 1..{ROLLS_STRIDE - 1}")
    dice = rng.integers(1, 7, size=(n, rolls, 2))
    code = np.sort(dice, axis=2) @ np.array([6, 1])  # the same for 3-1 and 1-3
    first = np.ones((n, rolls), dtype=bool)
    for j in range(1, rolls):
        first[:, j] = (code[:, :j] != code[:, j : j + 1]).all(axis=1)
    pos, slot = np.nonzero(first)
    return dice[pos, slot], pos * ROLLS_STRIDE + slot


def decision_groups(
    boards: Boards, dice: npt.NDArray[np.int64], chooser: NetEvaluator, top: int, random: int,
    rng: np.random.Generator,
) -> tuple[Boards, npt.NDArray[np.int32], npt.NDArray[np.uint8]]:  # fmt: skip
    """Candidates of each ``(board, roll)``: resulting boards (player on roll after the play), the
    index of their decision in ``boards`` and their rank (see the module docstring)."""
    rec = _kernel.REC
    raw = [_kernel.generate(b.tobytes(), int(d[0]), int(d[1]), 0) for b, d in zip(boards, dice, strict=True)]
    n = np.fromiter((len(r) // rec for r in raw), dtype=np.intp, count=len(raw))
    after = swap_boards(np.frombuffer(b"".join(raw), dtype=np.uint8).reshape(-1, rec)[:, :50])
    eq = equity(flip(chooser.evaluate_boards(after)))  # the mover's equity of each play
    starts = np.concatenate([[0], np.cumsum(n)[:-1]]).astype(np.intp)
    picked, group, rank = [], [], []
    for k in np.flatnonzero(n > 1):
        s, m = int(starts[k]), int(n[k])
        order = np.argsort(-eq[s : s + m], kind="stable")
        take = list(order[:top])
        if m > top:
            take += list(rng.choice(order[top:], size=min(random, m - top), replace=False))
        picked.append(s + np.asarray(take, dtype=np.intp))
        group.append(np.full(len(take), k, dtype=np.int32))
        rank.append(np.arange(len(take), dtype=np.uint8))
    if not picked:
        return np.zeros((0, 50), np.uint8), np.zeros(0, np.int32), np.zeros(0, np.uint8)
    idx = np.concatenate(picked)
    return after[idx], np.concatenate(group), np.concatenate(rank)


def build(config: GroupsConfig, workdir: str | Path, log: Log = print) -> dict[str, Any]:
    """Write ``workdir/corpus.npz`` and ``corpus.json`` (see the module docstring); returns the metadata."""
    workdir = Path(workdir)
    out = workdir / CORPUS_FILE
    if out.exists() and (workdir / META_FILE).exists():
        meta: dict[str, Any] = json.loads((workdir / META_FILE).read_text())
        return meta
    t0 = time.perf_counter()
    corpus = read_npz(Path(config.corpus) / "positions.npz")
    intl = np.flatnonzero((corpus["rules"] == 0) & np.isin(corpus["cls"], config.class_ids()))
    chooser = NetEvaluator.load(MODELS / f"{config.chooser}.pt", device="cpu")
    rng = np.random.default_rng(seed_of(config.seed, 0))
    if config.rolls == 1:  # one roll per position, its group the corpus index (the first builds' bytes)
        dice = rng.integers(1, 7, size=(len(intl), 2))
        decision = intl
    else:
        dice, code = draw_rolls(rng, len(intl), config.rolls)
        decision = intl[code // ROLLS_STRIDE] * ROLLS_STRIDE + code % ROLLS_STRIDE
    pick_rng = np.random.default_rng(seed_of(config.seed, 1))
    keys_l, group_l, rank_l, cls_l, dice_l = [], [], [], [], []
    for s in range(0, len(decision), config.block):
        ids = decision[s : s + config.block]
        pos = ids if config.rolls == 1 else ids // ROLLS_STRIDE
        boards = boards_of_keys(corpus["keys"][pos])
        cand, g, r = decision_groups(
            boards, dice[s : s + config.block], chooser, config.top, config.random, pick_rng
        )
        keys_l.append(keys_of(cand))
        group_l.append(ids[g].astype(np.int32))
        dice_l.append(dice[s + g].astype(np.uint8))
        rank_l.append(r)
        cls_l.append(classify(cand))
        done = min(s + config.block, len(decision))
        log(f"groups: {done}/{len(decision)} decisions, {time.perf_counter() - t0:.0f} s")
    keys = np.concatenate(keys_l)
    cls = np.concatenate(cls_l)
    group = np.concatenate(group_l)
    write_npz(
        out,
        keys=keys,
        rules=np.zeros(len(keys), np.uint8),
        source=np.full(len(keys), SOURCE, np.uint8),
        cls=cls,
        group=group,
        dice=np.concatenate(dice_l),
        rank=np.concatenate(rank_l),
    )
    meta = {
        "kind": "decision groups",
        "config": asdict(config),
        "corpus_sha256": sha256_file(Path(config.corpus) / "positions.npz"),
        "chooser_sha256": sha256_file(MODELS / f"{config.chooser}.pt"),
        "sha256": sha256_file(out),
        "decisions": len(np.unique(group)),
        "positions": len(keys),
        "classes": {c: int((cls == k).sum()) for k, c in enumerate(CLASSES)},
        "seconds": round(time.perf_counter() - t0, 1),
    }
    write_text(workdir / META_FILE, json.dumps(meta, indent=2) + "\n")
    log(f"groups: {len(keys)} positions in {meta['decisions']} decisions, {meta['seconds']} s")
    return meta


def best_of_groups(
    groups: dict[str, npt.NDArray[Any]],
    probs: npt.NDArray[np.float64],
    labelled: npt.NDArray[np.bool_],
    k: int,
) -> npt.NDArray[np.intp]:
    """Rows of the ``k`` best labelled plays of every group by the labels (the mover's equity), in
    row order; finished games and bear-offs are left out (they have exact values)."""
    mover = -equity(probs)
    ok = labelled & (groups["cls"] < CLASSES.index("bearoff"))
    g = groups["group"]
    order = np.lexsort((-np.where(ok, mover, -np.inf), g))  # by group, best first
    gs = g[order]
    first = np.r_[True, gs[1:] != gs[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(gs)), 0))
    within = np.arange(len(gs)) - start
    keep = order[(within < k) & ok[order]]
    return np.sort(keep)


def top(source: str | Path, label_dir: str | Path, label_set: str, k: int, workdir: str | Path,
        log: Log = print) -> dict[str, Any]:  # fmt: skip
    """Write the ``k`` best plays of each group of ``source/corpus.npz`` by its label set ``label_set``
    (shards in ``label_dir``) as ``workdir/corpus.npz``, with ``row`` (the row in the source)."""
    from pulvezar.train.labels import read_labels

    workdir = Path(workdir)
    out = workdir / CORPUS_FILE
    if out.exists() and (workdir / META_FILE).exists():
        meta: dict[str, Any] = json.loads((workdir / META_FILE).read_text())
        return meta
    g = read_npz(Path(source) / CORPUS_FILE)
    probs, teacher = read_labels(label_dir, label_set, g)
    rows = best_of_groups(g, probs, teacher != 255, k)
    write_npz(
        out,
        keys=g["keys"][rows],
        rules=g["rules"][rows],
        source=g["source"][rows],
        cls=g["cls"][rows],
        group=g["group"][rows],
        dice=g["dice"][rows],
        rank=g["rank"][rows],
        row=rows.astype(np.int64),
    )
    meta = {
        "kind": f"the {k} best plays of each decision group by label set {label_set}",
        "source_sha256": sha256_file(Path(source) / CORPUS_FILE),
        "label_set": label_set,
        "k": k,
        "sha256": sha256_file(out),
        "positions": len(rows),
    }
    write_text(workdir / META_FILE, json.dumps(meta, indent=2) + "\n")
    log(f"top {k}: {len(rows)} positions")
    return meta
