"""Play notation: canonical output, tolerant input.

Output joins the moves of one checker (``24/18 18/13`` -> ``24/13``), keeps
hits on the way (``24/18*/13``), counts repeats (``13/11(2)``), names the bar
and the tray (``bar/22``, ``6/off``) and lists moves from the highest point
down.  Input accepts any case, ``25`` for the bar, ``0`` for off, ``*`` or not,
moves in any order, commas or spaces.

>>> from pulvezar import Position, Rules
>>> plays = Rules.international().legal_plays(Position.start(), (6, 4))
>>> format_play(parse_play("24/18 18/14", Position.start(), (6, 4)))
'24/14'
>>> try:
...     parse_play("13/7", Position.start(), (6, 4))
... except IllegalPlayError as e:
...     print(e)
'13/7' is not a legal play of 64 here (it uses 1 of 2 dice; all usable dice must be used)
"""

from __future__ import annotations

from pulvezar.errors import AmbiguousPlayError, IllegalPlayError, InvalidPlayError
from pulvezar.rules.playtext import (
    BAR_POINT,
    OFF_POINT,
    format_moves,
    format_play,
    match_play,
    parse_segments,
)
from pulvezar.rules.position import Position
from pulvezar.rules.rules import Play, Rules

__all__ = [
    "BAR_POINT",
    "OFF_POINT",
    "AmbiguousPlayError",
    "IllegalPlayError",
    "InvalidPlayError",
    "format_moves",
    "format_play",
    "match_play",
    "parse_play",
    "parse_segments",
]


def parse_play(text: str, position: Position, dice: tuple[int, int], rules: Rules | None = None) -> Play:
    """Parse notation into the legal play it names.

    Raises :class:`InvalidPlayError` (syntax), :class:`IllegalPlayError`
    (not legal here) or :class:`AmbiguousPlayError` (several plays match).
    """
    return match_play(text, (rules or Rules.international()).legal_plays(position, dice))
