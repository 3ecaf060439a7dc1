"""Decision groups where two teachers disagree, for a deeper teacher's labels (issue 46).

The top-4 decision groups (``runs/groups-top4``, :func:`pulvezar.train.groups.top`) carry two
opinions of every play: gnubg-nn 2-ply (label set ``2ply``) and Open Sage 1-ply (``sage1``), both
committed under ``data/groups-top4``.  Where they choose the same play and value the plays alike, a
third opinion teaches little; where they disagree, a deeper one (Open Sage 2-ply, label set
``sage2``, 23 ms a position measured here) decides.

The **disagreement** of a group is the loss each teacher sees in the other's choice, summed:
``(A[a] - A[b]) + (B[b] - B[a])`` with ``A``, ``B`` the two teachers' equities of the mover's plays
and ``a``, ``b`` their best plays; 0 when they choose the same play.  Only groups whose plays are
all contact positions and all labelled by both teachers are ranked.

``pulvezar train groups disagree --workdir runs/groups-top4 --labels data/groups-top4
--out runs/groups-disagree`` writes ``out/corpus.npz`` in the groups' format (the plays of the
``groups`` most disagreeing groups, most disagreeing first, a group's plays together) with ``row``
(the row in the source) and ``score`` (the group's disagreement), so that
``groups label --workdir runs/groups-disagree --set sage2`` labels it in resumable shards, the
worst disagreements first.  The build is deterministic (same source, labels and ``rows``); its
positions (0.9 MB) and the label shards are committed (``data/groups-disagree``): resuming needs no rebuild.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import equity
from pulvezar.train.corpus import (
    CLASSES,
    CORPUS_FILE,
    META_FILE,
    Log,
    read_npz,
    sha256_file,
    write_npz,
    write_text,
)

Floats = npt.NDArray[np.float64]


def disagreement(
    group: npt.NDArray[Any], a: Floats, b: Floats, ok: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[Any], Floats, npt.NDArray[np.bool_]]:
    """Per group (of the rows): the group ids, their disagreement and whether the teachers' best plays
    differ.  ``a``, ``b``: each teacher's equity of each row's play for the mover.  Groups with a row
    not ``ok`` or with fewer than two rows are left out."""
    ids, inv, size = np.unique(group, return_inverse=True, return_counts=True)
    whole = np.bincount(inv, weights=ok.astype(np.float64), minlength=len(ids)) == size
    keep = whole & (size >= 2)
    m = keep[inv]
    g, ea, eb = inv[m], a[m], b[m]
    n = len(ids)
    best_a, best_b = _best(g, ea, n), _best(g, eb, n)
    sel = np.flatnonzero(keep)
    ia, ib = best_a[sel], best_b[sel]
    score = (ea[ia] - ea[ib]) + (eb[ib] - eb[ia])
    return ids[sel], score, ia != ib


def _best(g: npt.NDArray[np.intp], e: Floats, n: int) -> npt.NDArray[np.intp]:
    """Index (into ``g``) of the highest ``e`` of each group id ``0..n-1`` (first of equals)."""
    order = np.lexsort((-e, g))
    first = np.r_[True, g[order][1:] != g[order][:-1]]
    out = np.full(n, -1, dtype=np.intp)
    out[g[order][first]] = order[first]
    return out


def rank(
    corpus: dict[str, npt.NDArray[Any]], probs_a: Floats, probs_b: Floats, ok: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[Any], Floats, npt.NDArray[np.bool_]]:
    """Contact groups of ``corpus`` (every play a contact position) by disagreement, the largest first
    (ties by group id): group ids, scores, best plays differ."""
    contact = corpus["cls"] == CLASSES.index("contact")
    ids, score, differ = disagreement(corpus["group"], -equity(probs_a), -equity(probs_b), ok & contact)
    order = np.lexsort((ids, -score))
    return ids[order], score[order], differ[order]


def build(
    source: str | Path,
    labels: str | Path,
    out: str | Path,
    set_a: str = "2ply",
    set_b: str = "sage1",
    groups: int = 25_000,
    rows: int = 0,
    log: Log = print,
) -> dict[str, Any]:
    """Write ``out/corpus.npz`` (see the module docstring) of the ``groups`` most disagreeing contact
    groups of ``source/corpus.npz`` by label sets ``set_a`` and ``set_b`` (shards in ``labels``),
    using only the first ``rows`` rows (0: all labelled by both)."""
    from pulvezar.train.labels import UNLABELLED, read_labels

    out = Path(out)
    if (out / CORPUS_FILE).exists() and (out / META_FILE).exists():
        meta: dict[str, Any] = json.loads((out / META_FILE).read_text())
        return meta
    g = read_npz(Path(source) / CORPUS_FILE)
    pa, ta = read_labels(labels, set_a, g)
    pb, tb = read_labels(labels, set_b, g)
    ok = (ta != UNLABELLED) & (tb != UNLABELLED)
    if rows:
        ok[rows:] = False
    ids, score, differ = rank(g, pa, pb, ok)
    top_ids, top_score = ids[:groups], score[:groups]
    pos = {int(k): j for j, k in enumerate(top_ids)}
    sel = np.flatnonzero(np.isin(g["group"], top_ids))
    at = np.array([pos[int(k)] for k in g["group"][sel]], dtype=np.intp)
    sel = sel[np.lexsort((sel, at))]
    at = np.sort(at)
    (out).mkdir(parents=True, exist_ok=True)
    write_npz(
        out / CORPUS_FILE,
        **{k: g[k][sel] for k in ("keys", "rules", "source", "cls", "group", "dice", "rank")},
        row=sel.astype(np.int64),
        score=top_score[at].astype(np.float32),
    )
    meta = {
        "kind": f"contact decision groups where label sets {set_a} and {set_b} disagree most",
        "source_sha256": sha256_file(Path(source) / CORPUS_FILE),
        "labels": {s: sha256_file(Path(labels) / f"labels-{s}.json") for s in (set_a, set_b)},
        "rows": int(rows or len(ok)),
        "ranked_groups": len(ids),
        "groups_best_play_differs": int(differ.sum()),
        "groups": len(top_ids),
        "score_min": round(float(top_score[-1]), 5) if len(top_score) else None,
        "score_max": round(float(top_score[0]), 5) if len(top_score) else None,
        "sha256": sha256_file(out / CORPUS_FILE),
        "positions": len(sel),
    }
    write_text(out / META_FILE, json.dumps(meta, indent=2) + "\n")
    log(f"disagree: {len(sel)} positions of {len(top_ids)} of {len(ids)} ranked groups "
        f"({meta['groups_best_play_differs']} with different best plays)")  # fmt: skip
    return meta
