"""Position types, decided by rules on the board (the first rule that applies wins).

Sides are the player on roll ("player") and the opponent; points are in each
side's own numbering, a *point made* holds two or more checkers.

1. **opening**: nothing borne off, nobody on the bar, and each side has at most
   4 checkers away from its starting points.
2. **bear-off**: the player on roll has every checker in its home board (1..6)
   or off, with or without contact.
3. **race**: no contact left.
4. **backgame**: a side holds two or more points in the other's home board
   (its own 19..24) and trails in the race by at least 40 pips.
5. **blitz**: a side attacks: the other has two or more checkers on the bar, or
   one on the bar against three or more points made in the attacker's home board.
6. **prime**: a side has four or more consecutive points made with at least
   one opposing checker behind them.
7. **holding**: a side holds a point on its own 18..21 (the other's 4..7
   points) with no checker farther back, while the other side has brought all
   its checkers past its own 18 point.
8. **contact**: anything else with contact ("other contact").

For the types that belong to one side (backgame, blitz, prime, holding) the
player on roll is checked first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pulvezar.rules.position import Position

Kind = Literal["opening", "race", "bear-off", "blitz", "backgame", "prime", "holding", "contact"]
Side = Literal["player", "opponent"]

_START = {24: 2, 13: 5, 8: 3, 6: 5}

PLANS: dict[tuple[str, str | None], str] = {
    ("opening", None): "Develop: make key points (5-point, bar point, anchors) and bring builders.",
    ("bear-off", None): "Bear off efficiently: clear from the back and leave no shots while in contact.",
    ("race", None): "Count the race; bring checkers home without wastage, then bear off.",
    ("backgame", "player"): "Keep both anchors and your timing; wait for a shot as the opponent bears in.",
    ("backgame", "opponent"): "Bear in safely against the backgame: clear from the back, avoid gaps.",
    ("blitz", "player"): "Attack: hit loose checkers, make home points, close out the checkers on the bar.",
    ("blitz", "opponent"): "Survive the attack: enter, anchor in the opponent's board, hit back if you can.",
    ("prime", "player"): "Keep the prime, bring builders to extend it and walk it forward.",
    ("prime", "opponent"): "Escape or anchor behind the prime, keeping timing so your board holds.",
    ("holding", "player"): "Keep the anchor and a strong board; wait for a shot as the opponent comes home.",
    ("holding", "opponent"): "Bring checkers past the anchor safely: clear from the back, avoid shots.",
    ("contact", None): "Weigh safety against building: make points, limit shots, watch the race.",
}


@dataclass(frozen=True, slots=True)
class PositionType:
    """A position's type, the side it concerns (if one) and the plan for the player on roll."""

    kind: Kind
    side: Side | None = None

    @property
    def plan(self) -> str:
        return PLANS[(self.kind, self.side)]


def _displaced(side: tuple[int, ...]) -> int:
    return sum(max(0, n - side[p - 1]) for p, n in _START.items())


def _made(side: tuple[int, ...], lo: int, hi: int) -> int:
    """Points made among ``lo..hi`` (own numbering)."""
    return sum(1 for p in range(lo, hi + 1) if side[p - 1] >= 2)


def _pips(side: tuple[int, ...]) -> int:
    return sum((i + 1) * n for i, n in enumerate(side))


def _backgame(me: tuple[int, ...], other: tuple[int, ...]) -> bool:
    return _made(me, 19, 24) >= 2 and _pips(me) - _pips(other) >= 40


def _blitz(me: tuple[int, ...], other: tuple[int, ...]) -> bool:
    bar = other[24]
    return bar >= 2 or (bar >= 1 and _made(me, 1, 6) >= 3)


def _prime(me: tuple[int, ...], other: tuple[int, ...]) -> bool:
    run = 0
    for p in range(1, 25):
        run = run + 1 if me[p - 1] >= 2 else 0
        if run >= 4:
            low = p - run + 1
            # the other's checkers on its points above 25 - low (bar = 25) are behind the prime
            if any(other[q - 1] for q in range(26 - low, 26)):
                return True
    return False


def _holding(me: tuple[int, ...], other: tuple[int, ...]) -> bool:
    anchor = any(me[p - 1] >= 2 for p in range(18, 22))
    back = sum(me[p - 1] for p in range(22, 26))
    return anchor and back == 0 and sum(other[p - 1] for p in range(18, 26)) == 0


_SIDED: tuple[tuple[Kind, Callable[[tuple[int, ...], tuple[int, ...]], bool]], ...] = (
    ("backgame", _backgame),
    ("blitz", _blitz),
    ("prime", _prime),
    ("holding", _holding),
)


def classify(position: Position) -> PositionType:
    """The type of ``position`` (see the module's rules) with its plan.

    >>> classify(Position.start()).kind
    'opening'
    """
    me, other = position.mine, position.theirs
    off_me, off_other = position.off()
    if (
        off_me == 0
        and off_other == 0
        and me[24] == 0
        and other[24] == 0
        and _displaced(me) <= 4
        and _displaced(other) <= 4
    ):
        return PositionType("opening")
    if sum(me[6:25]) == 0:
        return PositionType("bear-off")
    if not position.is_contact():
        return PositionType("race")
    for kind, test in _SIDED:
        if test(me, other):
            return PositionType(kind, "player")
        if test(other, me):
            return PositionType(kind, "opponent")
    return PositionType("contact")
