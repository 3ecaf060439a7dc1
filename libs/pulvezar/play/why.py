"""Why a play is illegal, in terms of dice and points.

:func:`diagnose` adds a reason to the rules engine's "is not a legal play of
31 here": no checker on the start point, a checker on the bar that must enter
first, a blocked landing point, a distance no die covers, bearing off before
every checker is home, or a Tavla option (hit and stop, must bear off) that
forbids what international rules allow.  ``None`` when it finds no simpler
reason than the engine's.

>>> from pulvezar.rules.position import Position
>>> from pulvezar.rules.rules import Rules
>>> diagnose(Position.start(), (3, 1), "7/4 6/5", Rules.international())
'you have no checker on the 7-point'
>>> diagnose(Position.start(), (6, 5), "13/7 13/8 8/3", Rules.international())
'the roll 65 has 2 dice; that play uses 3'
"""

from __future__ import annotations

import itertools

from pulvezar.errors import NotationError
from pulvezar.rules.playtext import BAR_POINT, OFF_POINT, parse_segments
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules


def _name(p: int) -> str:
    return "the bar" if p == BAR_POINT else f"the {p}-point"


def _sums(dice: list[int]) -> set[int]:
    out: set[int] = set()
    for k in range(1, len(dice) + 1):
        for combo in itertools.combinations(dice, k):
            out.add(sum(combo))
    return out


def diagnose(position: Position, dice: tuple[int, int], text: str, rules: Rules) -> str | None:
    """A reason, in words of dice and points, why ``text`` is no legal play (or ``None``)."""
    try:
        segments = parse_segments(text)
    except NotationError:
        return None
    d1, d2 = dice
    available = [d1] * 4 if d1 == d2 else [d1, d2]
    roll = f"{d1}{d2}"
    mine, theirs = position.mine, position.theirs
    hops = sum(len(s) - 1 for s in segments)
    if hops > len(available):
        return f"the roll {roll} has {len(available)} dice; that play uses {hops}"
    from_bar = sum(1 for s in segments if s[0] == BAR_POINT)
    if from_bar > mine[24]:
        n = mine[24]
        return "you have no checker on the bar" if n == 0 else f"you have only {n} checker(s) on the bar"
    if mine[24] and from_bar < min(mine[24], len(available)) and any(s[0] != BAR_POINT for s in segments):
        return f"you have {mine[24]} checker(s) on the bar: enter before moving any other checker"
    counts = list(mine)
    for seg in segments:
        src = seg[0]
        if src != BAR_POINT:
            if counts[src - 1] == 0:
                return (
                    f"you have no checker on the {src}-point"
                    if mine[src - 1] == 0
                    else f"you have only {mine[src - 1]} checker(s) on the {src}-point"
                )
            counts[src - 1] -= 1
        for a, b in itertools.pairwise(seg):
            if b == OFF_POINT:
                outside = sum(mine[6:25])
                if outside:
                    return (
                        f"you bear off only once all your checkers are in your home board; "
                        f"{outside} are still outside"
                    )
                if a > max(available):
                    return f"no die of {roll} bears a checker off {_name(a)}"
                continue
            dist = (25 if a == BAR_POINT else a) - b
            if dist not in _sums(available):
                return f"no die of {roll} (nor their sum) moves a checker from {_name(a)} to the {b}-point"
            blockers = theirs[24 - b]
            if blockers >= 2:
                return f"the {b}-point is blocked: the opponent has {blockers} checkers there"
    tavla_options = rules.variant == "tavla" and (rules.hit_and_stop or rules.must_bear_off)
    if tavla_options and text in Rules.international().legal_plays(position, dice):
        opts = [
            n
            for n, on in (
                ("hit and stop (a checker that hits in your home board stops there)", rules.hit_and_stop),
                ("must bear off (a die that can bear a checker off must do so)", rules.must_bear_off),
            )
            if on
        ]
        return "the Tavla rule " + " or ".join(opts) + " forbids it"
    return None
