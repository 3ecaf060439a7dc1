"""A rollout job's chunks are the same bits before and after the job framework (issue 27).

The digests below were computed by the code of commit db60b70 (before ``services/jobs``: the stored item
checked by ``services.rollout.jobs.normalise_item``, the chunk by ``services.rollout.tasks.compute_chunk``
on the item's dict) for trials 36..71 of five items, with the model ``pulvezar-v3`` of that commit
(sha256 ``5005ee0e37a5365f...``) and one torch thread.  The framework checks the item once
(:func:`services.jobs.rollout_items.normalise_item`) and reads it once
(:class:`~services.jobs.rollout_items.Item`); the worker's
:func:`~services.rollout.tasks.compute_chunk` must still produce every bit of the values.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from pulvezar.eval.evaluator import MODELS, NetEvaluator
from services.jobs.rollout_items import Item, normalise_item

START = "4HPwATDgc/ABMA"
CUBE = {"value": 2, "owner": "player", "match_length": 7, "score": 2, "opponent_score": 4}
ITEMS: dict[str, tuple[dict[str, Any], str]] = {
    "position": ({"position": START, "trials": 36, "seed": 7}, "56b82696efcca469"),
    "plays": (
        {"position": START, "dice": [3, 1], "trials": 36, "seed": 7, "truncate": 9},
        "0e5505d88a249781",
    ),
    "cubeful": (
        {"position": START, "trials": 36, "seed": 3, "cubeful": True, "cube": CUBE, "truncate": 11},
        "1a14d291ba678ef4",
    ),
    "cube": ({"position": START, "kind": "cube", "trials": 36, "seed": 5, "truncate": 7}, "deb48a6a34395446"),
    "tavla-ply1": (
        {"position": START, "trials": 36, "seed": 9, "rules": {"variant": "tavla", "hit_and_stop": True},
         "ply": 1, "truncate": 1, "prune": False},  # unpruned, as it was computed: the bits, not the pruning
        "da824938c9f936a4",
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def evaluator() -> NetEvaluator:
    import torch

    torch.set_num_threads(1)
    return NetEvaluator.load(MODELS / "pulvezar-v3.pt")


@pytest.mark.parametrize("name", list(ITEMS))
def test_chunk_bits_unchanged(name: str, evaluator: NetEvaluator) -> None:
    from services.rollout.tasks import compute_chunk

    params, want = ITEMS[name]
    values, cubeful = compute_chunk(Item.of(normalise_item(params)), 36, 36, evaluator)
    h = hashlib.sha256(np.ascontiguousarray(values, dtype="<f8").tobytes())
    if cubeful is not None:
        h.update(np.ascontiguousarray(cubeful, dtype="<f8").tobytes())
    assert h.hexdigest()[:16] == want


def test_a_searching_item_prunes_unless_told_not_to(evaluator: NetEvaluator) -> None:
    """A ply >= 1 item records ``prune`` (default true) and the worker's chunk is the library's rollout
    with that pruning, by that pruning's search (its cache); a 0-ply item stays as it was, and one stored
    before pruning existed is unpruned."""
    from pulvezar import Position, Rules
    from pulvezar.rollouts import rollout
    from pulvezar.search.hint import searcher
    from services.rollout.tasks import compute_chunk

    base = {"position": START, "trials": 36, "seed": 9, "ply": 1, "truncate": 2, "variance_reduction": False}
    assert "prune" not in normalise_item({**base, "ply": 0})
    searches = {p: searcher(evaluator, Rules.international(), p) for p in (True, False)}
    assert searches[True] is not searches[False]
    for prune in (True, False):
        stored = normalise_item(base if prune else {**base, "prune": False})
        assert stored["prune"] is prune and Item.of(stored).prune is prune
        searches[not prune].cache.clear()
        values, _ = compute_chunk(Item.of(stored), 0, 36, evaluator)
        assert len(searches[prune].cache) > 0 and len(searches[not prune].cache) == 0  # the item's search
        searches[prune].cache.clear()  # as the worker does
        want = rollout(Position.start(), 36, 1, 9, False, truncate=2, evaluator=evaluator, prune=prune)
        np.testing.assert_array_equal(values[0], want.values)
    assert Item.of({k: v for k, v in stored.items() if k != "prune"}).prune is False
