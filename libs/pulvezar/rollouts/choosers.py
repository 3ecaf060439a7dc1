"""Move choosers for rollouts deeper than 0 plies.

:func:`ply_chooser` picks each trial's play as :meth:`Search.rank
<pulvezar.search.plies.Search.rank>` would at ``ply`` plies with the same move
filter: every legal play is valued at 0 plies, each filter stage screens the
candidates of each trial separately, and the survivors are valued at ``ply``
plies; the best by cubeless equity wins (the first in generator order among
equals).  The work is batched across trials: one 0-ply evaluation for all plays
of all trials, and one :meth:`Search.play_probabilities
<pulvezar.search.plies.Search.play_probabilities>` call per level for all
survivors of all trials (the search's cache removes the duplicates).  The
chooser is a pure function of the boards and dice, so a rollout with it stays
deterministic per ``(seed, trial)``.  Its search prunes the replies
(:func:`~pulvezar.search.plies.default_prune`) unless given ``prune=False``.
"""

from __future__ import annotations

import numpy as np

from pulvezar.eval.evaluator import Boards, Evaluator, Probs, equity, swap_boards
from pulvezar.rollouts.lockstep import Chooser, Ints, greedy_chooser
from pulvezar.rules import _kernel
from pulvezar.rules.rules import Rules
from pulvezar.search.filters import MoveFilter, move_filter
from pulvezar.search.hint import searcher
from pulvezar.search.plies import MAX_PLY


def ply_chooser(ply: int, filter: str | MoveFilter | None = None, prune: bool = True) -> Chooser:
    """The chooser that plays as an ``ply``-ply search with ``filter`` (default ``"normal"``).

    ``ply=0`` is :func:`~pulvezar.rollouts.lockstep.greedy_chooser`.  The search
    (and its cache) is the shared one of the evaluator, rules and pruning
    (:func:`~pulvezar.search.hint.searcher`; ``prune=False``: unpruned).
    """
    if not 0 <= ply <= MAX_PLY:
        raise ValueError(f"rollout move choice searches 0..{MAX_PLY} plies, got {ply}")
    if ply == 0:
        return greedy_chooser
    mf = move_filter(filter)

    def choose(boards: Boards, dice: Ints, rules: Rules, evaluator: Evaluator) -> tuple[Boards, Probs]:
        search = searcher(evaluator, rules, prune)
        gen, rec, flags = _kernel.generate, _kernel.REC, rules.kernel_flags
        recs = [gen(b.tobytes(), int(d[0]), int(d[1]), flags) for b, d in zip(boards, dice, strict=True)]
        counts = np.fromiter((len(r) // rec for r in recs), dtype=np.intp, count=len(recs))
        results = np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, rec)[:, :50]
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        probs = search.play_probabilities(results, 0)  # mover's view
        # the surviving candidates of every trial, as indices into ``results``
        alive = [np.arange(s, s + c, dtype=np.intp) for s, c in zip(starts, counts, strict=True)]
        for k in range(ply):
            stage = mf.stage(k)
            if stage is None:
                continue
            flat = np.concatenate(alive)
            if k > 0:
                probs[flat] = search.play_probabilities(results[flat], k)
            eq = equity(probs, rules)
            alive = [a[stage.select(eq[a])] if len(a) > 1 else a for a in alive]
        flat = np.concatenate(alive)
        probs[flat] = search.play_probabilities(results[flat], ply)
        eq = equity(probs, rules)
        # first best in generator order (``rank`` orders ties by index)
        best = np.array([int(a[np.lexsort((a, -eq[a]))[0]]) for a in alive], dtype=np.intp)
        chosen: Boards = np.ascontiguousarray(swap_boards(results[best]))
        mover: Probs = probs[best]
        return chosen, mover

    return choose


def chooser_for(ply: int, prune: bool = True) -> Chooser:
    """The move chooser of a search depth: 0-ply :func:`greedy_chooser` (never pruned), else
    :func:`~pulvezar.rollouts.choosers.ply_chooser` with the normal move filter and ``prune``."""
    return greedy_chooser if ply == 0 else ply_chooser(ply, prune=prune)
