"""Deep analysis: each candidate's 3-ply value averaged with a long rollout.

:func:`deep_analysis` values every candidate play of a roll twice: by an
n-ply search (3 plies by default) and by a rollout (6,912 trials by default:
two independent seed halves of 3,456, see :mod:`pulvezar.rollouts.dice`, all
candidates with the same dice), and ranks them by the mean of the two.  The
rollout's two halves and its noise are kept, so the answer says how far the
ranking can be trusted: the noise band of the combined value is
``equity +- z * noise / 2`` (the search value has no sampling noise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pulvezar.eval.evaluator import Evaluator, boards_of, default_evaluator, equity
from pulvezar.rollouts.engine import rollout_plays
from pulvezar.rollouts.stats import RolloutResult, difference_noise
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.filters import MoveFilter
from pulvezar.search.hint import searcher

#: trials of the preset: 96 blocks of 36 in each of the two halves
DEEP_TRIALS = 6912
DEEP_PLY = 3


@dataclass(frozen=True)
class DeepCandidate:
    """One candidate of a deep analysis (values for the player who makes the play)."""

    play: Play
    ply: int
    ply_probs: tuple[float, float, float, float, float]
    ply_equity: float
    rollout: RolloutResult
    loss: float = 0.0
    loss_noise: float = 0.0

    @property
    def notation(self) -> str:
        return self.play.notation

    @property
    def rollout_equity(self) -> float:
        return self.rollout.equity

    @property
    def equity(self) -> float:
        """The mean of the search value and the rollout's."""
        return 0.5 * (self.ply_equity + self.rollout.equity)

    @property
    def halves(self) -> tuple[float, float]:
        """The combined value with each seed half of the rollout alone."""
        h0, h1 = self.rollout.halves
        return tuple(0.5 * (self.ply_equity + h.equity) for h in (h0, h1))  # type: ignore[return-value]

    @property
    def noise(self) -> float:
        """Standard error of :attr:`equity` (half the rollout's block noise)."""
        return 0.5 * self.rollout.noise

    def band(self, z: float = 2.0) -> tuple[float, float]:
        """``equity -+ z * noise``."""
        return self.equity - z * self.noise, self.equity + z * self.noise


def deep_analysis(
    position: Position,
    dice: tuple[int, int],
    candidates: Sequence[Play | Position] | None = None,
    evaluator: Evaluator | None = None,
    seed: int = 1,
    *,
    trials: int = DEEP_TRIALS,
    ply: int = DEEP_PLY,
    rollout_ply: int = 0,
    truncate: int | None = None,
    filter: str | MoveFilter | None = None,
    rules: Rules | None = None,
    variance_reduction: bool = True,
    prune: bool = True,
) -> list[DeepCandidate]:
    """Candidates of ``dice`` at ``position`` ranked by (``ply``-ply value + rollout) / 2, best first.

    ``candidates`` default to the plays a ``ply``-ply search with ``filter``
    values at full depth; given ones (legal plays or their resulting
    positions) are all valued.  ``loss`` is the best candidate's equity minus
    this one's, ``loss_noise`` the standard error of that difference (paired
    rollouts: same dice).  The search (and a rollout's, at ``rollout_ply >= 1``) prunes its
    replies unless ``prune=False``.
    """
    rules = rules or Rules.international()
    ev: Evaluator = evaluator if evaluator is not None else default_evaluator()
    search = searcher(ev, rules, prune)
    legal = rules.legal_plays(position, dice)
    if candidates is None:
        ranked = search.rank(position, dice, ply, filter)
        plays = [c.play for c in ranked if c.ply == ranked[0].ply]
    else:
        plays = []
        for c in candidates:
            target = c.position if isinstance(c, Play) else c
            matches = [p for p in legal if p.position == target]
            if not matches:
                raise ValueError(f"{target!r} is not a legal play of {dice} from {position!r}")
            plays.append(matches[0])
    results = boards_of([p.position for p in plays])
    probs = search.play_probabilities(results, ply)
    eqs = equity(probs, rules)
    rolled = rollout_plays(
        position,
        dice,
        plays,
        trials=trials,
        ply=rollout_ply,
        seed=seed,
        variance_reduction=variance_reduction,
        truncate=truncate,
        evaluator=ev,
        rules=rules,
        prune=prune,
    )
    cands = [
        DeepCandidate(
            p, ply, (float(pr[0]), float(pr[1]), float(pr[2]), float(pr[3]), float(pr[4])), float(e), r
        )
        for p, pr, e, r in zip(plays, probs, eqs, rolled, strict=True)
    ]
    order = sorted(range(len(cands)), key=lambda i: (-cands[i].equity, i))
    best = cands[order[0]]
    out = []
    for i in order:
        d = cands[i]
        noise = 0.0 if d is best else 0.5 * difference_noise(best.rollout, d.rollout)
        out.append(replace(d, loss=best.equity - d.equity, loss_noise=noise))
    return out


__all__ = ["DEEP_PLY", "DEEP_TRIALS", "DeepCandidate", "deep_analysis"]
