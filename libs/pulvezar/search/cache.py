"""A bounded LRU cache of evaluations, keyed by board bytes.

Keys are the 50-byte board (0-ply probabilities) or the board followed by one
byte holding the ply (deeper values, see :mod:`pulvezar.search.plies`).  Values
are the five probabilities stored as 40 bytes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import cast

import numpy as np
import numpy.typing as npt

from pulvezar.eval.evaluator import Boards, Evaluator, Probs, evaluate_plays

DEFAULT_SIZE = 1 << 17  # entries; about 250 bytes each


class EvalCache:
    """Bounded LRU map ``bytes -> (5,) probabilities`` with hit and miss counters."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        if size < 0:
            raise ValueError("the cache size cannot be negative")
        self.size = size
        self.hits = 0
        self.misses = 0
        self._data: OrderedDict[bytes, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        """Drop every entry and reset the counters."""
        self._data.clear()
        self.hits = self.misses = 0

    def lookup(self, keys: list[bytes]) -> tuple[list[int], Probs]:
        """Indices of the keys found and their probabilities, ``(len(found), 5)``."""
        data = self._data
        got = list(map(data.get, keys))
        found = [i for i, v in enumerate(got) if v is not None]
        touch = data.move_to_end
        for i in found:
            touch(keys[i])
        self.hits += len(found)
        self.misses += len(keys) - len(found)
        raw = b"".join([v for v in got if v is not None])  # in the order found
        probs = np.frombuffer(raw, dtype=np.float64).reshape(-1, 5).copy()
        return found, probs

    def store(self, keys: list[bytes], probs: Probs) -> None:
        """Insert entries, evicting the least recently used beyond :attr:`size`."""
        if self.size == 0:
            return
        data = self._data
        data.update(zip(keys, row_bytes(np.asarray(probs, dtype=np.float64)), strict=True))
        while len(data) > self.size:
            data.popitem(last=False)


def row_bytes(rows: npt.NDArray[np.generic]) -> list[bytes]:
    """Each row of a 2-D array as one ``bytes`` (made in C: the keys of a batch of boards).

    >>> row_bytes(np.array([[1, 2], [3, 4]], dtype=np.uint8))
    [b'\\x01\\x02', b'\\x03\\x04']
    """
    rows = np.ascontiguousarray(rows)
    width = rows.shape[1] * rows.dtype.itemsize
    keys = rows.view(np.dtype((np.void, width))).ravel().tolist()
    return cast(list[bytes], keys)


def unique_boards(boards: Boards) -> tuple[Boards, np.ndarray]:
    """Distinct rows of ``(N, 50)`` boards and the inverse index (``boards == u[inv]``)."""
    boards = np.ascontiguousarray(boards, dtype=np.uint8)
    view = boards.view(np.dtype((np.void, boards.shape[1]))).ravel()
    _, first, inv = np.unique(view, return_index=True, return_inverse=True)
    return boards[first], inv.ravel()


class CachedEvaluator:
    """Wraps an evaluator: duplicate boards are evaluated once, known ones not at all.

    Every call makes at most one ``evaluate_boards`` call on the wrapped
    evaluator, with the boards neither in the batch twice nor in the cache.
    """

    def __init__(self, evaluator: Evaluator, cache: EvalCache | None = None) -> None:
        self.evaluator = evaluator
        self.cache = cache if cache is not None else EvalCache()
        self.calls = 0  # calls that reached the wrapped evaluator
        self.evaluated = 0  # boards that reached it

    @property
    def race_table_points(self) -> int:
        """The wrapped evaluator's (:func:`~pulvezar.eval.evaluator.exact_races`)."""
        return int(getattr(self.evaluator, "race_table_points", 6))

    def evaluate_boards(self, boards: Boards) -> Probs:
        if len(boards) == 0:
            return np.zeros((0, 5))
        uniq, inv = unique_boards(boards)
        return self._evaluate(uniq, inv, lambda idx: self.evaluator.evaluate_boards(uniq[idx]))

    def evaluate_plays(self, parents: Boards, index: npt.NDArray[np.intp], after: Boards) -> Probs:
        """:meth:`evaluate_boards` of plays (see :func:`pulvezar.eval.evaluator.evaluate_plays`):
        the wrapped evaluator gets each missing board with a parent, in the order they came."""
        if len(after) == 0:
            return np.zeros((0, 5))
        after = np.ascontiguousarray(after, dtype=np.uint8)
        view = after.view(np.dtype((np.void, after.shape[1]))).ravel()
        _, first, inv = np.unique(view, return_index=True, return_inverse=True)
        order = np.argsort(first)  # first occurrences in their order: one parent's plays stay together
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        first = first[order]
        uniq, parent = after[first], np.asarray(index)[first]
        return self._evaluate(
            uniq,
            rank[inv.ravel()],
            lambda idx: evaluate_plays(self.evaluator, parents, parent[idx], uniq[idx]),
        )

    def _evaluate(
        self, uniq: Boards, inv: npt.NDArray[np.intp], run: Callable[[npt.NDArray[np.intp]], Probs]
    ) -> Probs:
        keys = row_bytes(uniq)
        found, known = self.cache.lookup(keys)
        out = np.empty((len(uniq), 5))
        if found:
            out[found] = known
        missing = np.ones(len(uniq), dtype=bool)
        missing[found] = False
        if missing.any():
            idx = np.flatnonzero(missing)
            probs = run(idx)
            self.calls += 1
            self.evaluated += len(idx)
            out[idx] = probs
            self.cache.store([keys[i] for i in idx], probs)
        result: Probs = out[inv]
        return result
