"""Reading a match document that arrives as JSON (OGXM's projection, BGBlitz's ``.bgf``): its fields
checked one at a time, with the typed error every reader raises.

>>> int_field("OGXM", {"length": 7}, "length", 0, 64)
7
>>> int_field("BGF", {"length": True}, "length", 0, 64)
Traceback (most recent call last):
...
pulvezar.formats.record.MatchFileError: line 1, column 1: BGF field 'length' is True, not a number in 0..64
"""

from __future__ import annotations

from typing import Any

from pulvezar.errors import PulvezarError
from pulvezar.formats.record import MatchFileError
from pulvezar.rules.position import Position


def fail(message: str, offset: int = 0) -> MatchFileError:
    """A document's error, at byte ``offset`` (line 1: a document has no lines)."""
    return MatchFileError(message, line=1, column=offset + 1)


def int_field(fmt: str, obj: dict[str, Any], key: str, lo: int, hi: int, default: int | None = None) -> int:
    """``obj[key]``, an integer in ``lo..hi`` (a bool is not one); ``default`` when it is missing."""
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise fail(f"{fmt} field {key!r} is {value!r}, not a number in {lo}..{hi}")
    return value


def str_field(fmt: str, obj: dict[str, Any], key: str) -> str:
    """``obj[key]``, a string; missing or null is empty."""
    value = obj.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise fail(f"{fmt} field {key!r} is not a string")
    return value


class Cut(Exception):
    """A record the replay cannot follow: the game is cut there (its ``cut_at``)."""


def move_checker(mine: list[int], theirs: list[int], src: int, dst: int) -> None:
    """Move one of the mover's checkers from point ``src`` (25: the bar) to ``dst`` (0 or less: off), in the
    mover's numbering, hitting a lone opposing checker there; :class:`Cut` when ``src`` has none."""
    if src < 1 or mine[src - 1] == 0:
        raise Cut(f"no checker of the mover on point {src}")
    mine[src - 1] -= 1
    if dst > 0:
        mine[dst - 1] += 1
        if theirs[24 - dst] == 1:  # their point 25 - dst
            theirs[24 - dst] = 0
            theirs[24] += 1


def position_after(mine: list[int], theirs: list[int], moves: str) -> Position:
    """The position the ``moves`` (a word for the error) led to; :class:`Cut` when there is none."""
    try:
        return Position(mine, theirs)
    except PulvezarError as e:
        raise Cut(f"the {moves} lead to no position: {e}") from None
