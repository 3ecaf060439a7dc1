"""``hint``: the candidates of one roll, best first, at a ply or a playing level.

Levels (``noise`` is the standard deviation, in equity, of the deterministic
noise added to each candidate before ordering, so that a level plays weaker):

==========  =====  ======  =====
level       plies  filter  noise
==========  =====  ======  =====
easy        0      --      0.06
medium      0      --      0.02
hard        1      normal  0
master      2      normal  0
==========  =====  ======  =====

The noise is seeded by ``seed``, the board and the play, so the same decision
always gets the same noise (as GNU Backgammon's "deterministic noise").
Without ``ply`` and ``level`` a hint is 0-ply: the net's choice, fast.

**Cubeful hints.**  Given a :class:`~pulvezar.cube.CubeState` or a
:class:`~pulvezar.match.Game` in its MOVE phase instead of a bare position,
each candidate also gets its ``cubeful_equity`` and the candidates are
screened, ordered and their ``loss`` counted by it.  After the play the
opponent is on roll, before rolling, holding the cube as the state has it; the
candidate's probabilities (at its ply) go through Janowski's functions
(:mod:`pulvezar.cubeful.janowski`, cube efficiency by position class) for the
opponent's no double / double-take / double-pass, the opponent takes the best
of them (a beaver where allowed), and the mover's value is the negation:

* money: normalised to the present cube (a single game on it = 1), with the
  owner and Jacoby of the state;
* match: the mover's match-winning chances ``1 - MWC(opponent)`` as normalised
  equity (EMG: losing the present cube's points = -1, winning them = +1).

Tavla has no cube: a Tavla game gets the cubeless hint.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from pulvezar.cubeful.janowski import beavered, best_value, efficiency, emg, match_equities, money_equities
from pulvezar.cubeful.state import CubeState
from pulvezar.errors import PulvezarError
from pulvezar.eval.evaluator import Boards, Evaluator, Probs, default_evaluator, flip, for_rules
from pulvezar.match.game import Game, Phase
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from pulvezar.search.filters import MoveFilter
from pulvezar.search.plies import Candidate, PlayValue, Prune, Search


@dataclass(frozen=True, slots=True)
class Strength:
    """A playing strength: search depth, move filter and evaluation noise."""

    name: str
    ply: int
    filter: str
    noise: float


STRENGTHS: dict[str, Strength] = {
    "easy": Strength("easy", 0, "normal", 0.06),
    "medium": Strength("medium", 0, "normal", 0.02),
    "hard": Strength("hard", 1, "normal", 0.0),
    "master": Strength("master", 2, "normal", 0.0),
}

_SEARCHES: dict[tuple[int, Rules, tuple[int, int] | str | None], Search] = {}


def searcher(
    evaluator: Evaluator | None = None, rules: Rules | None = None, prune: Prune | bool | None = True
) -> Search:
    """The shared :class:`Search` (and cache) of an evaluator, rule set and pruning (``prune`` as
    :class:`Search`'s: pruned by default).  A pruned and an unpruned search never share a cache.

    >>> searcher(prune=False) is searcher(prune=None), searcher() is searcher(prune=False)
    (True, False)
    >>> searcher().cache is searcher(prune=False).cache
    False
    """
    ev: Evaluator = evaluator if evaluator is not None else default_evaluator()
    rules = rules or Rules.international()
    # the default pruning by name, so that a 0-ply-only caller never loads the screening net
    how: tuple[int, int] | str | None = "default" if prune is True else None
    if isinstance(prune, Prune):
        how = (id(prune.evaluator), prune.keep)
    key = (id(ev), rules, how)
    s = _SEARCHES.get(key)
    if s is None or s.evaluator is not for_rules(ev, rules):
        if len(_SEARCHES) >= 8:
            _SEARCHES.pop(next(iter(_SEARCHES)))
        s = _SEARCHES[key] = Search(ev, rules, prune=prune if how is not None else None)
    return s


def _noise(seed: int, board: bytes, result: bytes, sigma: float) -> float:
    digest = hashlib.blake2b(board + result, digest_size=8, key=seed.to_bytes(8, "little", signed=True))
    rng = np.random.default_rng(int.from_bytes(digest.digest(), "little"))
    return float(rng.normal(0.0, sigma))


def cubeful_value(state: CubeState) -> PlayValue:
    """The mover's cubeful equity of plays from ``state``'s position, as a :class:`PlayValue`.

    The opponent, on roll after the play, makes the best cube decision on the
    0-ply Janowski functions of the given probabilities; the mover gets the
    rest (see the module notes).
    """
    opp_cube, met = state.cube.swap(), state.table
    mine = state.cube

    def value(probs: Probs, results: Boards) -> npt.NDArray[np.float64]:
        theirs = flip(np.asarray(probs, dtype=np.float64).reshape(-1, 5))
        x = efficiency(np.asarray(results, dtype=np.uint8).reshape(-1, 50))  # symmetric in the sides
        if opp_cube.is_money:
            nd, dt, dp = money_equities(theirs, opp_cube, x)
            out: npt.NDArray[np.float64] = -best_value(nd, beavered(dt, opp_cube), dp)
            return out
        nd, dt, dp = match_equities(theirs, opp_cube, x, met)
        return emg(1.0 - best_value(nd, dt, dp), mine, met)

    return value


def _state_of(
    position: Position | CubeState | Game, dice: tuple[int, int] | None
) -> tuple[Position, tuple[int, int], CubeState | None, Rules | None]:
    """The position, dice, cube state (if any) and rules of what ``hint`` was given."""
    if isinstance(position, Game):
        game = position
        if game.phase is not Phase.MOVE:
            raise PulvezarError(
                f"a hint needs a game in the move phase, it is at {game.phase.value}", field="phase"
            )
        roll = dice if dice is not None else game.dice
        assert roll is not None  # the MOVE phase has dice
        state = CubeState.from_game(game) if game.rules.uses_cube else None
        return game.position, roll, state, game.rules
    if dice is None:
        raise PulvezarError("a hint needs dice (only a game in the move phase has its own)", field="dice")
    if isinstance(position, CubeState):
        return position.position, dice, position, position.rules
    return position, dice, None, None


def hint(
    position: Position | CubeState | Game,
    dice: tuple[int, int] | None = None,
    *,
    ply: int | None = None,
    level: str | None = None,
    rules: Rules | None = None,
    evaluator: Evaluator | None = None,
    filter: str | MoveFilter | None = None,
    seed: int = 0,
    prune: bool = True,
) -> list[Candidate]:
    """The legal plays of ``dice`` ordered by (noisy) equity, best first.

    ``position`` is a :class:`Position` (a cubeless hint), a
    :class:`~pulvezar.cube.CubeState` or a :class:`~pulvezar.match.Game` in
    the MOVE phase (its position, its dice unless ``dice`` is given, its cube
    and score): then each candidate's ``cubeful_equity`` is filled and orders
    the candidates (see the module notes).  The rules of a state or game are
    used; a different ``rules`` is an error.  ``ply`` overrides the level's
    depth and ``filter`` its move filter.  Each :class:`Candidate` has the
    notation, the cubeless probabilities and equity of the player on roll, the
    ply it was valued at and its loss against the best candidate (cubeful when
    known).  At 1 ply or deeper the search prunes its replies (:func:`~pulvezar.search.plies.default_prune`)
    unless ``prune=False``.

    >>> hint(Position.start(), (3, 1))[0].notation
    '8/5 6/5'
    >>> c = hint(CubeState(Position.start(), cube_value=2, cube_owner="player"), (3, 1))[0]
    >>> c.notation, c.cubeful_equity is not None
    ('8/5 6/5', True)
    """
    pos, roll, state, own_rules = _state_of(position, dice)
    if own_rules is not None:
        if rules is not None and rules != own_rules:
            raise PulvezarError("the rules differ from those of the state or game", field="rules")
        rules = own_rules
    lv: Strength | None = None
    if level is not None:
        if level not in STRENGTHS:
            raise ValueError(f"unknown level {level!r}; levels: {', '.join(STRENGTHS)}")
        lv = STRENGTHS[level]
    depth = ply if ply is not None else (lv.ply if lv else 0)
    mf = filter if filter is not None else (lv.filter if lv else None)
    value = cubeful_value(state) if state is not None else None
    cands = searcher(evaluator, rules, prune).rank(pos, roll, depth, mf, value)
    sigma = lv.noise if lv else 0.0
    if sigma > 0 and len(cands) > 1:
        board = pos.board
        cands = [replace(c, noise=_noise(seed, board, c.play.position.board, sigma)) for c in cands]
        cands.sort(key=lambda c: (-c.ply, -c.score))
    return cands
