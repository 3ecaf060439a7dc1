"""Backgammon positions, always seen from the player on roll.

A :class:`Position` holds two boards of 25 counts: ``mine`` for the player on
roll and ``theirs`` for the opponent, each counted from its owner's point of
view (index ``i`` is point ``i + 1``, index 24 is the bar).  Checkers not on the
board are off.  :meth:`Position.swap` passes the turn.

>>> p = Position.start()
>>> p.position_id
'4HPwATDgc/ABMA'
>>> p.pips()
(167, 167)
>>> Position.from_position_id('4HPwATDgc/ABMA') == p
True
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Literal

from pulvezar.errors import InvalidIdError, InvalidPositionError
from pulvezar.rules import _kernel
from pulvezar.rules.xgidfields import parse_fields

CHECKERS = 15
BAR = 24  # index of the bar in a side's 25 counts

Variant = Literal["standard", "nackgammon"]

_START: dict[str, dict[int, int]] = {
    # point -> checkers, in the owner's numbering
    "standard": {24: 2, 13: 5, 8: 3, 6: 5},
    "nackgammon": {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
}


def _side_from_points(points: dict[int, int]) -> list[int]:
    side = [0] * 25
    for point, n in points.items():
        side[point - 1] = n
    return side


class Position:
    """An immutable position from the point of view of the player on roll."""

    __slots__ = ("_board",)
    _board: bytes

    def __init__(self, mine: Sequence[int], theirs: Sequence[int]) -> None:
        self._board = _validated(mine, theirs)

    # ---- constructors -------------------------------------------------
    @classmethod
    def _from_board(cls, board: bytes) -> Position:
        """Wrap a 50-byte board without validation (kernel output)."""
        p = object.__new__(cls)
        p._board = board
        return p

    @classmethod
    def from_board(cls, board: bytes) -> Position:
        """Validate and wrap a 50-byte board (``mine`` then ``theirs``)."""
        if len(board) != 50:
            raise InvalidPositionError("a board has 50 bytes (25 per side)", field="board")
        return cls(board[:25], board[25:])

    @classmethod
    def start(cls, variant: Variant = "standard") -> Position:
        """The start position: standard (also Tavla's) or nackgammon."""
        try:
            side = _side_from_points(_START[variant])
        except KeyError:
            raise InvalidPositionError(f"unknown variant {variant!r}", field="variant") from None
        return cls(side, side)

    @classmethod
    def from_points(cls, mine: dict[int, int], theirs: dict[int, int]) -> Position:
        """Build from ``{point: checkers}`` maps, each in its owner's numbering (25 = bar).

        >>> Position.from_points({6: 2}, {1: 1}).pips()
        (12, 1)
        """
        return cls(_side_from_points(mine), _side_from_points(theirs))

    @classmethod
    def from_position_id(cls, position_id: str) -> Position:
        """Decode GNU Backgammon's 14-character Position ID."""
        if not isinstance(position_id, str):
            raise InvalidIdError("a Position ID is a string", field="position_id")
        try:
            board = _kernel.board_from_position_id(position_id.strip())
        except ValueError as e:
            raise InvalidIdError(f"invalid Position ID {position_id!r}: {e}", field="position_id") from None
        try:
            return cls.from_board(board)
        except InvalidPositionError as e:
            raise InvalidIdError(f"invalid Position ID {position_id!r}: {e}", field="position_id") from None

    @classmethod
    def from_xgid(cls, xgid: str) -> Position:
        """The position of an XGID, seen from the player on roll."""
        f = parse_fields(xgid)  # every field checked, as XGID.parse does
        bottom, top = f["bottom"], f["top"]
        try:
            return cls(bottom, top) if f["turn"] == 1 else cls(top, bottom)
        except InvalidPositionError as e:
            raise InvalidIdError(f"impossible position: {e}", field="xgid.position") from None

    # ---- views --------------------------------------------------------
    @property
    def board(self) -> bytes:
        """The 50-byte board: ``mine`` (25 counts) then ``theirs`` (25 counts)."""
        return self._board

    @property
    def mine(self) -> tuple[int, ...]:
        """Checkers of the player on roll, points 1..24 then the bar."""
        return tuple(self._board[:25])

    @property
    def theirs(self) -> tuple[int, ...]:
        """Checkers of the opponent in the opponent's numbering, points 1..24 then the bar."""
        return tuple(self._board[25:])

    @property
    def position_id(self) -> str:
        """GNU Backgammon's Position ID."""
        return str(_kernel.position_id(self._board))

    def swap(self) -> Position:
        """The same board seen by the other player (the turn passes)."""
        b = self._board
        return Position._from_board(b[25:] + b[:25])

    def off(self) -> tuple[int, int]:
        """Checkers borne off: (player on roll, opponent)."""
        b = self._board
        return CHECKERS - sum(b[:25]), CHECKERS - sum(b[25:])

    def bar(self) -> tuple[int, int]:
        """Checkers on the bar: (player on roll, opponent)."""
        return self._board[24], self._board[49]

    def pips(self) -> tuple[int, int]:
        """Pip counts: (player on roll, opponent)."""
        b = self._board
        return (
            sum((i + 1) * n for i, n in enumerate(b[:25])),
            sum((i + 1) * n for i, n in enumerate(b[25:])),
        )

    def is_contact(self) -> bool:
        """Whether any checker still has to pass an opposing one."""
        b = self._board
        mine_back = max((i for i in range(25) if b[i]), default=-1)
        theirs_back = max((i for i in range(25) if b[25 + i]), default=-1)
        # my checker at index i stands on their index 23 - i
        return mine_back >= 0 and theirs_back >= 0 and mine_back + theirs_back >= 23

    def is_race(self) -> bool:
        """No contact left: both sides have passed each other."""
        return not self.is_contact()

    # ---- dunder -------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and other._board == self._board

    def __hash__(self) -> int:
        return hash(self._board)

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.position_id!r})"

    def __reduce__(self) -> tuple[object, tuple[bytes]]:
        return (Position.from_board, (self._board,))


def _validated(mine: Sequence[int], theirs: Sequence[int]) -> bytes:
    for name, side in (("mine", mine), ("theirs", theirs)):
        if len(side) != 25:
            raise InvalidPositionError(
                f"{name} needs 25 counts (points 1..24 and the bar), got {len(side)}", field=name
            )
        for i, n in enumerate(side):
            try:
                ok = operator.index(n) >= 0 and not isinstance(n, bool)
            except TypeError:
                ok = False
            if not ok:
                raise InvalidPositionError(
                    f"{name}[{i}] must be a non-negative integer, got {n!r}", field=name
                )
        total = sum(side)
        if total > CHECKERS:
            raise InvalidPositionError(
                f"{name} has {total} checkers on the board; at most {CHECKERS}", field=name
            )
    for i in range(24):
        if mine[i] and theirs[23 - i]:
            raise InvalidPositionError(
                f"both colours on point {i + 1} (the opponent's {24 - i})", field="board"
            )
    if sum(mine) == 0 and sum(theirs) == 0:
        raise InvalidPositionError("both sides have borne off all their checkers", field="board")
    return bytes(operator.index(n) for n in mine) + bytes(operator.index(n) for n in theirs)
