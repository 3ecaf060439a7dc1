"""N-ply lookahead, batched, with an evaluation cache.

Numbering follows GNU Backgammon: the value of a play at

- **0 plies** is the raw evaluation of the position after the play;
- **n plies** is the average over the opponent's 21 rolls (doubles 1/36,
  others 2/36) of the position after the opponent's best reply, that reply
  chosen by 0-ply equity and then valued at ``n - 1`` plies.  At 1 ply this is
  exactly "the opponent's best 0-ply reply, averaged over its rolls".

eXtreme Gammon counts one more: XG "1-ply" = gnubg 0-ply, XG "2-ply" = gnubg
1-ply, XG "3-ply" = gnubg 2-ply.

Finished games and the exact bear-off races are not searched: their 0-ply value
is already final.  Probabilities are averaged (equity is linear in them);
replies are chosen by cubeless equity under the search's rules (Tavla: mars = 2).

Batching: every level of the lookahead generates the plays of all its
positions and rolls with the rules kernel and makes one evaluation call for
all of them (through :class:`~pulvezar.search.cache.CachedEvaluator`, which
drops duplicates and boards already known).  Values at ``n >= 1`` plies are
cached too, keyed by the board plus one byte for the ply.

**Pruning** (:class:`Prune`) is the default: every :class:`Search` chooses its replies with
:func:`default_prune` (the screening net on the quantised kernel, keeping :data:`PRUNE_KEEP` plays
of each roll) unless it is given ``prune=None`` (or ``False``): the unpruned search.  A pruned and an
unpruned search must not share an :class:`~pulvezar.search.cache.EvalCache` (their n-ply values
differ); :func:`~pulvezar.search.hint.searcher` keeps one for each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pulvezar.eval import _forward
from pulvezar.eval.evaluator import (
    SCREEN_MODEL,
    Boards,
    Evaluator,
    NetEvaluator,
    Probs,
    board_flags,
    default_evaluator,
    equity,
    evaluate_plays,
    exact_races,
    flip,
    for_rules,
    swap_boards,
    terminal,
)
from pulvezar.rules import _kernel
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules
from pulvezar.search.cache import CachedEvaluator, EvalCache, row_bytes, unique_boards
from pulvezar.search.filters import MoveFilter, move_filter

REC = _kernel.REC


@dataclass(frozen=True)
class Prune:
    """Pruning for search, as GNU Backgammon's pruning nets: where a search chooses a reply by 0-ply
    equity (inside every expansion), each roll's plays are valued by a cheap ``evaluator`` first and
    only its ``keep`` best by the search's own.  Candidates at the top are not pruned (the move
    filters screen them)."""

    evaluator: Evaluator
    keep: int = 4

    def __post_init__(self) -> None:
        if self.keep < 1:
            raise ValueError("a pruning keeps at least one play")


PRUNE_KEEP = 4
"""How many plays of each roll the default pruning values with the search's net (issue 41: the
unpruned 2-ply best play on 99.4-99.8% of decisions at ~2.5x the speed; bench/RESULTS.md)."""

_DEFAULT_PRUNE: Prune | None = None


def default_prune() -> Prune:
    """The platform's pruning: the screening net (:data:`~pulvezar.eval.evaluator.SCREEN_MODEL`) on
    the quantised kernel, keeping :data:`PRUNE_KEEP`; loaded once per process.

    >>> default_prune() is default_prune(), default_prune().keep
    (True, 4)
    """
    global _DEFAULT_PRUNE
    if _DEFAULT_PRUNE is None:
        _DEFAULT_PRUNE = Prune(NetEvaluator.load(SCREEN_MODEL, quantised=True), PRUNE_KEEP)
    return _DEFAULT_PRUNE


def pruning(prune: Prune | bool | None) -> Prune | None:
    """The :class:`Prune` a ``prune`` option means: ``True`` the :func:`default_prune`, ``None`` or
    ``False`` none (the unpruned search), a :class:`Prune` itself.

    >>> pruning(True) is default_prune(), pruning(False), pruning(None)
    (True, None, None)
    """
    if prune is True:
        return default_prune()
    if prune is None or prune is False:
        return None
    return prune


def _first_best(
    values: npt.NDArray[np.float64], seg: npt.NDArray[np.intp], starts: npt.NDArray[np.intp]
) -> npt.NDArray[np.intp]:
    """Per segment (``seg``: each row's, ``starts``: each segment's first row), the first row whose
    value is the segment's best within 1e-12; ``len(values)`` for a segment without a finite value."""
    best = np.maximum.reduceat(values, starts)
    is_best = (values >= best[seg] - 1e-12) & np.isfinite(values)
    first = np.full(len(starts), len(values), dtype=np.intp)
    np.minimum.at(first, seg[is_best], np.flatnonzero(is_best))
    return first


