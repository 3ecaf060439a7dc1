"""Rollouts in fixed chunks of trials: the unit of determinism of distributed rollouts.

A rollout's numbers depend (by about 1e-7) on how its trials are batched: the
evaluator sees one batch per half-move, and a float32 net's output for a board
shifts slightly with the batch around it.  Dice depend on ``(seed, trial)``
alone, so the *trials* are the same however a rollout is cut, but the last
bits of the values are not.  The unit of determinism is therefore the chunk:

* chunk boundaries lie on a fixed grid of ``chunk_size`` trials counted from
  trial 0 (trials ``k * chunk_size .. (k + 1) * chunk_size - 1``); a range of
  trials is cut at the grid points it crosses (:func:`plan_chunks`);
* ``chunk_size`` is a multiple of 36, so every whole chunk holds whole blocks
  of first rolls (:mod:`pulvezar.rollouts.dice`);
* each chunk is one call of :func:`~pulvezar.rollouts.rollout` (or
  :func:`~pulvezar.rollouts.rollout_plays`) with that chunk's ``first_trial``
  and ``trials``, and the chunks merge with :meth:`RolloutResult.merge`.

Whoever computes a chunk, and however often, gets the same bits, so a
distributed run equals :func:`rollout_chunked` in one process exactly, and a
run extended from ``T`` to ``T + M`` trials equals one run of ``T + M`` trials
when ``T`` is a multiple of ``chunk_size``.

>>> plan_chunks(200, 72)
[(0, 72), (72, 72), (144, 56)]
>>> plan_chunks(100, 72, first_trial=100)
[(100, 44), (144, 56)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pulvezar.rollouts.dice import BLOCK
from pulvezar.rollouts.engine import rollout, rollout_plays
from pulvezar.rollouts.stats import RolloutResult
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play

#: ``progress(done, total)``: ``done`` of ``total`` trials finished.
Progress = Callable[[int, int], None]

#: Trials per chunk by default: two blocks of 36, one of each half.
DEFAULT_CHUNK_SIZE = 2 * BLOCK


def check_chunk_size(chunk_size: int) -> int:
    """``chunk_size`` if it is a positive multiple of 36, else :class:`ValueError`."""
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < BLOCK:
        raise ValueError(f"chunk_size is a positive multiple of {BLOCK}, got {chunk_size!r}")
    if chunk_size % BLOCK:
        raise ValueError(f"chunk_size is a positive multiple of {BLOCK}, got {chunk_size}")
    return chunk_size


def plan_chunks(
    trials: int, chunk_size: int = DEFAULT_CHUNK_SIZE, first_trial: int = 0
) -> list[tuple[int, int]]:
    """``(first_trial, trials)`` of each chunk of trials ``first_trial .. first_trial + trials - 1``.

    The range is cut on the grid of multiples of ``chunk_size``, so a range that
    starts or ends off the grid has a short first or last chunk.
    """
    check_chunk_size(chunk_size)
    if trials < 1 or first_trial < 0:
        raise ValueError("trials must be positive and first_trial non-negative")
    end = first_trial + trials
    out = []
    start = first_trial
    while start < end:
        stop = min(end, (start // chunk_size + 1) * chunk_size)
        out.append((start, stop - start))
        start = stop
    return out


def rollout_chunked(
    position: Position,
    trials: int = 1296,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    first_trial: int = 0,
    progress: Progress | None = None,
    **options: Any,
) -> RolloutResult:
    """:func:`~pulvezar.rollouts.rollout`, computed chunk by chunk (:func:`plan_chunks`) and merged.

    ``options`` are those of :func:`~pulvezar.rollouts.rollout` (``seed``,
    ``variance_reduction``, ``truncate``, ``evaluator``, ``rules``, ...);
    ``progress(trials_done, trials)`` is called after each chunk.
    """
    parts: list[RolloutResult] = []
    for first, n in plan_chunks(trials, chunk_size, first_trial):
        parts.append(rollout(position, trials=n, first_trial=first, **options))
        _report(progress, parts, trials)
    return RolloutResult.merge(parts)


def rollout_plays_chunked(
    position: Position,
    dice: tuple[int, int],
    plays: Sequence[Play | Position] | None = None,
    trials: int = 1296,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    first_trial: int = 0,
    progress: Progress | None = None,
    **options: Any,
) -> list[RolloutResult]:
    """:func:`~pulvezar.rollouts.rollout_plays`, computed chunk by chunk and merged per candidate;
    ``progress(trials_done, trials)`` (trials per candidate) is called after each chunk."""
    parts: list[list[RolloutResult]] = []
    for first, n in plan_chunks(trials, chunk_size, first_trial):
        parts.append(rollout_plays(position, dice, plays, trials=n, first_trial=first, **options))
        _report(progress, [p[0] for p in parts], trials)
    return [RolloutResult.merge([p[c] for p in parts]) for c in range(len(parts[0]))]


def _report(progress: Progress | None, parts: Sequence[RolloutResult], trials: int) -> None:
    if progress is not None:
        progress(sum(p.trials for p in parts), trials)
