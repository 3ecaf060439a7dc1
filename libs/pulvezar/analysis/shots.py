"""Shots: the opponent's rolls that hit the blots of the player who just moved.

Exact: for each of the opponent's 21 rolls the rules engine enumerates every
legal play (so blocked intermediate points, entering from the bar, combination
shots, doubles and the rule set's options are all accounted for); a roll counts
when some legal play hits.  Counts are out of 36.
"""

from __future__ import annotations

from dataclasses import dataclass

from pulvezar.rules import _kernel
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules
from pulvezar.search.plies import ROLLS

REC = _kernel.REC


@dataclass(frozen=True, slots=True)
class Shots:
    """Hitting rolls out of 36: any blot (``total``) and per blot (mover's point numbers)."""

    total: int
    by_point: dict[int, int]
    rolls: tuple[tuple[int, int], ...]  # the hitting rolls, larger die first

    def __str__(self) -> str:
        return f"{self.total}/36"


def shots(position: Position, rules: Rules | None = None) -> Shots:
    """Shots at the blots of the player who just moved.

    ``position`` is seen from that player, before the turn passes (as
    :attr:`Play.position`); the opponent rolls next.

    >>> after = Rules.international().legal_plays(Position.start(), (6, 4)).find("24/14").position
    >>> shots(after).by_point[14]
    11
    """
    rules = rules or Rules.international()
    blots = [i + 1 for i in range(24) if position.mine[i] == 1]
    by_point = dict.fromkeys(blots, 0)
    total = 0
    hitting: list[tuple[int, int]] = []
    if not blots or sum(position.theirs) == 0:
        return Shots(0, by_point, ())
    board = position.swap().board
    flags = (_kernel.HIT_AND_STOP if rules.hit_and_stop else 0) | (
        _kernel.MUST_BEAR_OFF if rules.must_bear_off else 0
    )
    for d1, d2 in ROLLS:
        weight = 1 if d1 == d2 else 2
        recs = _kernel.generate(board, d1, d2, flags)
        hit_points: set[int] = set()
        for off in range(0, len(recs), REC):
            bits = recs[off + 59]
            if not bits:  # most plays hit nothing: no slice, no loop
                continue
            for j in range(recs[off + 50]):
                if bits >> j & 1:
                    hit_points.add(25 - recs[off + 52 + 2 * j])  # their point -> the mover's numbering
        if hit_points:
            total += weight
            hitting.append((d1, d2))
            for p in hit_points:
                if p in by_point:
                    by_point[p] += weight
    return Shots(total, by_point, tuple(hitting))