MAX_PLY = 3
ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
"""The 21 distinct rolls, larger die first."""
ROLL_WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0

PlayValue = Callable[[Probs, Boards], npt.NDArray[np.float64]]
"""A measure of plays for :meth:`Search.rank`: ``(probs, results) -> values``, both
``(N, ...)`` in the mover's view (probabilities after the play, resulting boards)."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One legal play as the search valued it.

    ``probs`` and ``cubeless_equity`` are for the player making the play;
    ``cubeful_equity`` is filled when the play was valued against a cube and
    score (:func:`~pulvezar.search.hint.hint` given a cube state or a game),
    ``None`` otherwise, and :attr:`equity` prefers it.  ``noise`` is what a
    weakened level added to the equity for ordering (``score = equity +
    noise``); ``loss`` is the best candidate's :attr:`equity` minus this one's
    (noise left out).
    """

    play: Play
    probs: tuple[float, float, float, float, float]
    cubeless_equity: float
    ply: int
    loss: float = 0.0
    noise: float = 0.0
    cubeful_equity: float | None = None

    @property
    def notation(self) -> str:
        return self.play.notation

    @property
    def equity(self) -> float:
        """The equity the candidates are compared by: cubeful where known, else cubeless."""
        return self.cubeful_equity if self.cubeful_equity is not None else self.cubeless_equity

    @property
    def score(self) -> float:
        return self.equity + self.noise


