"""The fields of eXtreme Gammon's XGID as text: parsed, checked and formatted.

The shared piece under :class:`pulvezar.rules.xgid.XGID` and
:meth:`pulvezar.rules.position.Position.from_xgid`: it needs neither the
position class nor the Match ID, so both can build on it (see
:mod:`pulvezar.rules.xgid` for the format).
"""

from __future__ import annotations

import re
from typing import Any

from pulvezar.errors import InvalidIdError

__all__ = ["check_fields", "format_board", "log2", "parse_fields"]

_CHECKERS = 15  # per side, as pulvezar.rules.position.CHECKERS
_FIELD = "xgid"
_INT = re.compile(r"-?[0-9]{1,6}\Z")
_DICE = re.compile(r"(00|D|B|R|[1-6][1-6])\Z")
_FIELDS = (  # (label, error field) of the fields after the position
    ("cube", "xgid.cube_value"),
    ("cube position", "xgid.cube_owner"),
    ("turn", "xgid.turn"),
    ("dice", "xgid.dice"),
    ("score 1", "xgid.score"),
    ("score 2", "xgid.score"),
    ("Crawford/Jacoby", "xgid.crawford_jacoby"),
    ("match length", "xgid.match_length"),
    ("max cube", "xgid.max_cube"),
)


def _error(reason: str, field: str = _FIELD) -> InvalidIdError:
    return InvalidIdError(reason, field=field)


def log2(value: int, name: str) -> int:
    if not isinstance(value, int) or value < 1 or value & (value - 1) or value > 1 << 15:
        raise _error(f"{name} must be a power of two 1..32768, got {value!r}", f"xgid.{name}")
    return value.bit_length() - 1


def parse_fields(xgid: str) -> dict[str, Any]:
    """The checked fields of an XGID (with or without ``XGID=``), as :class:`~pulvezar.rules.xgid.XGID`'s
    arguments; :class:`~pulvezar.errors.InvalidIdError` naming the field when one is wrong."""
    if not isinstance(xgid, str):
        raise _error("an XGID is a string")
    s = xgid.strip()
    if s[:5].upper() == "XGID=":
        s = s[5:]
    parts = s.split(":")
    if len(parts) != 10:
        raise _error(f"an XGID has 10 ':'-separated fields, got {len(parts)} in {xgid!r}")
    board, *rest = parts
    bottom, top = _parse_board(board)
    values: list[int] = []
    for (name, field), text in zip(_FIELDS, rest, strict=True):
        if name == "dice":
            continue
        if not _INT.match(text):
            raise _error(f"{name} must be an integer, got {text!r}", field)
        values.append(int(text))
    cube, owner, turn, score1, score2, cj, length, max_cube = values
    for name, log in (("cube_value", cube), ("max_cube", max_cube)):
        if not 0 <= log <= 15:
            raise _error(f"{name} is stored as log2, 0..15, got {log}", f"xgid.{name}")
    fields = dict(
        bottom=bottom,
        top=top,
        cube_value=1 << cube,
        cube_owner=owner,
        turn=turn,
        dice=rest[3],
        score=(score1, score2),
        crawford_jacoby=cj,
        match_length=length,
        max_cube=1 << max_cube,
    )
    check_fields(**fields)  # type: ignore[arg-type]
    return fields


def check_fields(
    bottom: tuple[int, ...],
    top: tuple[int, ...],
    cube_value: int,
    cube_owner: int,
    turn: int,
    dice: str,
    score: tuple[int, int],
    crawford_jacoby: int,
    match_length: int,
    max_cube: int,
) -> None:
    """Check every field but whether the two sides make a legal position (the position's own check)."""
    for name, side in (("bottom", bottom), ("top", top)):
        if len(side) != 25 or not all(isinstance(n, int) and n >= 0 for n in side):
            raise _error(f"{name} needs 25 non-negative counts, got {side!r}", "xgid.position")
        if sum(side) > _CHECKERS:
            raise _error(f"{name} has {sum(side)} checkers; at most {_CHECKERS}", "xgid.position")
    log2(cube_value, "cube_value")
    log2(max_cube, "max_cube")
    if cube_owner not in (-1, 0, 1):
        raise _error(f"cube position must be -1, 0 or 1, got {cube_owner!r}", "xgid.cube_owner")
    if turn not in (-1, 1):
        raise _error(f"turn must be 1 (bottom) or -1 (top), got {turn!r}", "xgid.turn")
    if not isinstance(dice, str) or not _DICE.match(dice):
        raise _error(f"dice must be 00, D, B, R or two digits 1..6, got {dice!r}", "xgid.dice")
    length = match_length
    if not isinstance(length, int) or length < 0:
        raise _error(f"match length must be 0 (money) or more, got {length!r}", "xgid.match_length")
    if len(score) != 2 or not all(isinstance(s, int) and s >= 0 for s in score):
        raise _error(f"scores must be two non-negative integers, got {score!r}", "xgid.score")
    if length and max(score) > length:
        raise _error(f"score {tuple(score)} exceeds the match length {length}", "xgid.score")
    if crawford_jacoby not in ((0, 1) if length else (0, 1, 2, 3)):
        allowed = "0 or 1 in match play" if length else "0..3 in money play"
        raise _error(
            f"Crawford/Jacoby field must be {allowed}, got {crawford_jacoby!r}", "xgid.crawford_jacoby"
        )


def _parse_board(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if len(text) != 26:
        raise _error(f"the position field has 26 characters, got {len(text)} in {text!r}", "xgid.position")
    bottom, top = [0] * 25, [0] * 25
    for i, c in enumerate(text):
        if c == "-":
            continue
        if "A" <= c <= "O" and i != 0:
            bottom[24 if i == 25 else i - 1] = ord(c) - ord("A") + 1
        elif "a" <= c <= "o" and i != 25:
            top[24 if i == 0 else 24 - i] = ord(c) - ord("a") + 1
        else:
            raise _error(f"bad character {c!r} at {i} of the position field {text!r}", "xgid.position")
    return tuple(bottom), tuple(top)


def format_board(bottom: tuple[int, ...], top: tuple[int, ...]) -> str:
    chars = ["-"] * 26
    for i in range(24):
        if bottom[i]:
            chars[i + 1] = chr(ord("A") + bottom[i] - 1)
        if top[i]:
            chars[24 - i] = chr(ord("a") + top[i] - 1)
    if top[24]:
        chars[0] = chr(ord("a") + top[24] - 1)
    if bottom[24]:
        chars[25] = chr(ord("A") + bottom[24] - 1)
    return "".join(chars)
