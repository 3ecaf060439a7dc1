"""Why a play is illegal, in terms of dice and points.

:func:`diagnose` adds a reason to the rules engine's "is not a legal play of
31 here": no checker on the start point, a checker on the bar that must enter
first, a blocked landing point, a distance no die covers, bearing off before
every checker is home, or a Tavla option (hit and stop, must bear off) that
forbids what international rules allow.  ``None`` when it finds no simpler
reason than the engine's.  The reason is a :class:`~pulvezar.i18n.Message`,
said in any of the catalogs' languages.

>>> from pulvezar.rules.position import Position
>>> from pulvezar.rules.rules import Rules
>>> str(diagnose(Position.start(), (3, 1), "7/4 6/5", Rules.international()))
'you have no checker on the 7-point'
>>> diagnose(Position.start(), (6, 5), "13/7 13/8 8/3", Rules.international()).text("tr")
'65 atışında 2 zar var; o hamle 3 zar kullanıyor'
"""

from __future__ import annotations

import itertools

from pulvezar.errors import NotationError
from pulvezar.i18n import Message
from pulvezar.rules.playtext import BAR_POINT, OFF_POINT, parse_segments
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Rules


def _name(p: int) -> Message:
    return Message("why.bar") if p == BAR_POINT else Message("why.point", {"point": p})


def _sums(dice: list[int]) -> set[int]:
    out: set[int] = set()
    for k in range(1, len(dice) + 1):
        for combo in itertools.combinations(dice, k):
            out.add(sum(combo))
    return out


def diagnose(position: Position, dice: tuple[int, int], text: str, rules: Rules) -> Message | None:
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
        return Message("why.too_many_dice", {"roll": roll, "n": len(available), "used": hops})
    from_bar = sum(1 for s in segments if s[0] == BAR_POINT)
    if from_bar > mine[24]:
        n = mine[24]
        return Message("why.no_bar_checker") if n == 0 else Message("why.only_on_bar", {"n": n})
    if mine[24] and from_bar < min(mine[24], len(available)) and any(s[0] != BAR_POINT for s in segments):
        return Message("why.enter_first", {"n": mine[24]})
    counts = list(mine)
    for seg in segments:
        src = seg[0]
        if src != BAR_POINT:
            if counts[src - 1] == 0:
                if mine[src - 1] == 0:
                    return Message("why.no_checker_on", {"point": src})
                return Message("why.only_on", {"n": mine[src - 1], "point": src})
            counts[src - 1] -= 1
        for a, b in itertools.pairwise(seg):
            if b == OFF_POINT:
                outside = sum(mine[6:25])
                if outside:
                    return Message("why.bear_off_outside", {"n": outside})
                if a > max(available):
                    return Message("why.no_die_bears_off", {"roll": roll, "start": _name(a)})
                continue
            dist = (25 if a == BAR_POINT else a) - b
            if dist not in _sums(available):
                return Message("why.no_die_moves", {"roll": roll, "start": _name(a), "point": b})
            blockers = theirs[24 - b]
            if blockers >= 2:
                return Message("why.blocked", {"point": b, "n": blockers})
    tavla_options = rules.variant == "tavla" and (rules.hit_and_stop or rules.must_bear_off)
    if tavla_options and text in Rules.international().legal_plays(position, dice):
        if rules.hit_and_stop and rules.must_bear_off:
            both = {"a": Message("why.tavla.hit_and_stop"), "b": Message("why.tavla.must_bear_off")}
            return Message("why.tavla_forbids_both", both)
        option = "hit_and_stop" if rules.hit_and_stop else "must_bear_off"
        return Message("why.tavla_forbids", {"rule": Message(f"why.tavla.{option}")})
    return None