class Search:
    """Lookahead for one evaluator and rule set, with its own cache.

    The evaluator is the given one's for the rule set (:func:`~pulvezar.eval.evaluator.for_rules`).
    ``prune`` (see :func:`pruning`): ``True`` (the default) prunes the replies with
    :func:`default_prune`, a :class:`Prune` with that one, ``None`` or ``False`` is the unpruned
    search.  Give a pruned and an unpruned search different caches.

    >>> s = Search(rules=Rules.international())
    >>> best = s.rank(Position.start(), (3, 1), ply=0)[0]
    >>> best.notation, s.prune is default_prune()
    ('8/5 6/5', True)
    >>> Search(rules=Rules.international(), prune=None).prune is None
    True
    """

    def __init__(
        self,
        evaluator: Evaluator | None = None,
        rules: Rules | None = None,
        cache: EvalCache | None = None,
        prune: Prune | bool | None = True,
    ) -> None:
        self.rules = rules or Rules.international()
        self.evaluator: Evaluator = for_rules(  # a model's own nets for the rule set where it has them
            evaluator if evaluator is not None else default_evaluator(), self.rules
        )
        self.cache = cache if cache is not None else EvalCache()
        self.cached = CachedEvaluator(self.evaluator, self.cache)
        self._prune = prune  # resolved on use: a 0-ply-only search never loads the screening net
        self._flags = self.rules.kernel_flags

    @property
    def prune(self) -> Prune | None:
        """The pruning of the replies (:func:`pruning` of the ``prune`` given), ``None``: unpruned."""
        return pruning(self._prune)

    # ---- values of positions ------------------------------------------------
    def probabilities(self, boards: Boards, ply: int) -> Probs:
        """``(N, 50)`` boards -> ``(N, 5)`` probabilities at ``ply`` for the player on roll."""
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}, got {ply}")
        boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 50)
        if ply == 0 or len(boards) == 0:
            return self.cached.evaluate_boards(boards)
        uniq, inv = unique_boards(boards)
        out = np.empty((len(uniq), 5))
        done, exact = terminal(uniq)
        out[done] = exact[done]
        final = ~done & exact_races(self.evaluator, uniq)
        if final.any():
            out[final] = self.cached.evaluate_boards(uniq[final])
        todo = np.flatnonzero(~done & ~final)
        if len(todo):
            tag = bytes([ply])
            keys = [k + tag for k in row_bytes(uniq[todo])]
            found, known = self.cache.lookup(keys)
            if found:
                out[todo[found]] = known
            missing = np.ones(len(todo), dtype=bool)
            missing[found] = False
            if missing.any():
                idx = todo[missing]
                values = self._expand(uniq[idx], ply)
                out[idx] = values
                self.cache.store([keys[i] for i in np.flatnonzero(missing)], values)
        result: Probs = out[inv]
        return result

    def _expand(self, boards: Boards, ply: int) -> Probs:
        """Average over the 21 rolls of the best reply (0-ply choice) valued at ``ply - 1``."""
        rolled = np.repeat(boards, len(ROLLS), axis=0)
        dice = np.tile(np.array(ROLLS, dtype=np.uint8), (len(boards), 1))
        out, raw_counts = _kernel.generate_many(rolled.tobytes(), dice.tobytes(), self._flags)
        counts = np.frombuffer(raw_counts, dtype=np.int64).astype(np.intp)
        after = swap_boards(
            np.frombuffer(out, dtype=np.uint8).reshape(-1, 50)
        )  # the mover's opponent on roll
        first, known = self._choose(after, counts, rolled)
        chosen = after[first]
        # at 1 ply the chosen replies' 0-ply values are those the choice was made by
        reply = known if ply == 1 else self.probabilities(chosen, ply - 1)
        mover = flip(reply).reshape(len(boards), len(ROLLS), 5)
        result: Probs = np.einsum("nrk,r->nk", mover, ROLL_WEIGHTS)
        return result

    def _best_of_segments(
        self, after: Boards, counts: npt.NDArray[np.intp], parents: Boards | None = None
    ) -> npt.NDArray[np.intp]:
        """Index of the first best 0-ply play in each segment of ``counts`` plays (of ``parents``,
        one a segment, when given: the quantised kernel updates each play from its parent).  The
        chosen plays' 0-ply values are in the cache afterwards."""
        return self._choose(after, counts, parents)[0]

    def _choose(
        self, after: Boards, counts: npt.NDArray[np.intp], parents: Boards | None = None
    ) -> tuple[npt.NDArray[np.intp], Probs]:
        """:meth:`_best_of_segments` and the chosen plays' 0-ply probabilities (on roll's view)."""
        seg = np.repeat(np.arange(len(counts)), counts)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        if self.prune is not None and parents is not None:
            return self._best_of_pruned(after, counts, parents, seg, starts)
        if parents is None:
            probs = self.cached.evaluate_boards(after)
        else:
            probs = self.cached.evaluate_plays(parents, seg, after)
        mover_eq = equity(flip(probs), self.rules)
        best = np.maximum.reduceat(mover_eq, starts)
        is_best = mover_eq >= best[seg] - 1e-12
        first = np.full(len(counts), len(mover_eq), dtype=np.intp)
        np.minimum.at(first, seg[is_best], np.flatnonzero(is_best))
        return first, probs[first]

    def _best_of_pruned(
        self,
        after: Boards,
        counts: npt.NDArray[np.intp],
        parents: Boards,
        seg: npt.NDArray[np.intp],
        starts: npt.NDArray[np.intp],
    ) -> tuple[npt.NDArray[np.intp], Probs]:
        """:meth:`_choose` with :attr:`prune`: every play valued by the cheap net, the ``keep`` best
        of each segment by the search's evaluator, the first best of those chosen.

        The kept plays are valued without the cache (positions two half-moves on are nearly all new:
        its lookups and keys cost more than they save); only the chosen ones' values are stored, for
        the searches that read them back (the cube search's children)."""
        assert self.prune is not None
        # races are not screened: the screening net is weakest there (it kept the unpruned 2-ply best
        # play on 91-95% of race decisions against 97-99% in contact) and the race net is cheap
        contact = (board_flags(parents) & _forward.FLAG_CONTACT) != 0
        big = (counts > self.prune.keep) & contact
        kept = ~big[seg]  # segments of at most `keep` plays, and races, are valued whole, not screened
        if big.any():
            screened = np.flatnonzero(~kept)
            values = np.full(len(after), -np.inf)
            cheap = evaluate_plays(self.prune.evaluator, parents, seg[screened], after[screened])
            values[screened] = equity(flip(cheap), self.rules)
            for _ in range(self.prune.keep):  # the best not yet kept of each segment, first of equals
                first = _first_best(values, seg, starts)
                first = first[big & (first < len(after))]
                kept[first] = True
                values[first] = -np.inf
        rows = np.flatnonzero(kept)  # generator order within each segment
        kseg = seg[rows]
        probs = evaluate_plays(self.evaluator, parents, kseg, after[rows])
        self.cached.calls += 1
        self.cached.evaluated += len(rows)
        mover_eq = equity(flip(probs), self.rules)
        pick = _first_best(mover_eq, kseg, np.searchsorted(kseg, np.arange(len(counts))).astype(np.intp))
        chosen = rows[pick]
        known = probs[pick]
        self.cache.store(row_bytes(after[chosen]), known)
        return chosen, known

    def play_probabilities(self, results: Boards, ply: int) -> Probs:
        """Probabilities at ``ply`` of plays' resulting boards (mover's view), for the mover."""
        return flip(self.probabilities(swap_boards(np.asarray(results, dtype=np.uint8)), ply))

    def roll_values(
        self,
        position: Position,
        rolls: tuple[tuple[int, int], ...] = ROLLS,
        ply: int = 0,
        filter: str | MoveFilter | None = None,
    ) -> npt.NDArray[np.float64]:
        """Cubeless equity of the best play of each roll, for the player on roll.

        At 0 plies all rolls are ranked in one evaluation call.
        """
        if ply > 0:
            return np.array([self.rank(position, d, ply, filter)[0].cubeless_equity for d in rolls])
        gen, flags, b = _kernel.generate, self._flags, position.board
        recs = [gen(b, d1, d2, flags) for d1, d2 in rolls]
        counts = np.fromiter((len(r) // REC for r in recs), dtype=np.intp, count=len(recs))
        results = np.frombuffer(b"".join(recs), dtype=np.uint8).reshape(-1, REC)[:, :50]
        eq = equity(self.play_probabilities(results, 0), self.rules)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        result: npt.NDArray[np.float64] = np.maximum.reduceat(eq, starts)
        return result

    # ---- ranking the plays of a roll -----------------------------------------
    def rank(
        self,
        position: Position,
        dice: tuple[int, int],
        ply: int = 0,
        filter: str | MoveFilter | None = None,
        value: PlayValue | None = None,
    ) -> list[Candidate]:
        """Every legal play of ``dice``, the best first; see :mod:`~pulvezar.search.filters`.

        Candidates valued deeper come first, then the screened-out ones by their
        last value; equal values keep the generator's order.  ``value`` (default:
        the cubeless equity) is the measure the filters screen by, the order
        follows and ``loss`` is counted in; when given, it is also the
        candidates' ``cubeful_equity``.
        """
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}, got {ply}")
        mf = move_filter(filter)
        plays = self.rules.legal_plays(position, dice)
        boards = np.frombuffer(b"".join(plays.boards()), dtype=np.uint8).reshape(-1, 50)
        n = len(boards)
        probs = self.play_probabilities(boards, 0)

        def measure(idx: npt.NDArray[np.intp]) -> npt.NDArray[np.float64]:
            if value is None:
                return equity(probs[idx], self.rules)
            return np.asarray(value(probs[idx], boards[idx]), dtype=np.float64)

        plies = np.zeros(n, dtype=np.intp)
        alive = np.arange(n)
        for k in range(ply):
            stage = mf.stage(k)
            if stage is None:
                continue
            if k > 0:
                probs[alive] = self.play_probabilities(boards[alive], k)
                plies[alive] = k
            alive = alive[stage.select(measure(alive))]
        if ply > 0:
            probs[alive] = self.play_probabilities(boards[alive], ply)
            plies[alive] = ply
        cubeless = equity(probs, self.rules)
        eq = cubeless if value is None else measure(np.arange(n))
        order = np.lexsort((np.arange(n), -eq, -plies))
        best = eq[order[0]]
        return [
            Candidate(
                play=plays[int(i)],
                probs=(
                    float(probs[i, 0]),
                    float(probs[i, 1]),
                    float(probs[i, 2]),
                    float(probs[i, 3]),
                    float(probs[i, 4]),
                ),
                cubeless_equity=float(cubeless[i]),
                ply=int(plies[i]),
                loss=float(best - eq[i]),
                cubeful_equity=None if value is None else float(eq[i]),
            )
            for i in order
        ]
