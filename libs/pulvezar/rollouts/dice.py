"""Quasi-random rollout dice, a pure function of ``(seed, trial, half-move)``.

Trials are numbered from 0.  They come in blocks of 36 that alternate between
two independent *halves*: half 0 uses ``seed``, half 1 a seed derived from it
(:func:`half_seed`), so the two halves are two independent rollouts whose
difference measures the noise.  Inside its half, trial ``i`` has the index
``k`` (:func:`half_index`).

* Half-move 0: outcome ``perm(seed_h)[i mod 36]``: every aligned run of 36
  trials holds each of the 36 outcomes once.
* Half-move 1: stratified over 36 x 36: within each run of 1296 trials of a
  half, each first outcome meets each second outcome once.
* Later half-moves: ``hash(seed_h, k, half-move) mod 36``.

The hash is SplitMix64's finaliser over 64-bit words (bias of the ``mod 36`` below
``2**-58``).  Outcome ``r`` is the roll ``(r // 6 + 1, r % 6 + 1)``.

>>> trial_rolls(1, np.arange(3), 0).tolist() == trial_rolls(1, np.array([0, 1, 2]), 0).tolist()
True
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

BLOCK = 36  # trials per block: one full set of first rolls
PAIRS = 36 * 36  # trials per half for a full set of (first, second) rolls

U64 = npt.NDArray[np.uint64]
Ints = npt.NDArray[np.int64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TAG_FIRST, _TAG_SECOND, _TAG_LATER, _TAG_HALF = 1, 2, 3, 4


def _mix(x: U64) -> U64:
    with np.errstate(over="ignore"):  # arithmetic modulo 2**64 is intended
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


def _hash(*words: npt.ArrayLike) -> U64:
    """A 64-bit hash of broadcast integer words (each taken modulo 2**64)."""
    h = np.zeros((), dtype=np.uint64)
    for w in words:
        a = np.asarray(w)
        a = a.astype(np.uint64) if a.dtype != np.uint64 else a
        with np.errstate(over="ignore"):
            h = _mix((h ^ a) + _GOLDEN)
    return h


def _word(seed: int) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"a rollout seed is a non-negative integer, got {seed!r}")
    return seed % 2**64


def half_seed(seed: int, half: int) -> int:
    """The seed of half 0 (``seed`` itself) or half 1 (derived from it)."""
    if half == 0:
        return _word(seed)
    return int(_hash(np.uint64(_word(seed)), _TAG_HALF))


def half_of(trials: Ints) -> Ints:
    """Which half (0 or 1) each trial belongs to."""
    return np.asarray((trials // BLOCK) % 2, dtype=np.int64)


def half_index(trials: Ints) -> Ints:
    """Index of each trial inside its half."""
    return np.asarray((trials // (2 * BLOCK)) * BLOCK + trials % BLOCK, dtype=np.int64)


def _perm_pick(keys: U64, slot: Ints) -> Ints:
    """Element ``slot`` of the permutation of 0..35 that each key defines."""
    h = _hash(keys[:, None], np.arange(36, dtype=np.uint64)[None, :])
    perm = np.argsort(h, axis=1, kind="stable")
    return np.asarray(perm[np.arange(len(keys)), slot], dtype=np.int64)


def trial_outcomes(seed: int, trials: npt.ArrayLike, step: int) -> Ints:
    """Outcome (0..35) of half-move ``step`` of each trial."""
    t = np.asarray(trials, dtype=np.int64).reshape(-1)
    if (t < 0).any():
        raise ValueError("trial numbers are non-negative")
    seeds = np.array([half_seed(seed, 0), half_seed(seed, 1)], dtype=np.uint64)[half_of(t)]
    k = half_index(t)
    if step == 0:
        return _perm_pick(_hash(seeds, _TAG_FIRST), k % BLOCK)
    if step == 1:
        m = k % PAIRS
        keys = _hash(seeds, _TAG_SECOND, (k // PAIRS).astype(np.uint64), (m % BLOCK).astype(np.uint64))
        return _perm_pick(keys, m // BLOCK)
    h = _hash(seeds, _TAG_LATER, k.astype(np.uint64), np.uint64(step))
    return np.asarray(h % np.uint64(36), dtype=np.int64)


def trial_rolls(seed: int, trials: npt.ArrayLike, step: int) -> Ints:
    """``(N, 2)`` dice of half-move ``step`` of each trial."""
    r = trial_outcomes(seed, trials, step)
    return np.stack([r // 6 + 1, r % 6 + 1], axis=1)
