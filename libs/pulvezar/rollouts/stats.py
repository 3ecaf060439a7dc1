"""Rollout results and their statistics: means, standard errors, halves, blocks, noise.

A result keeps every trial's value (five probabilities, luck-adjusted under
variance reduction, so single values may leave ``[0, 1]``) with its trial
number, so results of chunks merge into the result of the whole run.  The noise
the app shows comes from *blocks*: runs of 36 trials of one half (see
:mod:`pulvezar.rollouts.dice`), each holding every first roll once.  Block means
are independent, so their spread gives a standard error that honours the
stratified dice; the two halves are two independent rollouts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import equity as equity_of
from pulvezar.rollouts.dice import BLOCK, half_index, half_of
from pulvezar.rules.rules import Rules

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def _se(x: Floats) -> float:
    """Standard error of the mean of ``x`` (0 for fewer than two values)."""
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0


def block_means(trials: Ints, values: Floats) -> tuple[Ints, Floats]:
    """Mean of ``values`` per block (half, 36 consecutive trials of the half) holding any trial.

    Returns the block keys (``2 * block index in its half + half``) and the means.
    """
    keys = 2 * (half_index(trials) // BLOCK) + half_of(trials)
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.zeros(len(uniq))
    np.add.at(sums, inv, values)
    counts = np.bincount(inv, minlength=len(uniq))
    return np.asarray(uniq, dtype=np.int64), sums / counts


def block_se(trials: Ints, values: Floats) -> float:
    """Standard error of the mean from the spread of complete-block means.

    Falls back to the per-trial standard error with fewer than two complete blocks.
    """
    keys = 2 * (half_index(trials) // BLOCK) + half_of(trials)
    uniq, inv, counts = np.unique(keys, return_inverse=True, return_counts=True)
    full = counts == BLOCK
    if full.sum() < 2:
        return _se(values)
    sums = np.zeros(len(uniq))
    np.add.at(sums, inv, values)
    return _se(sums[full] / BLOCK)


@dataclass(frozen=True)
class RolloutResult:
    """Per-trial values of one rolled-out position, seen from the side the rollout is about."""

    trials_run: Ints  # trial numbers, ascending
    values: Floats  # (n, 5) probabilities per trial, luck-adjusted under variance reduction
    seed: int
    rules: Rules = field(default_factory=Rules.international)
    variance_reduction: bool = True
    #: per-trial cubeful equity (normalised to the starting cube; match: EMG), cubeful rollouts only
    cubeful: Floats | None = None

    # ---- means and errors ---------------------------------------------------
    @property
    def trials(self) -> int:
        """Number of trials."""
        return len(self.trials_run)

    @property
    def probabilities(self) -> Floats:
        """Mean of the five probabilities: win, win g, win bg, lose g, lose bg."""
        mean: Floats = self.values.mean(axis=0)
        return mean

    @property
    def equities(self) -> Floats:
        """Cubeless equity of each trial."""
        return equity_of(self.values, self.rules)

    @property
    def equity(self) -> float:
        """Mean cubeless equity."""
        return float(self.equities.mean())

    @property
    def probability_se(self) -> Floats:
        """Per-trial standard errors of the five means."""
        n = self.trials
        if n < 2:
            return np.zeros(5)
        se: Floats = self.values.std(axis=0, ddof=1) / math.sqrt(n)
        return se

    @property
    def equity_se(self) -> float:
        """Standard error of the equity from the trials' spread (as if they were independent)."""
        return _se(self.equities)

    # ---- cubeful ------------------------------------------------------------
    def _cubeful(self) -> Floats:
        if self.cubeful is None:
            raise ValueError("not a cubeful rollout")
        return self.cubeful

    @property
    def cubeful_equity(self) -> float:
        """Mean cubeful equity (normalised to the starting cube; match: EMG)."""
        return float(self._cubeful().mean())

    @property
    def cubeful_se(self) -> float:
        """Standard error of the cubeful equity from the trials' spread."""
        return _se(self._cubeful())

    @property
    def cubeful_noise(self) -> float:
        """Standard error of the cubeful equity from the spread of complete-block means."""
        return block_se(self.trials_run, self._cubeful())

    # ---- halves, blocks, noise ----------------------------------------------
    def subset(self, mask: npt.NDArray[np.bool_]) -> RolloutResult:
        """The result of the trials ``mask`` selects."""
        cf = None if self.cubeful is None else self.cubeful[mask]
        return RolloutResult(
            self.trials_run[mask], self.values[mask], self.seed, self.rules, self.variance_reduction, cf
        )

    @property
    def halves(self) -> tuple[RolloutResult, RolloutResult]:
        """The two independent halves (seed and derived seed)."""
        h = half_of(self.trials_run)
        return self.subset(h == 0), self.subset(h == 1)

    @property
    def blocks(self) -> Floats:
        """Mean equity of each block of 36 trials (ordered by block index, half 0 first)."""
        return block_means(self.trials_run, self.equities)[1]

    @property
    def noise(self) -> float:
        """Standard error of the equity from the spread of complete-block means."""
        return block_se(self.trials_run, self.equities)

    # ---- combining ----------------------------------------------------------
    @classmethod
    def merge(cls, parts: Sequence[RolloutResult]) -> RolloutResult:
        """Join chunks of one rollout (same seed and settings, disjoint trials)."""
        if not parts:
            raise ValueError("nothing to merge")
        first = parts[0]
        for p in parts[1:]:
            if (p.seed, p.rules, p.variance_reduction) != (first.seed, first.rules, first.variance_reduction):
                raise ValueError("chunks of different rollouts cannot be merged")
            if (p.cubeful is None) != (first.cubeful is None):
                raise ValueError("cubeful and cubeless chunks cannot be merged")
        trials = np.concatenate([p.trials_run for p in parts])
        order = np.argsort(trials, kind="stable")
        trials = trials[order]
        if (np.diff(trials) == 0).any():
            raise ValueError("chunks overlap: a trial appears twice")
        values = np.concatenate([p.values for p in parts])[order]
        cf = None
        if first.cubeful is not None:
            cf = np.concatenate([p._cubeful() for p in parts])[order]
        return cls(trials, values, first.seed, first.rules, first.variance_reduction, cf)

    def __repr__(self) -> str:
        cf = "" if self.cubeful is None else f"cubeful {self.cubeful_equity:+.4f} +- {self.cubeful_se:.4f}, "
        return (
            f"<RolloutResult {cf}equity {self.equity:+.4f} +- {self.equity_se:.4f} "
            f"(noise {self.noise:.4f}) over {self.trials} trials>"
        )


def difference_noise(a: RolloutResult, b: RolloutResult) -> float:
    """Standard error of ``a.equity - b.equity``.

    With the same trials (same dice), from the blocks of the paired differences;
    otherwise the two noises combined as independent.
    """
    if np.array_equal(a.trials_run, b.trials_run):
        return block_se(a.trials_run, a.equities - b.equities)
    return math.hypot(a.noise, b.noise)


def playable(results: Sequence[RolloutResult], z: float = 2.0) -> list[bool]:
    """Which candidates are within the noise of the best: ``best - equity <= z * noise``.

    ``results`` are the candidates of one decision (e.g. from :func:`rollout_plays`);
    the noise is that of each candidate's difference to the best.
    """
    if not results:
        return []
    eqs = [r.equity for r in results]
    best = int(np.argmax(eqs))
    out = []
    for i, r in enumerate(results):
        gap = eqs[best] - eqs[i]
        out.append(i == best or gap <= z * difference_noise(results[best], r))
    return out
