"""The board line of GNU Backgammon's external-player protocol, decoded into pulvezar's terms.

gnubg (``set player N external HOST:PORT``) sends each decision it wants from the external player as
one FIBS "boardstyle 3" line, ``board:`` then 52 colon-separated fields (FIBS's client protocol):

======  ==============================================================================
fields  meaning
======  ==============================================================================
1, 2    two player names
3       match length (0: money; FIBS's 9999, an unlimited match, is read as money too)
4, 5    two scores (see below for whose)
6..31   the board: 26 counts, positive for X, negative for O; 0 and 25 are the bars
32      whose turn: 1 (X) or -1 (O); the doubler while a double is pending
33..36  the dice (twice); 0 0 before the roll: the cube action is asked
37      the cube value
38, 39  may double: X, O (the cube owner is the one side that may, else centred)
40      a double is pending (nonzero): the other side is asked take, drop or beaver
41..44  X's colour (1) and direction (-1), home (0) and bar (25) fields
45..52  checkers off, on the bar, "can move", "forced move", then two Crawford fields
======  ==============================================================================

A side moving in direction -1 has its point ``p`` at field index ``p`` and its bar at 25; the other
side the mirror image (point ``p`` at ``25 - p``, bar at 0).  Two things in gnubg's line depart from
the FIBS server's, learned by running gnubg 1.07 against a listening socket: the names and scores
are gnubg's player 0 (O) then player 1 (X), swapped while a double is pending; and of the two last
fields the first is 1 after the Crawford game (0 in it), so a 1-away score with a 0 there is the
Crawford game.  The decision is always asked of one side; :func:`decode` gives the position and
cube from the point of view of the side on turn (the mover or the doubler).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pulvezar.cubeful.janowski import Owner
from pulvezar.cubeful.state import MAX_CUBE, MAX_MATCH_LENGTH, CubeState
from pulvezar.errors import PulvezarError
from pulvezar.rules.position import Position

__all__ = ["FIELDS", "BoardLineError", "GnubgBoard", "Request", "decode", "parse_board"]

FIELDS = 53  # "board" and its 52 fields
UNLIMITED = 9999  # FIBS's match length of an unlimited match

Ask = Literal["play", "double", "take", "beaver"]


class BoardLineError(PulvezarError):
    """A line that is not a board gnubg could send (syntax, ranges, an impossible position)."""


@dataclass(frozen=True, slots=True)
class GnubgBoard:
    """The fields of one board line, as numbers (no interpretation beyond their ranges)."""

    names: tuple[str, str]
    match_length: int
    scores: tuple[int, int]
    points: tuple[int, ...]  # the 26 board fields
    turn: int
    dice: tuple[int, int]
    cube: int
    may_double: tuple[bool, bool]  # X (positive), O (negative)
    doubled: bool
    colour: int
    direction: int
    post_crawford: bool


@dataclass(frozen=True, slots=True)
class Request:
    """What gnubg asks: ``ask`` (``play`` with ``dice``, ``double`` before the roll, ``take`` a pending
    double; ``beaver``: the doubler was beavered, which only the player can tell) and ``state``: the
    position and cube seen by the side on turn (the doubler for ``take`` and ``beaver``)."""

    ask: Ask
    state: CubeState
    dice: tuple[int, int] | None = None

    @property
    def position(self) -> Position:
        return self.state.position


def _int(text: str, what: str, lo: int, hi: int) -> int:
    t = text.strip()
    if not t.lstrip("-").isdigit() or len(t) > 6:
        raise BoardLineError(f"{what}: an integer, got {text[:20]!r}", field=what)
    v = int(t)
    if not lo <= v <= hi:
        raise BoardLineError(f"{what}: {lo}..{hi}, got {v}", field=what)
    return v


def parse_board(line: str) -> GnubgBoard:
    """The fields of a ``board:...`` line (:class:`BoardLineError` when it is not one)."""
    f = line.strip().split(":")
    if f[0] != "board":
        raise BoardLineError("not a board line (it starts with 'board:')", field="board")
    if len(f) != FIELDS:
        raise BoardLineError(f"a board line has {FIELDS} fields, this one {len(f)}", field="board")
    length = _int(f[3], "match_length", 0, UNLIMITED)
    length = 0 if length == UNLIMITED else length
    if length > MAX_MATCH_LENGTH:
        raise BoardLineError(f"matches up to {MAX_MATCH_LENGTH} points, got {length}", field="match_length")
    top = max(length - 1, 0) if length else 1 << 20
    scores = (_int(f[4], "score", 0, top), _int(f[5], "score", 0, top))
    points = tuple(_int(v, "board", -15, 15) for v in f[6:32])
    turn = _int(f[32], "turn", -1, 1)
    if turn == 0:
        raise BoardLineError("the game is over (turn 0): nothing to decide", field="turn")
    dice = (_int(f[33], "dice", 0, 6), _int(f[34], "dice", 0, 6))
    if (dice[0] == 0) != (dice[1] == 0):
        raise BoardLineError(f"dice: both 1..6 or both 0, got {dice}", field="dice")
    cube = _int(f[37], "cube", 1, MAX_CUBE)
    if cube & (cube - 1):
        raise BoardLineError(f"cube: a power of two, got {cube}", field="cube")
    may = (_int(f[38], "may_double", 0, 1) == 1, _int(f[39], "may_double", 0, 1) == 1)
    doubled = _int(f[40], "doubled", -1, 1) != 0
    colour, direction = _int(f[41], "colour", -1, 1), _int(f[42], "direction", -1, 1)
    if colour == 0 or direction == 0:
        raise BoardLineError("colour and direction are 1 or -1", field="colour")
    post = _int(f[51], "post_crawford", 0, 3) != 0
    return GnubgBoard(
        (f[1], f[2]), length, scores, points, turn, dice, cube, may, doubled, colour, direction, post
    )


def _side(b: GnubgBoard, sign: int) -> list[int]:
    """The 25 counts (points 1..24, bar) of the side whose checkers have ``sign``."""
    direction = b.direction if sign == b.colour else -b.direction
    bar_index = 25 if direction < 0 else 0
    out = [0] * 25
    for p in range(1, 25):
        v = b.points[p if direction < 0 else 25 - p] * sign
        out[p - 1] = max(v, 0)
    v = b.points[bar_index] * sign
    if v < 0:
        raise BoardLineError("checkers of the other side on a bar", field="board")
    out[24] = v
    return out


def decode(b: GnubgBoard, *, jacoby: bool = False, beaver: bool = False) -> Request:
    """What ``b`` asks and the state seen by the side on turn (see the module for the conventions)."""
    me, you = b.turn, -b.turn
    try:
        position = Position(_side(b, me), _side(b, you))
    except PulvezarError as e:
        raise BoardLineError(f"not a position: {e}", field="board") from None
    first = 1 if b.doubled else -1  # the side whose score comes first (gnubg's player order)
    score = {first: b.scores[0], -first: b.scores[1]}
    may = {1: b.may_double[0], -1: b.may_double[1]}
    owner: Owner = "centre"
    if may[me] != may[you]:
        owner = "player" if may[me] else "opponent"
    length = b.match_length
    crawford = bool(length) and length - 1 in b.scores and not b.post_crawford
    money = not length
    state = CubeState(
        position, b.cube, owner, length, (score[me], score[you]), crawford, jacoby and money, beaver and money
    )
    if b.doubled:
        return Request("take", state)
    if b.dice == (0, 0):
        return Request("double", state)
    return Request("play", state, b.dice)
